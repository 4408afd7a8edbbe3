"""``LifecyclePluginConformance``: the engine's lifecycle contract checked for one plug-in.

::

    class TestRackAffinity(sdk.testing.LifecyclePluginConformance):
        plugin_class = RackAffinity                # or plugin_factory = lambda: RackAffinity(...)
        template = {...}                           # optional: the stack the actions run on
        tags = ("spread=2",)                       # optional: the stack's tags
        vetoes = ("CREATE",)                       # optional: actions it must refuse here

Each ``test_*`` method runs in fresh in-memory worlds with strict lifecycle
checking on, so a plug-in that changes the stack it is shown fails with the
field it changed. The checks: ``get_ordinal`` returns an int; the three
methods take the engine's arguments; every action of the template's life
(create, update, check, suspend, resume, snapshot, delete) passes through it
unchanged or is refused exactly when ``vetoes`` says so; its post-op copes
with ``is_stack_failure=True`` (after another plug-in's veto and after a
resource failure); and the events it causes are the same on every run.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from sdk.lifecycle_plugin import LifecyclePlugin
from sdk.testing._conformance_support import ConformanceDeclarationError

__all__ = ["LifecyclePluginConformance"]

_TRIVIAL = "Plugsim::Test::Trivial"
_DEFAULT_TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "a": {"type": _TRIVIAL, "properties": {"value": "one", "delay": 2}},
        "b": {"type": _TRIVIAL, "properties": {"value": {"get_resource": "a"}, "delay": 2}},
    },
}
#: The engine's call signatures: parameter names and defaults after ``self``.
SIGNATURES: dict[str, list[tuple[str, Any]]] = {
    "do_pre_op": [
        ("context", inspect.Parameter.empty),
        ("stack", inspect.Parameter.empty),
        ("current_stack", None),
        ("action", None),
    ],
    "do_post_op": [
        ("context", inspect.Parameter.empty),
        ("stack", inspect.Parameter.empty),
        ("current_stack", None),
        ("action", None),
        ("is_stack_failure", False),
    ],
    "get_ordinal": [],
}
_NAME = "plugin-under-test"
#: Names the first parameter (the request context) may have: plugsim's and Heat's.
CONTEXT_NAMES = ("context", "cnxt")


class _Vetoer(LifecyclePlugin):
    """Refuses CREATE, after every other plug-in."""

    def do_pre_op(
        self, context: Any, stack: Any, current_stack: Any = None, action: str | None = None
    ) -> None:
        if action == "CREATE":
            raise RuntimeError("conformance veto")

    def get_ordinal(self) -> int:
        return 2**62


def signature_problems(cls: type) -> list[str]:
    """Describe every method of *cls* whose parameters differ from the engine's call."""
    problems = []
    for method, expected in SIGNATURES.items():
        fn = getattr(cls, method, None)
        if not callable(fn):
            problems.append(f"{method} is missing")
            continue
        params = list(inspect.signature(fn).parameters.values())[1:]
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
            continue  # *args/**kwargs accept whatever the engine passes
        got = [(p.name, p.default) for p in params]
        if got and got[0][0] in CONTEXT_NAMES:
            got[0] = ("context", got[0][1])  # passed by position: Heat's cnxt fits too
        if got != expected:
            want = ", ".join(
                n if d is inspect.Parameter.empty else f"{n}={d!r}" for n, d in expected
            )
            problems.append(f"{method} must take (self, {want})")
    return problems


class LifecyclePluginConformance:
    """Base class of a lifecycle plug-in's conformance tests (see the module docstring)."""

    plugin_class: ClassVar[type | None] = None
    plugin_factory: ClassVar[Callable[[], Any] | None] = None
    template: ClassVar[Mapping[str, Any] | None] = None
    tags: ClassVar[Sequence[str]] = ()
    vetoes: ClassVar[Sequence[str]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.plugin_class is None and cls.plugin_factory is None:
            raise ConformanceDeclarationError(
                f"{cls.__qualname__}: set plugin_class (or plugin_factory) to the plug-in under test"
            )
        unknown = sorted(set(cls.vetoes) - set(cls.life()))
        if unknown:
            raise ConformanceDeclarationError(
                f"{cls.__qualname__}: vetoes names {unknown[0]!r}, not one of {', '.join(cls.life())}"
            )

    # -- helpers (not collected: no test_ prefix) -------------------------------------

    @classmethod
    def life(cls) -> list[str]:
        """The actions the life test runs, in order."""
        return ["CREATE", "UPDATE", "CHECK", "SUSPEND", "RESUME", "SNAPSHOT", "DELETE"]

    @classmethod
    def make_plugin(cls) -> Any:
        """A new instance of the plug-in under test."""
        factory = cls.plugin_factory
        if factory is not None:
            return factory()
        assert cls.plugin_class is not None
        return cls.plugin_class()

    @classmethod
    def world(cls, *extra: Any) -> Any:
        """A fresh strict in-memory world with the plug-in registered as ``plugin-under-test``."""
        from simulator.world import World

        world = World(seed=7, strict_lifecycle=True)
        world.lifecycle.register(cls.make_plugin(), _NAME)
        for i, plugin in enumerate(extra):
            world.lifecycle.register(plugin, f"zz-conformance-{i}")
        return world

    @classmethod
    def stack_template(cls) -> dict[str, Any]:
        """The template the actions run on."""
        return dict(cls.template or _DEFAULT_TEMPLATE)

    @staticmethod
    def plugin_events(world: Any, stack: str = "s") -> list[tuple[str, str, str]]:
        """(ACTION_STATUS, reason, time) of the plug-in's events for *stack*."""
        return [
            (e.state, e.reason, f"{e.time:.3f}")
            for e in world.stack_events(stack)
            if e.resource_name == _NAME
        ]

    @classmethod
    def run_life(cls, world: Any) -> list[tuple[str, str, str]]:
        """Run every action of :meth:`life`; return (action, state, reason) per action."""
        out = []
        template = cls.stack_template()
        verbs = {
            "UPDATE": lambda: world.update_stack("s", template),
            "CHECK": lambda: world.check_stack("s"),
            "SUSPEND": lambda: world.suspend_stack("s"),
            "RESUME": lambda: world.resume_stack("s"),
            "SNAPSHOT": lambda: world.snapshot_stack("s", "conformance"),
            "DELETE": lambda: world.delete_stack("s"),
        }
        stack = world.create_stack("s", template, tags=list(cls.tags))
        out.append(("CREATE", stack.state, stack.status_reason))
        for action in cls.life()[1:]:
            if stack.status == "FAILED" and stack.action == "CREATE":
                break
            verbs[action]()
            stack = world.get_stack("s", deleted_ok=True)
            out.append((action, stack.state, stack.status_reason))
        return out

    # -- the checks --------------------------------------------------------------------

    def test_get_ordinal_returns_an_int(self) -> None:
        """The engine refuses a plug-in whose ordinal is not an int."""
        value = self.make_plugin().get_ordinal()
        assert isinstance(value, int) and not isinstance(value, bool), (
            f"get_ordinal() returned {value!r}; it must return an int"
        )

    def test_methods_take_the_engine_arguments(self) -> None:
        """do_pre_op, do_post_op and get_ordinal accept what the engine passes."""
        problems = signature_problems(type(self.make_plugin()))
        assert not problems, "; ".join(problems)

    def test_life_passes_unchanged_or_is_vetoed_as_declared(self) -> None:
        """Each action completes, or fails with a plug-in veto exactly when declared."""
        world = self.world()
        try:
            results = self.run_life(world)
            events = {s for s, _, _ in self.plugin_events(world)}
        finally:
            world.close()
        for action, state, reason in results:
            vetoed = f"{action}_PRE_OP_FAILED" in events
            if action in self.vetoes:
                assert vetoed and state == f"{action}_FAILED", (
                    f"{action} was declared vetoed but ended {state}: {reason}"
                )
            else:
                assert state == f"{action}_COMPLETE", f"{action} ended {state}: {reason}"

    def test_post_op_undoes_after_a_later_veto(self) -> None:
        """A veto by a later plug-in reaches this one's post-op, which must not raise."""
        world = self.world(_Vetoer())
        try:
            stack = world.create_stack("s", self.stack_template(), tags=list(self.tags))
            states = [s for s, _, _ in self.plugin_events(world)]
        finally:
            world.close()
        assert stack.state == "CREATE_FAILED"
        if "CREATE" in self.vetoes:
            return
        assert states == ["CREATE_PRE_OP_COMPLETE", "CREATE_POST_OP_COMPLETE"], states

    def test_post_op_copes_with_a_resource_failure(self) -> None:
        """After a failed create the post-op runs with is_stack_failure=True and succeeds.

        A plug-in written against Heat is called as Heat 27 calls it: without
        ``is_stack_failure`` (it reads its default).
        """
        from simulator.heat_compat.lifecycle import LifecyclePlugin as HeatLifecyclePlugin

        heat = isinstance(self.make_plugin(), HeatLifecyclePlugin)
        flag = "is_stack_failure not passed" if heat else "is_stack_failure=True"
        template = self.stack_template()
        template["resources"] = {
            **template["resources"],
            "zz_conformance_failure": {"type": "Plugsim::Test::Fail"},
        }
        world = self.world()
        try:
            world.create_stack("s", template, tags=list(self.tags))
            events = self.plugin_events(world)
        finally:
            world.close()
        if "CREATE" in self.vetoes:
            return
        assert events[-1][:2] == ("CREATE_POST_OP_COMPLETE", flag), events

    def test_events_are_deterministic(self) -> None:
        """Two runs of the same life record the same plug-in events at the same times."""
        runs = []
        for _ in range(2):
            world = self.world()
            try:
                self.run_life(world)
                runs.append(self.plugin_events(world))
            finally:
                world.close()
        assert runs[0] == runs[1]
