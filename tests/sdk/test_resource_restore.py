"""Resource.restore_state and Resource.definition: the engine's public way back from the store."""

from __future__ import annotations

import pytest
from test_resource_fakes import Server, make, make_context, run

from sdk import exception
from sdk.rsrc_defn import ResourceDefinition


def test_definition_is_the_current_definition_and_read_only():
    r = make(Server, props={"name": "a", "image": "img"})
    assert isinstance(r.definition, ResourceDefinition)
    assert r.definition is r.t
    assert r.definition.properties == {"name": "a", "image": "img"}
    with pytest.raises(AttributeError):
        r.definition = ResourceDefinition("web", "Test::Server")


def test_definition_follows_an_update():
    ctx, _ = make_context()
    r = make(Server, props={"name": "a", "image": "img"}, ctx=ctx)
    run(r.create())
    after = r.definition.freeze(properties={"name": "b", "image": "img"})
    run(r.update(after))
    assert r.definition is after


def test_restore_state_puts_everything_back_without_events():
    ctx, _ = make_context()
    r = make(Server, props={"name": "a"}, ctx=ctx)
    r.restore_state(
        "UPDATE",
        "FAILED",
        "engine restarted during UPDATE",
        "srv-7",
        {"token": "x", "n": 2},
        metadata={"role": "web"},
    )
    assert r.state == "UPDATE_FAILED"
    assert r.status_reason == "engine restarted during UPDATE"
    assert r.resource_id == "srv-7"
    assert r.data() == {"token": "x", "n": 2}
    assert r.metadata_get() == {"role": "web"}
    assert ctx.events == [] and ctx.saved == {}


def test_restored_data_is_a_copy():
    r = make(Server)
    data = {"k": "v"}
    r.restore_state("CREATE", "COMPLETE", data=data)
    data["k"] = "changed"
    assert r.data() == {"k": "v"}


def test_restore_state_defaults_leave_no_id_data_or_metadata_override():
    r = make(Server, metadata={"from": "template"})
    r.restore_state("CREATE", "COMPLETE")
    assert (r.state, r.status_reason, r.resource_id, r.data()) == ("CREATE_COMPLETE", "", None, {})
    assert r.metadata_get() == {"from": "template"}


@pytest.mark.parametrize(
    ("action", "status", "message"),
    [
        ("EXPLODE", "COMPLETE", "Invalid action 'EXPLODE' for resource web"),
        ("CREATE", "DONE", "Invalid status 'DONE' for resource web"),
    ],
)
def test_restore_state_refuses_unknown_states(action, status, message):
    r = make(Server)
    with pytest.raises(ValueError, match=message):
        r.restore_state(action, status)
    assert r.state == "INIT_COMPLETE"


def test_a_restored_resource_carries_on_with_its_state_machine():
    ctx, compute = make_context()
    r = make(Server, props={"name": "a"}, ctx=ctx)
    run(r.create())
    server_id = r.resource_id
    again = make(Server, props={"name": "a"}, ctx=ctx)
    again.restore_state("CREATE", "COMPLETE", resource_id=server_id)
    with pytest.raises(exception.ResourceFailure, match="invalid for create"):
        run(again.create())
    run(again.delete())
    assert again.state == "DELETE_COMPLETE"
