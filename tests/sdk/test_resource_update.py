"""Update: in place, replacement, immutable properties, prop_diff and tmpl_diff."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_resource_fakes import Server, make, make_context, run, states

from sdk import exception
from sdk import properties as p
from sdk.resource import Resource
from sdk.rsrc_defn import ResourceDefinition


class Recording(Server):
    """Records what handle_update received."""

    received: list = []

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        self.received.append((json_snippet, tmpl_diff, prop_diff))
        return super().handle_update(json_snippet, tmpl_diff, prop_diff)


def created(cls=Recording, props=None, **kwargs):
    r = make(cls, props=props if props is not None else {"name": "a", "image": "deb"}, **kwargs)
    run(r.create())
    r.context.events.clear()
    if hasattr(r, "received"):
        r.received = []
    return r


def test_update_in_place_with_prop_diff_and_tmpl_diff():
    r = created()
    after = r.t.freeze(properties={"name": "b", "image": "deb"})
    run(r.update(after))
    assert r.state == "UPDATE_COMPLETE"
    assert states(r.context) == ["UPDATE_IN_PROGRESS", "UPDATE_COMPLETE"]
    snippet, tmpl_diff, prop_diff = r.received[0]
    assert prop_diff == {"name": "b"}
    assert tmpl_diff == {"properties": {"name": "b", "image": "deb"}}
    assert snippet == after.to_dict()
    assert r.client().servers.items["srv-1"].fields["name"] == "b"
    # the new definition and properties are current; the old one is kept
    assert r.t == after
    assert r.properties["name"] == "b"
    assert r.prev_definition.properties == {"name": "a", "image": "deb"}


def test_removed_property_is_none_in_prop_diff():
    r = created(props={"name": "a", "image": "deb", "tags": ["x"]})
    run(r.update(r.t.freeze(properties={"name": "a", "image": "deb"})))
    assert r.received[0][2] == {"tags": None}


def test_setting_a_property_without_default_is_a_change_even_to_its_zero_value():
    r = created()
    run(r.update(r.t.freeze(properties={"name": "a", "image": "deb", "tags": []})))
    assert r.received[0][2] == {"tags": []}
    r.received = []
    run(r.update(r.t.freeze(properties={"name": "a", "image": "deb"})))
    assert r.received[0][2] == {"tags": None}


def test_added_property_and_resolved_comparison():
    r = created()
    # the flavor default is "small": setting it explicitly changes nothing
    run(r.update(r.t.freeze(properties={"name": "a", "image": "deb", "flavor": "small"})))
    assert r.received == []
    assert r.context.events == []


def test_nothing_changed_is_a_no_op_without_events():
    r = created()
    run(r.update(r.t.freeze()))
    assert r.state == "CREATE_COMPLETE"
    assert r.context.events == []
    assert r.received == []


def test_metadata_only_change_updates_without_prop_diff():
    r = created()
    run(r.update(r.t.freeze(metadata={"owner": "me"})))
    assert r.state == "UPDATE_COMPLETE"
    assert r.received[0][1:] == ({"metadata": {"owner": "me"}}, {})


def test_description_and_condition_never_cause_an_update():
    r = created()
    run(r.update(r.t.freeze(description="new words", condition="prod")))
    assert r.context.events == []


def test_not_update_allowed_raises_update_replace_before_any_state_change():
    r = created()
    with pytest.raises(exception.UpdateReplace, match="The Resource web requires replacement"):
        run(r.update(r.t.freeze(properties={"name": "a", "image": "deb", "flavor": "big"})))
    assert r.context.events == []
    assert r.state == "CREATE_COMPLETE"
    assert r.received == []


def test_immutable_property_change_fails_naming_it():
    r = created()
    with pytest.raises(exception.ResourceFailure) as info:
        run(r.update(r.t.freeze(properties={"name": "a", "image": "arch"})))
    assert r.state == "UPDATE_FAILED"
    assert r.status_reason == (
        "NotSupported: Update to properties image of web (Test::Server) is not supported"
    )
    assert isinstance(info.value.exc, exception.NotSupported)
    assert states(r.context) == ["UPDATE_IN_PROGRESS", "UPDATE_FAILED"]
    # the failed update left the old definition in place and remembered it
    assert r.t.properties["image"] == "deb"
    assert r.prev_definition == r.t


def test_invalid_new_properties_fail_the_update():
    r = created()
    with pytest.raises(exception.ResourceFailure, match="Unknown Property colour"):
        run(r.update(r.t.freeze(properties={"name": "a", "image": "deb", "colour": 1})))
    assert r.state == "UPDATE_FAILED"


class NoHandleUpdate(Resource):
    properties_schema = {"size": p.Schema(p.Schema.INTEGER, "Size.", update_allowed=True)}


def test_default_handle_update_asks_for_replacement_when_properties_change():
    r = created(NoHandleUpdate, props={"size": 1})
    with pytest.raises(exception.UpdateReplace):
        run(r.update(r.t.freeze(properties={"size": 2})))
    # the handler ran inside the action: Heat records the action as complete
    assert states(r.context) == ["UPDATE_IN_PROGRESS", "UPDATE_COMPLETE"]
    assert r.status_reason == "The Resource web requires replacement."
    assert r.t.properties == {"size": 1}


def test_default_handle_update_accepts_template_only_changes():
    r = created(NoHandleUpdate, props={"size": 1})
    run(r.update(r.t.freeze(update_policy={"batch": 2})))
    assert r.state == "UPDATE_COMPLETE"


def test_handle_update_raising_update_replace_propagates():
    class Picky(Server):
        def handle_update(self, json_snippet, tmpl_diff, prop_diff):
            raise exception.UpdateReplace(self.name)

    r = created(Picky)
    with pytest.raises(exception.UpdateReplace):
        run(r.update(r.t.freeze(properties={"name": "z", "image": "deb"})))


def test_update_allowed_names_from_the_class_attribute():
    class Extra(Recording):
        update_allowed_properties = ("flavor",)

    r = created(Extra)
    run(r.update(r.t.freeze(properties={"name": "a", "image": "deb", "flavor": "big"})))
    assert r.received[0][2] == {"flavor": "big"}


class AsyncUpdate(Server):
    async def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        return "job"

    def check_update_complete(self, token):
        self.polls = getattr(self, "polls", 0) + 1
        return self.polls == 3


def test_async_update_with_polling():
    ctx, _ = make_context(poll_interval=1.0)
    r = created(AsyncUpdate, ctx=ctx)
    t0 = ctx.clock.now()
    run(r.update(r.t.freeze(properties={"name": "b", "image": "deb"})))
    assert r.state == "UPDATE_COMPLETE"
    assert ctx.clock.now() - t0 == pytest.approx(1 + 1.5)


def test_update_from_init_or_failed_or_deleted_replaces():
    r = make(Recording, props={"name": "a"})
    with pytest.raises(exception.UpdateReplace):
        run(r.update(r.t.freeze()))
    r = created()
    r.state_set("CREATE", "FAILED", "x")
    with pytest.raises(exception.UpdateReplace):
        run(r.update(r.t.freeze()))
    r = created()
    run(r.delete())
    with pytest.raises(exception.UpdateReplace):
        run(r.update(r.t.freeze()))


def test_update_while_in_progress_is_refused():
    r = created()
    r.state_set("UPDATE", "IN_PROGRESS")
    with pytest.raises(exception.ResourceFailure, match="Resource update already requested"):
        run(r.update(r.t.freeze(properties={"name": "b", "image": "deb"})))


def test_type_change_replaces():
    r = created()
    with pytest.raises(exception.UpdateReplace):
        run(r.update(ResourceDefinition("web", "Other::Type", properties=r.t.properties)))


def test_external_id_cannot_change():
    r = created()
    with pytest.raises(exception.ResourceFailure, match="Update to property external_id of web"):
        run(r.update(r.t.freeze(external_id="srv-9")))
    assert r.context.events == []


def test_explicit_before_definition():
    r = created()
    before = r.t.freeze(properties={"name": "old", "image": "deb"})
    run(r.update(r.t, before=before))
    assert r.received[0][2] == {"name": "a"}


def test_resolver_values_are_compared_resolved():
    class Ref:
        def __init__(self, value):
            self.value = value

    def resolver(raw):
        return raw.value if isinstance(raw, Ref) else raw

    ctx, _ = make_context()
    defn = ResourceDefinition("web", "T", properties={"name": Ref("a"), "image": "deb"})
    r = Recording("web", defn, ctx, resolver=resolver)
    run(r.create())
    r.received = []
    run(r.update(defn.freeze(properties={"name": Ref("a"), "image": "deb"})))
    assert r.received == []  # new function object, same value: no change
    run(r.update(defn.freeze(properties={"name": Ref("b"), "image": "deb"})))
    assert r.received[0][2] == {"name": "b"}


names = st.sampled_from(["a", "b", "c"])


@settings(max_examples=60, deadline=None)
@given(
    before=st.fixed_dictionaries({}, optional={"name": names, "tags": st.lists(names, max_size=2)}),
    after=st.fixed_dictionaries({}, optional={"name": names, "tags": st.lists(names, max_size=2)}),
)
def test_prop_diff_is_exactly_the_changed_properties(before, after):
    r = created(props={**before, "image": "deb"})
    run(r.update(r.t.freeze(properties={**after, "image": "deb"})))
    # neither has a default: unset is a state of its own, as Heat's None is ("" or [] set
    # explicitly is a change from unset, in either direction)
    unset = object()
    expected = {}
    for key in ("name", "tags"):
        old, new = before.get(key, unset), after.get(key, unset)
        if old != new:
            expected[key] = after.get(key)
    if expected:
        assert r.received[0][2] == expected
        assert r.state == "UPDATE_COMPLETE"
    else:
        assert r.received == []
