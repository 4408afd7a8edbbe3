"""``ResourceConformance``: one class declaration, every lifecycle path of a plug-in tested.

::

    class TestMyServer(sdk.testing.ResourceConformance):
        resource_class = MyServer                 # or resource_type = "My::Server"
        valid_properties = {"image": "cirros"}
        update_in_place = {"name": "renamed"}     # optional: changes handle_update applies
        update_replace = {"flavor": "m1.tiny"}    # optional: changes that replace
        immutable_update = {"key_name": "k2"}     # optional: a change that must fail
        expected_attributes = {"status": "ACTIVE"}  # optional: value or predicate
        cloud_states = {"suspend": "SUSPENDED", "resume": "ACTIVE"}  # optional
        survives = ("throttle", "conflict", "eventual_consistency", "drift")  # optional
        companions = {"net": {"type": "OS::Neutron::Net"}}  # optional: resources it needs
        companion_types = {"Example::Net": ExampleNet}  # optional: their types, if not installed

Each ``test_*`` method runs one path in fresh seeded worlds (no faults but
the ones it injects), skips with a reason when the plug-in does not declare
the path, and ends by asserting that no fake-cloud entity leaked and that
every resource moved along legal transitions only. A subclass missing a
required attribute fails at import (so collection fails) naming it.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import pytest

from sdk import exception
from sdk.resource import Resource
from sdk.testing import oracles
from sdk.testing._conformance_support import (
    ConformanceDeclarationError,
    Spy,
    check_clean,
    declared,
    expect_physical_id,
    expect_ready,
    expect_state,
    fail_rule,
    numbered_calls,
    resolve_type,
    swallowed,
    validate_declaration,
)
from sdk.testing.drift import DriftConformance
from sdk.testing.harness import PlugsimEnv, ResourceHarness
from sdk.testing.oracle_conformance import OracleConformance
from sdk.testing.schema_conformance import SchemaConformance
from sdk.testing.upgrade import UpgradeConformance

__all__ = ["ConformanceDeclarationError", "ResourceConformance", "conformance_test_names"]


class ResourceConformance(
    SchemaConformance, UpgradeConformance, DriftConformance, OracleConformance
):
    """Base class of a resource plug-in's conformance tests (see the module docstring)."""

    #: Mark an intermediate base class as abstract (its attributes are not checked).
    conformance_abstract: ClassVar[bool] = True
    resource_class: ClassVar[type[Resource] | None] = None
    resource_type: ClassVar[str | None] = None
    valid_properties: ClassVar[Mapping[str, Any] | None] = None
    update_in_place: ClassVar[Mapping[str, Any] | None] = None
    update_replace: ClassVar[Mapping[str, Any] | None] = None
    immutable_update: ClassVar[Mapping[str, Any] | None] = None
    expected_attributes: ClassVar[Mapping[str, Any] | None] = None
    cloud_states: ClassVar[Mapping[str, str]] = {}
    survives: ClassVar[Sequence[str] | None] = None
    #: Resources made in the same stack before the one under test (its
    #: properties may name them with ``get_resource``): ``{name: snippet}``.
    companions: ClassVar[Mapping[str, Any] | None] = None
    #: Types the companions use that no installed plug-in registers (``{type: class}``), such as
    #: the other types of the plug-in's own module; registered in every test world.
    companion_types: ClassVar[Mapping[str, type] | None] = None
    #: ``(property, value)`` pairs the kit made up from the schema rather than was given (set by
    #: ``plugsim conformance`` without ``--properties`` / ``--updates``): a verdict whose cause
    #: is the cloud refusing what the resource then had says so, and how to give real values.
    made_up: ClassVar[tuple[tuple[str, Any], ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("conformance_abstract", False):
            return
        cls.conformance_abstract = False
        validate_declaration(cls)

    # -- helpers (not collected: no test_ prefix) ---------------------------------

    @classmethod
    def plugin(cls) -> type[Resource]:
        """The plug-in class under test."""
        if cls.resource_class is not None:
            return cls.resource_class
        return resolve_type(str(cls.resource_type))

    @classmethod
    def type_name(cls) -> str:
        """The type name the plug-in is registered under in the test worlds."""
        return cls.resource_type or f"Conformance::{cls.plugin().__name__}"

    def _harness(
        self,
        env: PlugsimEnv,
        *,
        faults: Any = None,
        seed: int | None = None,
        plugin: type[Resource] | None = None,
        properties: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> ResourceHarness:
        world = env.new_world(faults=faults, seed=seed if seed is not None else env.seed)
        for type_name, cls in sorted((self.companion_types or {}).items()):
            world.add_type(type_name, cls)
        if self.companions:
            kwargs.setdefault("companions", dict(self.companions))
        h = env.harness(
            plugin or self.plugin(),
            dict((self.valid_properties or {}) if properties is None else properties),
            world=world,
            type_name=self.type_name(),
            **kwargs,
        )
        h.made_up = self.made_up
        return h

    def _skip_unless(self, method: str, why: str = "") -> None:
        if not declared(self.plugin(), method):
            pytest.skip(f"{self.plugin().__name__} does not implement {method}{why}")

    @staticmethod
    def _clean(*harnesses: ResourceHarness) -> None:
        """Assert legal transitions and no leaked entities in the worlds of *harnesses*."""
        __tracebackhide__ = True
        check_clean(*harnesses)

    def _created(self, env: PlugsimEnv, **kwargs: Any) -> ResourceHarness:
        __tracebackhide__ = True
        h = self._harness(env, **kwargs).create()
        expect_state(h, "CREATE_COMPLETE")
        expect_ready(h, self.plugin())
        return h

    @staticmethod
    def _delete_all(h: ResourceHarness) -> None:
        __tracebackhide__ = True
        h.delete()
        expect_state(h, "DELETE_COMPLETE")

    # -- create and delete --------------------------------------------------------

    def test_create(self, plugsim_env: PlugsimEnv) -> None:
        """Create completes, sets a physical id, then delete leaves nothing behind."""
        h = self._created(plugsim_env)
        assert h.resource.state == "CREATE_COMPLETE"
        expect_physical_id(h, self.plugin())
        self._delete_all(h)
        self._clean(h)

    def test_create_fails_at_each_cloud_call(self, plugsim_env: PlugsimEnv) -> None:
        """Each fake-cloud call of a create failing in turn: CREATE_FAILED, then clean delete."""
        clean = self._created(plugsim_env)
        calls = numbered_calls(clean.world.cloud.trace())
        if not calls:
            pytest.skip(f"{self.plugin().__name__} makes no fake-cloud call during create")
        for number, (service, operation, nth) in enumerate(calls, 1):
            label = f"call {number} ({service}.{operation} #{nth})"
            h = self._harness(plugsim_env, faults=[fail_rule(service, operation, nth, label)])
            try:
                h.create()
            except exception.StackValidationFailed as ex:
                # A call made while validating the template (a custom constraint's
                # lookup): the create is refused before anything is made.
                assert f"injected failure of {label}" in str(ex), str(ex)
                self._clean(h)
                h.world.close()
                continue
            if h.state != "CREATE_FAILED":
                swallowed(h, label)
            assert f"injected failure of {label}" in h.status_reason, h.status_reason
            self._delete_all(h)
            self._clean(h)
            h.world.close()
        self._delete_all(clean)
        self._clean(clean)

    def test_create_with_rollback(self, plugsim_env: PlugsimEnv) -> None:
        """A create failing at its last call rolls back: nothing left in the cloud."""
        clean = self._created(plugsim_env)
        trace = clean.world.cloud.trace()
        calls = numbered_calls(trace)
        if not calls:
            pytest.skip(f"{self.plugin().__name__} makes no fake-cloud call during create")
        # the resource's own last call: the companions made before it (a wait
        # condition's handle) call the cloud too, and a failure of theirs means the
        # resource under test never starts
        begun = [
            e.time
            for e in clean.events
            if e.resource_name == clean.resource_name and e.action == "CREATE"
        ]
        if begun and all(t.time < begun[0] for t in trace):
            pytest.skip(
                f"{self.plugin().__name__} makes no fake-cloud call of its own during create"
            )
        service, operation, nth = calls[-1]
        h = self._harness(
            plugsim_env,
            faults=[fail_rule(service, operation, nth, "the last create call")],
            disable_rollback=False,
        ).create()
        expect_state(h, "ROLLBACK_COMPLETE")
        assert h.resource.state == "DELETE_COMPLETE"
        self._delete_all(clean)
        self._clean(clean, h)

    def test_delete_when_already_gone(self, plugsim_env: PlugsimEnv) -> None:
        """Deleting after the physical resource vanished completes (not-found ignored)."""
        h = self._created(plugsim_env)
        item = h.cloud_entity()
        if item is None:
            pytest.skip("the physical id matches no fake-cloud entity")
        try:
            h.world.delete_entity(item)
        except exception.Conflict as ex:
            # the cloud keeps what is in use (a network gateway with networks
            # connected): nobody can delete it behind the plug-in's back
            pytest.skip(f"the cloud refuses to delete {item.kind} {item.id}: {ex}")
        self._delete_all(h)
        self._clean(h)

    def test_delete_twice(self, plugsim_env: PlugsimEnv) -> None:
        """A second delete of a deleted resource is a no-op (no event, no error)."""
        h = self._created(plugsim_env)
        res = h.resource
        self._delete_all(h)
        mark = h.world.store.last_event_id()
        h.world.run_blocking(res.delete, action="DELETE")
        assert res.state == "DELETE_COMPLETE"
        assert [e for e in h.world.store.events() if e.id > mark] == []
        self._clean(h)

    # -- update -------------------------------------------------------------------

    def _need(self, attr: str) -> Mapping[str, Any]:
        value = getattr(self, attr)
        if value is None:
            pytest.skip(f"no {attr} declared for {self.plugin().__name__}")
        return value

    def _props_with(self, change: Mapping[str, Any]) -> dict[str, Any]:
        return {**dict(self.valid_properties or {}), **dict(change)}

    def test_update_in_place(self, plugsim_env: PlugsimEnv) -> None:
        """handle_update gets exactly the changed properties; the physical id stays."""
        change = self._need("update_in_place")
        self._skip_unless("handle_update")
        h = self._created(plugsim_env)
        before = dict(self.valid_properties or {})
        res = h.resource
        h.world.settle()
        entity = oracles.entity(h.world, h.physical_id)
        spy = Spy(h.resource.handle_update)
        h.resource.handle_update = spy
        h.update(self._props_with(change))
        expect_state(h, "UPDATE_COMPLETE")
        h.world.settle()
        problems = oracles.in_place(h.world, self.plugin(), change, entity, h.physical_id)
        assert problems == [], "\n".join(problems)
        # the same resource (its handle_update may still set a new physical id, as
        # Heat's VolumeAttachment re-attaching does)
        assert h.resource is res, "an in-place update replaced the resource"
        assert len(spy.calls) == 1, f"handle_update was called {len(spy.calls)} times"
        prop_diff = spy.calls[0][2]
        changed = sorted(k for k, v in change.items() if before.get(k) != v)
        assert sorted(prop_diff) == changed
        for key in changed:
            assert prop_diff[key] == h.resource.properties[key], key
        self._delete_all(h)
        self._clean(h)

    def test_update_replace(self, plugsim_env: PlugsimEnv) -> None:
        """A replacing update makes a new physical resource, then deletes the old one."""
        change = self._need("update_replace")
        h = self._created(plugsim_env)
        old_id, old = h.physical_id, h.resource
        mark = h.world.store.last_event_id()
        h.update(self._props_with(change))
        expect_state(h, "UPDATE_COMPLETE")
        assert h.resource is not old, "a replacing update kept the resource"
        if old_id is None:  # a type without a physical id (Heat's AccessPolicy): no more to see
            self._delete_all(h)
            self._clean(h)
            return
        new_id = h.physical_id
        assert new_id != old_id, "a replacing update kept the physical id"
        order = [
            (e.state, e.physical_resource_id)
            for e in h.world.store.events()
            if e.id > mark and not e.is_stack_event
        ]
        created = order.index(("CREATE_COMPLETE", str(new_id)))
        deleted = order.index(("DELETE_COMPLETE", str(old_id)))
        assert created < deleted, "the old resource was deleted before the new one was created"
        h.world.settle()
        if h.world.entity(new_id) is not None:
            assert h.world.entity(old_id) is None, "the replaced physical resource still exists"
        self._delete_all(h)
        self._clean(h)

    def test_immutable_change_fails(self, plugsim_env: PlugsimEnv) -> None:
        """Changing an immutable property: UPDATE_FAILED naming it, nothing changed."""
        change = self._need("immutable_update")
        h = self._created(plugsim_env)
        old_id, item = h.physical_id, h.cloud_entity()
        calls = len(h.world.cloud.trace())
        h.update(self._props_with(change))
        assert h.state == "UPDATE_FAILED"
        assert h.resource.state == "UPDATE_FAILED"
        for key in change:
            assert key in h.resource.status_reason, h.resource.status_reason
        assert h.physical_id == old_id
        assert h.cloud_entity() == item
        mutating = [
            f"{t.service}.{t.operation}"
            for t in h.world.cloud.trace()[calls:]
            if not t.operation.endswith((".get", ".list"))
        ]
        assert mutating == [], f"a refused update still called {mutating}"
        self._delete_all(h)
        self._clean(h)

    def test_update_failure_rolls_back(self, plugsim_env: PlugsimEnv) -> None:
        """An in-place update failing at its first mutating cloud call rolls back to the old state."""
        change = self._need("update_in_place")
        probe = self._created(plugsim_env)
        start = len(probe.world.cloud.trace())
        probe.update(self._props_with(change))
        trace = probe.world.cloud.trace()
        if len(trace) == start:
            pytest.skip("the in-place update makes no fake-cloud call, so it cannot fail there")
        # The first call that changes something: reads before it may be the template
        # validation's lookups, whose failure refuses the update instead of failing it.
        index = next(
            (
                i
                for i in range(start, len(trace))
                if not trace[i].operation.endswith((".get", ".list"))
            ),
            None,
        )
        if index is None:
            # only reads: the first is a validation lookup of the new template (a
            # companion's image), whose failure refuses the update instead of failing it
            pytest.skip(
                "the in-place update only reads from the fake cloud, so it cannot fail there"
            )
        first = trace[index]
        nth = sum(
            1
            for t in trace[: index + 1]
            if (t.service, t.operation) == (first.service, first.operation)
        )
        h = self._harness(
            plugsim_env,
            faults=[fail_rule(first.service, first.operation, nth, "the first update call")],
        ).create()
        old = {k: h.resource.properties[k] for k in change}
        h.update(self._props_with(change), disable_rollback=False)
        expect_state(h, "ROLLBACK_COMPLETE")
        assert h.resource.state.status == "COMPLETE", h.resource.status_reason
        assert {k: h.resource.properties[k] for k in change} == old
        self._delete_all(probe)
        self._delete_all(h)
        self._clean(probe, h)

    # -- suspend, snapshot, policies, check, adopt ------------------------------------

    def test_suspend_resume(self, plugsim_env: PlugsimEnv) -> None:
        """Suspend then resume: resource states and the cloud entity's status."""
        self._skip_unless("handle_suspend")
        h = self._created(plugsim_env)
        h.suspend()
        expect_state(h, "SUSPEND_COMPLETE")
        assert h.resource.state == "SUSPEND_COMPLETE"
        if "suspend" in self.cloud_states:
            assert h.cloud_entity().status == self.cloud_states["suspend"]
        h.resume()
        expect_state(h, "RESUME_COMPLETE")
        assert h.resource.state == "RESUME_COMPLETE"
        if "resume" in self.cloud_states:
            assert h.cloud_entity().status == self.cloud_states["resume"]
        self._delete_all(h)
        self._clean(h)

    def test_snapshot_restore(self, plugsim_env: PlugsimEnv) -> None:
        """Snapshot, restore, delete the snapshot: complete, one cloud object, no leak.

        The restore keeps the cloud object, or replaces it when the definition its
        ``handle_restore`` gives changes a property that cannot change in place (a server
        booting the snapshot's image when its image is not updatable, as Heat's server under
        ``image_update_policy: REPLACE``): then the old object must be gone.
        """
        self._skip_unless("handle_snapshot")
        h = self._created(plugsim_env)
        old_id = h.physical_id
        snap = h.snapshot("conformance")
        assert snap.status == "COMPLETE", snap.reason
        assert h.resource.state == "SNAPSHOT_COMPLETE"
        h.restore(snap)
        expect_state(h, "RESTORE_COMPLETE")
        if h.physical_id != old_id:
            h.world.settle()
            assert h.world.entity(old_id) is None, (
                f"the restore replaced {old_id} with {h.physical_id} and left the old one"
            )
        h.world.run_blocking(lambda: h.world.adelete_snapshot(h.name, snap.id))
        self._delete_all(h)
        self._clean(h)

    def test_deletion_policy_snapshot(self, plugsim_env: PlugsimEnv) -> None:
        """Deletion policy Snapshot: the resource goes, what the snapshot made may stay."""
        self._skip_unless("handle_snapshot_delete")
        h = self._created(plugsim_env, deletion_policy="Snapshot")
        old_id = h.physical_id
        before = {i.key for i in h.world.cloud.inventory()}
        self._delete_all(h)
        h.world.settle()
        assert h.world.entity(old_id) is None, "deletion policy Snapshot left the resource"
        for item in h.world.cloud.inventory():
            if item.key not in before and not item.preseeded:
                h.world.delete_entity(item)  # the snapshot itself is meant to stay
        self._clean(h)

    def test_deletion_policy_retain(self, plugsim_env: PlugsimEnv) -> None:
        """Deletion policy Retain: DELETE_COMPLETE and the physical resource stays.

        The companions are retained too: the kept resource may still use them (a
        firewall its policy, a trunk its port), and a cloud refuses to delete what is
        in use, under Heat as here. Nothing that existed after the create counts as a
        leak (what the kept resources made stays with them: a deployment's derived
        config, a stack user); anything new does.
        """
        kept = {
            name: {**body, "deletion_policy": "Retain"}
            for name, body in (self.companions or {}).items()
        }
        h = self._created(plugsim_env, deletion_policy="Retain", companions=kept)
        item = h.cloud_entity()
        others = {str(r.resource_id) for n, r in h.stack.resources.items() if n != h.resource_name}
        if item is not None and item.id in others:
            item = None  # its physical id is a companion's (a route set's router), which goes
        # What the kept resources made besides their own object stays too (Heat runs no
        # delete handler for them): a deployment's derived config, a stack user.
        retained = {i.key for i in h.world.cloud.inventory() if not i.preseeded}
        self._delete_all(h)
        h.world.settle()
        if item is not None:
            assert h.world.entity(item.id) is not None, "Retain deleted the physical resource"
        assert h.world.transitions.violations == [], "; ".join(h.world.transitions.violations)
        leaked = [i for i in h.world.leaked() if i.key not in retained]
        assert leaked == [], "leaked fake-cloud entities: " + ", ".join(
            f"{i.service}/{i.kind} {i.id} ({i.status})" for i in leaked
        )

    def test_check(self, plugsim_env: PlugsimEnv) -> None:
        """Check completes while the resource exists and fails once it is gone."""
        self._skip_unless("handle_check")
        h = self._created(plugsim_env)
        h.check()
        expect_state(h, "CHECK_COMPLETE")
        item = h.cloud_entity()
        if item is not None:
            h.world.delete_entity(item)
            h.check()
            assert h.state == "CHECK_FAILED"
            assert h.resource.state == "CHECK_FAILED"
        self._delete_all(h)
        self._clean(h)

    def test_abandon_adopt(self, plugsim_env: PlugsimEnv) -> None:
        """Abandon keeps the physical resource; adopting it back gives the same id."""
        h = self._created(plugsim_env)
        old_id, item = h.physical_id, h.cloud_entity()
        data = h.abandon()
        if item is not None:
            assert h.world.entity(old_id) is not None, "abandon deleted the physical resource"
        adopted = h.adopt(data)
        assert adopted.state == "ADOPT_COMPLETE", adopted.status_reason
        res = adopted.resources[h.resource_name]
        assert str(res.resource_id) == str(old_id)
        adopted.delete()
        assert adopted.state == "DELETE_COMPLETE", adopted.status_reason
        self._clean(h)

    # -- attributes, timeouts, transient faults ---------------------------------------

    def test_attributes(self, plugsim_env: PlugsimEnv) -> None:
        """Every attribute resolves after create; ``show`` matches the fake cloud."""
        h = self._created(plugsim_env)
        res = h.resource
        expected = dict(self.expected_attributes or {})
        for name in sorted(res.attributes_schema):
            value = _read_attribute(res, name)
            assert name not in res.attribute_errors, res.attribute_errors[name]
            if name in expected:
                want = expected[name]
                if callable(want):
                    assert want(value), f"attribute {name}: {value!r} rejected by {want!r}"
                else:
                    assert value == want, f"attribute {name}: {value!r} != {want!r}"
        manager = self._entity_manager(h)
        if manager is not None:
            show = res.FnGetAtt("show")
            actual = manager.get(h.physical_id)
            actual = actual if isinstance(actual, dict) else actual.to_dict()
            # a plug-in may add its own keys (Heat's servers add os-collect-config's
            # metadata, BaseServer._show_resource); the cloud's own must all agree
            shown = {k: show.get(k) for k in actual} if isinstance(show, dict) else show
            assert shown == actual, "the show attribute differs from the fake cloud's entity"
        self._delete_all(h)
        self._clean(h)

    def _entity_manager(self, h: ResourceHarness) -> Any:
        """The fake cloud's ``client.<entity>`` manager the plug-in's ``show`` reads, or None.

        None when the plug-in names no entity, or its client (a Heat plug-in's
        ``heat`` or neutronclient-style ``neutron``) has no such manager: its
        ``show`` then comes from the plug-in's own code, with nothing to compare.
        """
        plugin = self.plugin()
        if not (plugin.entity and plugin.default_client_name):
            return None
        cloud = h.world.fake_cloud("comparing the show attribute with the entity")
        try:
            client = cloud.client(plugin.default_client_name)
        except exception.ConfigurationError:
            return None
        manager = getattr(client, plugin.entity, None)
        return manager if callable(getattr(manager, "get", None)) else None

    def test_timeout_cancels_create(self, plugsim_env: PlugsimEnv) -> None:
        """A stack timeout in the middle of create runs the cancel handler; nothing leaks."""
        self._skip_unless("handle_create_cancel")
        probe = self._created(plugsim_env)
        times = [
            e.time
            for e in probe.events
            if e.resource_name == probe.resource_name and e.action == "CREATE"
        ]
        duration = times[-1] - times[0]
        if duration <= 0:
            pytest.skip("create takes no virtual time, so a timeout cannot interrupt it")
        # The stack's timeout counts from the stack's start: the companions made
        # before the resource (a server a deployment runs on) take their time first.
        begun = min((e.time for e in probe.events), default=times[0])
        limit = (times[0] - begun) + duration / 2
        calls: list[Any] = []
        base = self.plugin()

        original = getattr(base, "handle_create_cancel", None)
        assert callable(original)

        def cancel(resource: Any, *args: Any) -> Any:
            calls.append(args)
            return original(resource, *args)

        spy_class = type(base.__name__, (base,), {"handle_create_cancel": cancel})
        h = self._harness(plugsim_env, plugin=spy_class, timeout_mins=limit / 60)
        h.create()
        assert h.state == "CREATE_FAILED"
        assert h.status_reason == "Create timed out"
        assert len(calls) == 1, "the cancel handler did not run exactly once"
        self._delete_all(h)
        self._delete_all(probe)
        self._clean(h, probe)

    def _transient(self, env: PlugsimEnv, kind: str, effect: Any) -> None:
        declared = self.survives
        if declared is None:
            declared = ("throttle", "conflict") if self.plugin().action_retry_limit > 0 else ()
        if kind not in declared:
            pytest.skip(f"{self.plugin().__name__} does not claim to survive {kind}")
        probe = self._created(env)
        trace = probe.world.cloud.trace()
        if not trace:
            pytest.skip(f"{self.plugin().__name__} makes no fake-cloud call during create")
        # The call that makes the object, else the first that writes (Heat's quotas are
        # an update): never a read made first by validation (a custom constraint's
        # lookup), whose failure refuses the template under Heat too.
        writes = [t for t in trace if not t.operation.endswith((".get", ".list"))]
        target = next((t for t in writes if t.operation.endswith(".create")), None)
        target = target or (writes[0] if writes else trace[0])
        rule = {
            "name": f"transient-{kind}",
            "service": target.service,
            "operation": target.operation,
            "times": 1,
            "effect": effect,
        }
        h = self._harness(env, faults=[rule]).create()
        assert h.state == "CREATE_COMPLETE", f"{kind} was not survived: {h.status_reason}"
        assert [f.rule_name for f in h.world.cloud.injected_faults()] == [f"transient-{kind}"]
        self._delete_all(h)
        self._delete_all(probe)
        self._clean(h, probe)

    def test_survives_throttling(self, plugsim_env: PlugsimEnv) -> None:
        """A 429 with retry-after on the create call is retried to success."""
        self._transient(plugsim_env, "throttle", {"type": "error", "status": 429, "retry_after": 3})

    def test_survives_conflict(self, plugsim_env: PlugsimEnv) -> None:
        """A 409 conflict on the create call is retried to success."""
        self._transient(plugsim_env, "conflict", {"type": "error", "status": 409})

    def test_survives_eventual_consistency(self, plugsim_env: PlugsimEnv) -> None:
        """A created entity invisible for a while does not fail the create."""
        self._transient(
            plugsim_env,
            "eventual_consistency",
            {"type": "eventual_consistency", "lag": {"dist": "uniform", "low": 5, "high": 10}},
        )


def _read_attribute(res: Resource, name: str) -> Any:
    """Attribute *name* of *res*, read with a path when the plug-in needs one.

    Heat's groups refuse a path-less read of an attribute that only makes sense
    per member (``ResourceGroup``'s ``attributes``, ``AutoScalingGroup``'s
    ``outputs``: ``InvalidTemplateAttribute`` naming that very attribute). Such
    an attribute is read as a template would read it, with a member attribute
    every resource has (``show``) as its path; a refusal with that path too
    stands.
    """
    try:
        return res.FnGetAtt(name)
    except exception.InvalidTemplateAttribute as ex:
        if f" {name})" not in str(ex):
            raise
        return res.FnGetAtt(name, Resource.SHOW)


def conformance_test_names() -> list[str]:
    """The names of every generated conformance test, in definition order."""
    return [
        name
        for name, _ in inspect.getmembers(ResourceConformance, inspect.isfunction)
        if name.startswith("test_")
    ]
