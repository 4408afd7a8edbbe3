"""Delete: default handle_delete, deletion policies, retries; snapshots; external ids."""

from __future__ import annotations

import pytest
from test_resource_fakes import Server, make, make_context, run, states

from sdk import exception
from sdk.resource import Resource


def created(cls=Server, **kwargs):
    r = make(cls, **kwargs)
    run(r.create())
    r.context.events.clear()
    return r


def test_default_handle_delete_uses_entity_and_client():
    r = created()
    compute = r.client()
    assert "srv-1" in compute.servers.items
    run(r.delete())
    assert r.state == "DELETE_COMPLETE"
    assert compute.servers.items == {}
    assert ("delete", "srv-1") in compute.servers.calls
    assert states(r.context) == ["DELETE_IN_PROGRESS", "DELETE_COMPLETE"]


def test_default_handle_delete_ignores_not_found():
    r = created()
    compute = r.client()
    del compute.servers.items["srv-1"]  # gone behind our back
    assert r.handle_delete() is None
    run(r.delete())
    assert r.state == "DELETE_COMPLETE"


def test_default_handle_delete_returns_the_id_as_token():
    r = created()
    assert r.handle_delete() == "srv-1"


def test_default_handle_delete_reraises_other_errors():
    class Bad(Server):
        pass

    r = created(Bad)
    r.client().servers.items.clear()

    def boom(sid):
        raise exception.Unauthorized("token expired")

    r.client().servers.delete = boom
    with pytest.raises(exception.ResourceFailure, match="Unauthorized: token expired"):
        run(r.delete())
    assert r.state == "DELETE_FAILED"


def test_no_entity_means_nothing_to_delete():
    class NoEntity(Resource):
        pass

    r = created(NoEntity)
    r.resource_id_set("x")
    assert r.handle_delete() is None
    run(r.delete())
    assert r.state == "DELETE_COMPLETE"


def test_delete_of_never_created_resource_is_a_no_op():
    r = make(Server)
    run(r.delete())
    assert r.state == "INIT_COMPLETE"
    assert r.context.events == []


def test_delete_twice_is_harmless():
    r = created()
    run(r.delete())
    run(r.delete())
    assert r.state == "DELETE_COMPLETE"
    assert states(r.context) == ["DELETE_IN_PROGRESS", "DELETE_COMPLETE"]


def test_delete_without_resource_id_after_failed_create():
    class FailsEarly(Server):
        def handle_create(self):
            raise exception.BadRequest("bad flavor")

    r = make(FailsEarly)
    with pytest.raises(exception.ResourceFailure):
        run(r.create())
    run(r.delete())
    assert r.state == "DELETE_COMPLETE"


class Polled(Server):
    def check_delete_complete(self, token):
        if token is None:
            return True
        try:
            self.client().servers.get(token)
        except exception.NotFound:
            return True
        return False


def test_delete_polls_check_delete_complete_with_the_token():
    r = created(Polled)
    run(r.delete())
    assert r.state == "DELETE_COMPLETE"
    assert r.client().servers.calls[-1] == ("get", "srv-1")


def test_delete_retries_on_conflict_with_backoff():
    ctx, compute = make_context()
    r = created(ctx=ctx)
    compute.servers.delete_conflicts = 2
    run(r.delete())
    assert r.state == "DELETE_COMPLETE"
    assert states(ctx) == ["DELETE_IN_PROGRESS"] * 3 + ["DELETE_COMPLETE"]
    assert [e.time for e in ctx.events] == [0.0, 0.0, 2.0, 6.0]
    assert (
        ctx.events[1].reason == "Retrying delete (attempt 2) after Conflict: Server srv-1 is busy"
    )


def test_delete_conflict_beyond_the_limit_fails():
    ctx, compute = make_context()
    r = created(ctx=ctx)
    compute.servers.delete_conflicts = 5
    with pytest.raises(exception.ResourceFailure, match="Conflict"):
        run(r.delete())
    assert r.state == "DELETE_FAILED"
    assert compute.servers.calls.count(("delete", "srv-1")) == 3


# --- deletion policies ------------------------------------------------------------


def test_retain_runs_no_handler():
    r = created(deletion_policy="Retain")
    run(r.delete())
    assert r.state == "DELETE_COMPLETE"
    assert "srv-1" in r.client().servers.items
    assert ("delete", "srv-1") not in r.client().servers.calls


class Snapshotting(Server):
    seen: list = []

    def handle_snapshot_delete(self, state):
        self.seen.append(state)
        self.client().servers.delete(self.resource_id)
        return self.resource_id


def test_snapshot_policy_calls_handle_snapshot_delete_with_the_state():
    r = created(Snapshotting, deletion_policy="Snapshot")
    run(r.delete())
    assert r.state == "DELETE_COMPLETE"
    assert r.seen == [("CREATE", "COMPLETE")]
    assert r.client().servers.items == {}


def test_snapshot_policy_rejected_without_handle_snapshot_delete():
    r = make(Server, deletion_policy="Snapshot")
    with pytest.raises(exception.StackValidationFailed) as info:
        r.validate()
    message = str(info.value)
    assert message.startswith("resources.web.deletion_policy: ")
    assert '"Snapshot" deletion policy not supported by resource web (Server)' in message
    assert "handle_snapshot_delete" in message
    make(Snapshotting, deletion_policy="Snapshot").validate()


def test_unknown_deletion_policy_rejected():
    r = make(Server, deletion_policy="Shred")
    with pytest.raises(exception.StackValidationFailed, match='Invalid deletion policy "Shred"'):
        r.validate()


# --- snapshots --------------------------------------------------------------------


class WithSnapshots(Server):
    deleted: list = []

    def handle_snapshot(self):
        self.data_set("image", f"img-of-{self.resource_id}")
        return "snap-job"

    async def check_snapshot_complete(self, token):
        return token == "snap-job"

    def handle_delete_snapshot(self, snapshot):
        self.deleted.append(snapshot)
        return snapshot["resource_data"]["image"]

    def check_delete_snapshot_complete(self, token):
        return token.startswith("img-of-")


def test_snapshot_action_and_its_data():
    r = created(WithSnapshots)
    data = run(r.snapshot())
    assert data == {"image": "img-of-srv-1"}
    assert r.state == "SNAPSHOT_COMPLETE"
    assert states(r.context) == ["SNAPSHOT_IN_PROGRESS", "SNAPSHOT_COMPLETE"]
    assert r.context.saved["web"]["data"] == {"image": "img-of-srv-1"}


def test_delete_snapshot_does_not_change_state():
    r = created(WithSnapshots)
    run(r.delete_snapshot({"resource_data": {"image": "img-of-srv-1"}}))
    assert r.deleted == [{"resource_data": {"image": "img-of-srv-1"}}]
    assert r.state == "CREATE_COMPLETE"
    assert r.context.events == []


def test_delete_snapshot_failure_is_a_resource_failure():
    r = created(WithSnapshots)
    with pytest.raises(exception.ResourceFailure, match="KeyError"):
        run(r.delete_snapshot({}))
    assert r.state == "CREATE_COMPLETE"


def test_handle_restore_default_returns_the_definition():
    r = make(Server)
    assert r.handle_restore(r.t, {"resource_data": {}}) is r.t


# --- external ids and adopt ---------------------------------------------------------


def test_external_id_adopts_without_creating_and_is_retained():
    ctx, compute = make_context()
    existing = compute.servers.create(name="outside")
    r = make(Server, ctx=ctx, external_id=existing.id)
    r.validate()
    run(r.create())
    assert r.resource_id == existing.id
    assert compute.servers.counter == 1  # handle_create never ran
    assert states(ctx) == ["ADOPT_IN_PROGRESS", "ADOPT_COMPLETE", "CHECK_COMPLETE"]
    assert ctx.events[-1].reason == "CHECK not supported for Test::Server"
    run(r.delete())
    assert r.state == "DELETE_COMPLETE"
    assert existing.id in compute.servers.items


def test_external_id_that_does_not_exist_fails_validation():
    r = make(Server, external_id="srv-404")
    with pytest.raises(exception.StackValidationFailed) as info:
        r.validate()
    assert str(info.value) == (
        "resources.web.external_id: Invalid external resource: "
        "Resource srv-404 (Test::Server) can not be found."
    )
    assert r.resource_id is None


def test_adopt_takes_id_and_data():
    r = make(Server)
    run(r.adopt({"resource_id": "srv-7", "resource_data": {"k": "v"}, "metadata": {"m": 1}}))
    assert r.state == "ADOPT_COMPLETE"
    assert r.resource_id == "srv-7"
    assert r.data() == {"k": "v"}
    assert r.metadata_get() == {"m": 1}


def test_adopt_without_id_fails():
    r = make(Server)
    with pytest.raises(exception.ResourceFailure, match="Resource ID was not provided"):
        run(r.adopt({}))
    assert r.state == "ADOPT_FAILED"


def test_custom_handle_adopt():
    class Custom(Server):
        def handle_adopt(self, resource_data):
            self.resource_id_set(resource_data["uuid"])

    r = make(Custom)
    run(r.adopt({"uuid": "u-1"}))
    assert r.resource_id == "u-1"
