"""Rules on stack lifecycle plug-in classes (PS7xx): ordinal and method signatures.

A lifecycle class is one deriving, directly or through classes of the same
module, from a class named ``...LifecyclePlugin``. The engine calls
``do_pre_op(context, stack, current_stack=None, action=None)``,
``do_post_op(context, stack, current_stack=None, action=None,
is_stack_failure=False)`` and ``get_ordinal()`` synchronously; these rules
catch at lint time what the engine would refuse (or trip over) at run time.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import partial

from sdk.lint.registry import Hit, Severity, rule
from sdk.lint.source import ClassInfo, PluginModule, dotted_name

#: Parameter names and whether each has a default, after ``self``, per method.
EXPECTED: dict[str, list[tuple[str, str | None]]] = {
    "do_pre_op": [
        ("context", None),
        ("stack", None),
        ("current_stack", "None"),
        ("action", "None"),
    ],
    "do_post_op": [
        ("context", None),
        ("stack", None),
        ("current_stack", "None"),
        ("action", "None"),
        ("is_stack_failure", "False"),
    ],
    "get_ordinal": [],
}


#: Names the first parameter (the request context) may have: plugsim's and Heat's.
CONTEXT_NAMES = ("context", "cnxt")


def lifecycle_classes(module: PluginModule) -> list[ClassInfo]:
    """Classes of *module* deriving from a ``...LifecyclePlugin`` base, in source order."""

    def derives(info: ClassInfo, seen: set[str]) -> bool:
        if info.name in seen:
            return False
        seen.add(info.name)
        for base in info.node.bases:
            name = dotted_name(base)
            if name is None:
                continue
            if name in module.classes:
                if derives(module.classes[name], seen):
                    return True
            elif name.rsplit(".", 1)[-1].endswith("LifecyclePlugin"):
                return True
        return False

    return [info for info in module.classes.values() if derives(info, set())]


def _signature(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, str | None]] | None:
    args = fn.args
    if args.vararg is not None or args.kwarg is not None:
        return None  # accepts whatever the engine passes
    params = [*args.posonlyargs, *args.args][1:]
    defaults: list[ast.expr | None] = [None] * (len(params) - len(args.defaults)) + list(
        args.defaults
    )
    out = [
        (p.arg, ast.unparse(d) if d is not None else None)
        for p, d in zip(params, defaults, strict=True)
    ]
    out += [
        (p.arg, ast.unparse(d) if d is not None else None)
        for p, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
    ]
    if out and out[0][0] in CONTEXT_NAMES:
        out[0] = ("context", out[0][1])  # passed by position: Heat's name cnxt fits too
    return out


def _render(params: list[tuple[str, str | None]]) -> str:
    return ", ".join(["self", *(n if d is None else f"{n}={d}" for n, d in params)])


@rule(
    "PS701",
    "lifecycle-ordinal-not-int",
    severity=Severity.ERROR,
    family="lifecycle",
    scope="module",
    message="{cls}.get_ordinal returns {value}, not an int",
    summary="get_ordinal must return an int.",
    doc="""
        The engine orders lifecycle plug-ins by ``get_ordinal()`` and refuses to
        start when a plug-in's ordinal is not an ``int``: a configuration error
        naming the plug-in. A string, float, bool or a missing return value is
        reported here, before the engine sees it.
    """,
    bad="""
        class Placement(LifecyclePlugin):
            def get_ordinal(self):
                return "10"
    """,
    good="""
        class Placement(LifecyclePlugin):
            def get_ordinal(self):
                return 10
    """,
)
def check_ordinal(module: PluginModule) -> Iterator[Hit]:
    """Report literal non-int return values (or none at all) of ``get_ordinal``."""
    for cls in lifecycle_classes(module):
        fn = cls.own_methods().get("get_ordinal")
        if fn is None:
            continue
        returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]
        if not returns:
            yield module.hit(fn, cls=cls.name, value="None (no return statement)")
            continue
        for ret in returns:
            value = ret.value
            if value is None:
                yield module.hit(ret, cls=cls.name, value="None")
            elif isinstance(value, ast.Constant) and (
                isinstance(value.value, bool) or not isinstance(value.value, int)
            ):
                yield module.hit(ret, cls=cls.name, value=repr(value.value))


@rule(
    "PS702",
    "lifecycle-signature",
    severity=Severity.ERROR,
    family="lifecycle",
    scope="module",
    message="{cls}.{method} must take ({expected}), not ({got})",
    summary="do_pre_op, do_post_op and get_ordinal take the engine's arguments.",
    doc="""
        The engine calls ``do_pre_op(context, stack, current_stack, action)``,
        ``do_post_op(context, stack, current_stack, action, is_stack_failure=...)``
        and ``get_ordinal()``. A method with other parameters fails at the first
        stack action (a TypeError that the engine reports as the plug-in's
        failure). ``*args``/``**kwargs`` are accepted as they take anything, and
        so is Heat's name ``cnxt`` for the context (it is passed by position).
    """,
    bad="""
        class Audit(LifecyclePlugin):
            def do_post_op(self, context, stack, action=None):
                ...
    """,
    good="""
        class Audit(LifecyclePlugin):
            def do_post_op(self, context, stack, current_stack=None, action=None,
                           is_stack_failure=False):
                ...
    """,
)
def check_signatures(module: PluginModule) -> Iterator[Hit]:
    """Compare each lifecycle method's parameters and defaults with the engine's call."""
    for cls in lifecycle_classes(module):
        for method, expected in EXPECTED.items():
            fn = cls.own_methods().get(method)
            if fn is None:
                continue
            got = _signature(fn)
            if got is not None and got != expected:
                yield module.hit(
                    fn,
                    cls=cls.name,
                    method=method,
                    expected=_render(expected),
                    got=_render(got),
                )


@rule(
    "PS703",
    "lifecycle-async-method",
    severity=Severity.ERROR,
    family="lifecycle",
    scope="module",
    message="{cls}.{method} is async; the engine calls lifecycle methods synchronously",
    summary="Lifecycle plug-in methods are plain functions.",
    doc="""
        The engine calls the lifecycle methods synchronously and treats a returned
        awaitable as the plug-in's failure: an ``async def do_pre_op`` would never
        run its body. Use a plain method; talk to the fake cloud through the
        synchronous clients of ``context.client_plugin(name)``.
    """,
    bad="""
        class License(LifecyclePlugin):
            async def do_pre_op(self, context, stack, current_stack=None, action=None):
                ...
    """,
    good="""
        class License(LifecyclePlugin):
            def do_pre_op(self, context, stack, current_stack=None, action=None):
                ...
    """,
)
def check_async(module: PluginModule) -> Iterator[Hit]:
    """Report ``async def`` lifecycle methods."""
    for cls in lifecycle_classes(module):
        for method in EXPECTED:
            fn = cls.own_methods().get(method)
            if isinstance(fn, ast.AsyncFunctionDef):
                yield module.hit(fn, cls=cls.name, method=method)


#: A small stack the mutation check drives through create, update and delete.
_PROBE_TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "parameters": {"size": {"type": "number", "default": 1}},
    "resources": {
        "probe": {"type": "OS::Heat::Value", "properties": {"value": "v1", "type": "string"}}
    },
}
_MUTATION_MARK = "(plug-ins must not change the stack)"


def _mutation_reports(plugin_class: type) -> list[str]:
    """Drive the probe stack with *plugin_class* in a strict world; return mutation reasons."""
    from simulator.world import World

    world = World(seed=0, strict_lifecycle=True, lifecycle_plugins=[plugin_class()])
    try:
        world.create_stack("lint-probe", _PROBE_TEMPLATE)
        updated = {
            **_PROBE_TEMPLATE,
            "resources": {
                "probe": {
                    "type": "OS::Heat::Value",
                    "properties": {"value": "v2", "type": "string"},
                }
            },
        }
        world.update_stack("lint-probe", updated)
        world.delete_stack("lint-probe")
        reasons = [e.reason or "" for e in world.stack_events("lint-probe")]
    finally:
        world.close()
    return sorted({r for r in reasons if _MUTATION_MARK in r})


@rule(
    "PS704",
    "lifecycle-mutates-stack",
    severity=Severity.ERROR,
    family="lifecycle",
    scope="module",
    message="{cls} changes the stack it is given: {reason}",
    summary="A lifecycle plug-in observed changing the stack it was handed.",
    doc="""
        The stack lifecycle contract says plug-ins observe and must not change the
        stack (only its status fields); the specification calls a change a bug.
        This dynamic check instantiates the plug-in class with no arguments, runs a
        small stack through create, update and delete in a world with strict
        lifecycle checking (what ``--strict-lifecycle`` and the pytest plugin do)
        and reports every change the engine detected. Skipped with
        ``--no-dynamic`` or when the class cannot be built without arguments.
    """,
    bad="""
        class Tagger(LifecyclePlugin):
            def do_pre_op(self, context, stack, current_stack=None, action=None):
                stack.parameters["owner"] = "ops"
    """,
    good="""
        class Tagger(LifecyclePlugin):
            def do_pre_op(self, context, stack, current_stack=None, action=None):
                context.warn(f"{stack.name} has no owner parameter")
    """,
)
def check_mutation(module: PluginModule) -> Iterator[Hit]:
    """Run each lifecycle class on a probe stack and report the changes strict mode caught."""
    from sdk.lint.dynamic import bounded
    from sdk.lint.dynamic_rules import ENABLED_KEY
    from sdk.lint.loading import import_file

    classes = lifecycle_classes(module)
    if not classes or not module.cache.get(ENABLED_KEY, True) or module.syntax_error is not None:
        return
    if "lifecycle_loaded" not in module.cache:
        module.cache["lifecycle_loaded"] = import_file(module.path)
    imported = module.cache["lifecycle_loaded"].module
    if imported is None:
        return  # the import failure is reported by the mapping rules
    for info in classes:
        plugin_class = getattr(imported, info.name, None)
        if not isinstance(plugin_class, type):
            continue
        try:
            plugin_class()
        except Exception:  # noqa: BLE001 - a class needing arguments cannot be probed
            continue
        try:
            reasons = bounded(partial(_mutation_reports, plugin_class), 30.0, f"{info.name} probe")
        except Exception:  # noqa: BLE001 - a class that cannot be probed (timeout, crash) is skipped
            continue
        for reason in reasons:
            yield module.hit(info.node, cls=info.name, reason=reason)
