"""Rules on salt-cloud-style cloud driver modules (PS6xx).

A Python file is a *driver module* when it is not a resource plug-in (no
resource class, no ``resource_mapping()``) and defines ``__virtual__`` or at
least two of ``create``, ``destroy`` and ``list_nodes`` at the top level.

The static rules (PS601-PS604) read the source. The dynamic ones
(PS611-PS614) run :func:`simulator.drivers.conformance.check_driver` on a fake
cloud when ``[tool.plugsim.lint.driver]`` names the providers and profiles
files, for the driver module whose ``__virtualname__`` (else its file name)
is the driver the profile's provider uses; they are off with ``--no-dynamic``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from sdk.cloud_driver import REQUIRED_FUNCTIONS
from sdk.lint.mapping_rules import is_plugin
from sdk.lint.registry import Hit, Severity, rule
from sdk.lint.source import PluginModule, literal

#: Top-level functions that mark a file as a driver (two of them, or ``__virtual__``).
DRIVER_MARKERS = ("create", "destroy", "list_nodes")
#: Required functions salt-cloud calls with ``call=...`` (the others take no ``call``).
CALLED_WITH_CALL = tuple(
    n for n in REQUIRED_FUNCTIONS if n not in ("__virtual__", "get_configured_provider", "create")
)
#: Optional functions that salt-cloud calls with ``call=...`` when a driver has them.
OPTIONAL_ENTRY_POINTS = ("avail_locations",)

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def is_driver(module: PluginModule) -> bool:
    """Whether *module* looks like a cloud driver module (see the module docstring)."""
    if module.syntax_error is not None or is_plugin(module):
        return False
    defined = set(module.functions) | _assigned(module)
    if "__virtual__" in defined:
        return True
    return sum(1 for name in DRIVER_MARKERS if name in defined) >= 2


def _assigned(module: PluginModule) -> set[str]:
    names: set[str] = set()
    for stmt in module.tree.body:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
    return names


def _params(fn: FunctionNode) -> list[ast.arg]:
    args = fn.args
    return [*args.posonlyargs, *args.args, *args.kwonlyargs]


def _call_param(fn: FunctionNode) -> tuple[ast.arg | None, ast.expr | None]:
    """The ``call`` parameter of *fn* and its default (None when it has none)."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += list(args.defaults)
    for arg, default in zip(positional, defaults, strict=True):
        if arg.arg == "call":
            return arg, default
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if arg.arg == "call":
            return arg, default
    return None, None


def entry_points(module: PluginModule) -> list[FunctionNode]:
    """The driver's functions salt-cloud calls as actions or functions, in source order.

    The required ones that take ``call`` (``destroy``, the listings,
    ``show_instance``, ``avail_*``), ``avail_locations``, and every other
    public function that has a ``call`` parameter or whose first parameter is
    ``name`` (an action) or ``kwargs`` (a function).
    """
    out = []
    for name, fn in module.functions.items():
        if name.startswith("_") or name in ("get_configured_provider", "create"):
            continue
        params = _params(fn)
        first = params[0].arg if params else None
        has_call = _call_param(fn)[0] is not None
        if (
            name in CALLED_WITH_CALL
            or name in OPTIONAL_ENTRY_POINTS
            or has_call
            or first in ("name", "kwargs")
        ):
            out.append(fn)
    return sorted(out, key=lambda f: f.lineno)


def _mentions_call(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "call" for n in ast.walk(node))


def _raises_system_exit(module: PluginModule, body: list[ast.stmt]) -> bool:
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Raise) and node.exc is not None:
                target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                name = module.qualified(target) or ""
                if name.rsplit(".", 1)[-1] == "SaltCloudSystemExit":
                    return True
    return False


def refuses_wrong_call(module: PluginModule, fn: FunctionNode) -> bool:
    """Whether *fn* raises SaltCloudSystemExit under a test of ``call``, or hands ``call`` on."""
    for node in ast.walk(fn):
        if isinstance(node, ast.If) and _mentions_call(node.test):
            if _raises_system_exit(module, node.body) or _raises_system_exit(module, node.orelse):
                return True
        if isinstance(node, ast.Call):
            passed = [*node.args, *(kw.value for kw in node.keywords)]
            if any(isinstance(a, ast.Name) and a.id == "call" for a in passed):
                return True
    return False


@rule(
    "PS601",
    "driver-function-missing",
    severity=Severity.ERROR,
    family="driver",
    scope="module",
    message="cloud driver {driver} does not define the required function(s) {functions}",
    summary="A cloud driver module lacks a function salt-cloud requires.",
    doc="""
        salt-cloud (and plugsim's driver harness) call these module functions
        by name: ``__virtual__``, ``get_configured_provider``, ``create``,
        ``destroy``, ``list_nodes``, ``list_nodes_full``,
        ``list_nodes_select``, ``show_instance``, ``avail_images`` and
        ``avail_sizes``. A driver without one of them fails the first command
        that needs it. One finding, on the first line of the file, lists them.
    """,
    bad="""
        def __virtual__():
            return "mycloud"

        def create(vm_):
            ...
    """,
    good="""
        def __virtual__():
            return "mycloud"

        def create(vm_):
            ...

        def destroy(name, call=None):
            ...

        # ... get_configured_provider, list_nodes, list_nodes_full, list_nodes_select,
        # show_instance, avail_images and avail_sizes as well
    """,
)
def check_required_functions(module: PluginModule) -> Iterator[Hit]:
    """Required driver functions that the module neither defines nor assigns."""
    if not is_driver(module):
        return
    defined = set(module.functions) | _assigned(module)
    missing = [f"{name}()" for name in REQUIRED_FUNCTIONS if name not in defined]
    if missing:
        yield module.hit(1, driver=module.path.name, functions=", ".join(missing))


@rule(
    "PS602",
    "driver-call-parameter",
    severity=Severity.ERROR,
    family="driver",
    scope="module",
    message="{function}() {problem}; salt-cloud passes call='action' or call='function'",
    summary="An action or function of a driver without a call=None parameter.",
    doc="""
        salt-cloud tells an action (``-a``) from a function (``-f``) by the
        ``call`` argument it passes; listings are called with ``call`` too.
        Every such entry point must accept ``call`` and default it to
        ``None``.
    """,
    bad="""
        def show_instance(name):
            return _node(name)

        def avail_sizes(call="function"):
            return _sizes()
    """,
    good="""
        def show_instance(name, call=None):
            if call != "action":
                raise SaltCloudSystemExit("show_instance must be called with -a or --action.")
            return _node(name)
    """,
)
def check_call_parameter(module: PluginModule) -> Iterator[Hit]:
    """Entry points without ``call`` or with a non-None default for it."""
    if not is_driver(module):
        return
    for fn in entry_points(module):
        arg, default = _call_param(fn)
        if arg is None:
            yield module.hit(fn, function=fn.name, problem="has no call parameter")
        elif default is None or not (isinstance(default, ast.Constant) and default.value is None):
            shown = "no default" if default is None else f"the default {ast.unparse(default)}"
            yield module.hit(arg, function=fn.name, problem=f"gives call {shown} instead of None")


@rule(
    "PS603",
    "driver-call-not-refused",
    severity=Severity.ERROR,
    family="driver",
    scope="module",
    message="{function}() never raises SaltCloudSystemExit when call is wrong",
    summary="An action or function of a driver that runs whatever call says.",
    doc="""
        An action run as a function (or the reverse) gets the wrong arguments:
        ``show_instance`` called with ``-f`` has no node name. Each entry point
        tests ``call`` and raises ``SaltCloudSystemExit`` when it is wrong (or
        passes ``call`` on to a helper that does, as ``list_nodes_select``
        does with ``cloud.list_nodes_select``).
    """,
    bad="""
        def reboot(name, call=None):
            return _post(f"/nodes/{name}/reboot")
    """,
    good="""
        def reboot(name, call=None):
            if call != "action":
                raise SaltCloudSystemExit("The reboot action must be called with -a or --action.")
            return _post(f"/nodes/{name}/reboot")
    """,
)
def check_call_refused(module: PluginModule) -> Iterator[Hit]:
    """Entry points with a ``call`` parameter that never refuse a wrong one."""
    if not is_driver(module):
        return
    for fn in entry_points(module):
        if _call_param(fn)[0] is not None and not refuses_wrong_call(module, fn):
            yield module.hit(fn, function=fn.name)


@rule(
    "PS604",
    "driver-star-kwargs",
    severity=Severity.ERROR,
    family="driver",
    scope="module",
    message="{function}() takes **{name}; salt-cloud passes generic arguments as one dict "
    "parameter named kwargs",
    summary="A driver entry point takes **kwargs instead of a kwargs dict.",
    doc="""
        salt-cloud calls functions as ``fn(kwargs, call="function")`` with the
        command line's ``key=value`` pairs in one dict. A ``**kwargs``
        signature never receives them (and breaks on the positional dict).
    """,
    bad="""
        def show_image(call=None, **kwargs):
            ...
    """,
    good="""
        def show_image(kwargs=None, call=None):
            ...
    """,
)
def check_star_kwargs(module: PluginModule) -> Iterator[Hit]:
    """Entry points (and ``create``) declaring ``**something``."""
    if not is_driver(module):
        return
    functions = entry_points(module)
    if "create" in module.functions:
        functions.append(module.functions["create"])
    for fn in sorted(functions, key=lambda f: f.lineno):
        if fn.args.kwarg is not None:
            yield module.hit(fn.args.kwarg, function=fn.name, name=fn.args.kwarg.arg)


def virtual_name(module: PluginModule) -> str:
    """The driver's ``__virtualname__`` (a string literal), else its file name."""
    for stmt in module.tree.body:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name) and target.id == "__virtualname__":
                    value = literal(stmt.value)
                    if isinstance(value, str):
                        return value
    return module.path.stem
