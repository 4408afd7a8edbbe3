"""Rules on plug-in registration (PS3xx): ``resource_mapping()`` and the import itself.

These rules import the plug-in module (see :mod:`sdk.lint.loading`: isolated,
network blocked, crashes captured) and call its ``resource_mapping()`` and
``available_resource_mapping()``; those functions only build a dict. When the
import fails, the mapping is read from the source instead where it is a dict
literal.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from sdk.lint.loading import Loaded, MappingCall, call_mapping, import_file, is_resource_class
from sdk.lint.registry import Hit, Severity, rule
from sdk.lint.source import PluginModule, literal

MAPPING_FUNCTIONS = ("resource_mapping", "available_resource_mapping")

#: ``Vendor::Service::Thing``: three or more ``::``-separated names, each starting with a letter.
TYPE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(::[A-Za-z][A-Za-z0-9_]*){2,}$")


def is_plugin(module: PluginModule) -> bool:
    """Whether the file looks like a resource plug-in (resource classes or a mapping)."""
    return bool(module.resource_classes) or any(f in module.functions for f in MAPPING_FUNCTIONS)


def loaded(module: PluginModule) -> Loaded | None:
    """Import the module once (cached); None for files that are not plug-ins or do not parse."""
    if module.syntax_error is not None or not is_plugin(module):
        return None
    if "loaded" not in module.cache:
        module.cache["loaded"] = import_file(module.path)
    return module.cache["loaded"]


def mapping_calls(module: PluginModule) -> list[MappingCall]:
    """The results of calling each mapping function the imported module has."""
    if "mapping_calls" not in module.cache:
        result = loaded(module)
        calls: list[MappingCall] = []
        if result is not None and result.module is not None:
            for function in MAPPING_FUNCTIONS:
                call = call_mapping(result.module, function)
                if call is not None:
                    calls.append(call)
        module.cache["mapping_calls"] = calls
    return module.cache["mapping_calls"]


@dataclass(frozen=True)
class StaticEntry:
    """One ``'Type::Name': Class`` entry of a dict literal returned by a mapping function."""

    function: str
    name: object
    key: ast.expr
    value: ast.expr


def static_entries(module: PluginModule) -> list[StaticEntry]:
    """Entries of dict literals returned by the module's mapping functions."""
    out: list[StaticEntry] = []
    for function in MAPPING_FUNCTIONS:
        fn = module.functions.get(function)
        if fn is None:
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
                for key, value in zip(node.value.keys, node.value.values, strict=True):
                    if key is not None:
                        out.append(StaticEntry(function, literal(key), key, value))
    return out


def type_names(module: PluginModule) -> list[tuple[str, int, int]]:
    """The type names the module registers, with the line and column that names each."""
    positions: dict[str, tuple[int, int]] = {}
    ordered: list[str] = []
    for entry in static_entries(module):
        if isinstance(entry.name, str) and entry.name not in positions:
            positions[entry.name] = (entry.key.lineno, entry.key.col_offset + 1)
            ordered.append(entry.name)
    calls = [c for c in mapping_calls(module) if c.mapping is not None]
    if calls:
        names: list[str] = []
        for call in calls:
            assert call.mapping is not None
            names.extend(str(k) for k in call.mapping if str(k) not in names)
    else:
        names = ordered
    out = []
    for name in names:
        line, col = positions.get(name, _function_position(module))
        out.append((name, line, col))
    return out


def _function_position(module: PluginModule) -> tuple[int, int]:
    for function in MAPPING_FUNCTIONS:
        fn = module.functions.get(function)
        if fn is not None:
            return fn.lineno, fn.col_offset + 1
    return 1, 1


@rule(
    "PS301",
    "resource-mapping-missing",
    severity=Severity.ERROR,
    family="mapping",
    scope="module",
    message="the module defines resource class {cls} but no resource_mapping() function",
    summary="A plug-in module must register its resources with resource_mapping().",
    doc="""
        The loader registers exactly what ``resource_mapping()`` (or
        ``available_resource_mapping()``) returns; resource classes in a module
        without it are never available to templates.
    """,
    bad="""
        class Volume(resource.Resource):
            \"\"\"A volume.\"\"\"
    """,
    good="""
        class Volume(resource.Resource):
            \"\"\"A volume.\"\"\"


        def resource_mapping():
            return {"Example::Storage::Volume": Volume}
    """,
)
def check_mapping_missing(module: PluginModule) -> Iterator[Hit]:
    """Modules with resource classes but no mapping function."""
    if not module.resource_classes:
        return
    if any(f in module.functions for f in MAPPING_FUNCTIONS):
        return
    if any(f in module.aliases for f in MAPPING_FUNCTIONS):
        return
    yield module.hit(module.resource_classes[0].node, cls=module.resource_classes[0].name)


@rule(
    "PS302",
    "mapping-value-not-resource",
    severity=Severity.ERROR,
    family="mapping",
    scope="module",
    message="{function}() maps {type_name!r} to {value}, which is not a Resource subclass",
    summary="resource_mapping() must map type names to Resource subclasses.",
    doc="""
        Every value of the mapping is instantiated as a resource by the engine; an
        instance, a function or an unrelated class fails only when a template uses
        the type.
    """,
    bad="""
        def resource_mapping():
            return {"Example::Storage::Volume": Volume()}
    """,
    good="""
        def resource_mapping():
            return {"Example::Storage::Volume": Volume}
    """,
)
def check_mapping_values(module: PluginModule) -> Iterator[Hit]:
    """Mapping values that are not Resource subclasses (dynamic, else from the source)."""
    positions = {
        (e.function, e.name): e.value for e in static_entries(module) if isinstance(e.name, str)
    }
    calls = mapping_calls(module)
    if calls:
        for call in calls:
            for key, value in (call.mapping or {}).items():
                if is_resource_class(value):
                    continue
                node = positions.get((call.function, key))
                where = node if node is not None else _function_position(module)[0]
                shown = value.__name__ if isinstance(value, type) else repr(value)
                yield module.hit(where, function=call.function, type_name=key, value=shown)
        return
    result = loaded(module)
    if result is None or result.module is not None:
        return
    resource_names = {c.name for c in module.resource_classes}
    for entry in static_entries(module):
        value = entry.value
        defined_elsewhere = isinstance(value, ast.Name) and (
            (value.id in module.classes and module.surely_not_resource(module.classes[value.id]))
            or value.id in module.functions
        )
        if isinstance(value, ast.Name) and value.id in resource_names:
            continue
        if defined_elsewhere or isinstance(value, ast.Call | ast.Constant):
            yield module.hit(
                value,
                function=entry.function,
                type_name=entry.name,
                value=ast.unparse(value),
            )


@rule(
    "PS303",
    "type-name-form",
    severity=Severity.ERROR,
    family="mapping",
    scope="module",
    message="type name {type_name!r} is not of the form Vendor::Service::Thing",
    summary="Resource type names read Vendor::Service::Thing.",
    doc="""
        Type names are namespaced by vendor and service so that plug-ins from
        different sources cannot collide and templates read uniformly
        (``OS::Nova::Server``, ``Example::Storage::Volume``). Each part starts
        with a letter; three or more parts.
    """,
    bad="""
        def resource_mapping():
            return {"volume": Volume}
    """,
    good="""
        def resource_mapping():
            return {"Example::Storage::Volume": Volume}
    """,
)
def check_type_name_form(module: PluginModule) -> Iterator[Hit]:
    """Registered type names that do not have the Vendor::Service::Thing form."""
    for name, line, col in type_names(module):
        if not TYPE_NAME.match(name):
            yield Hit(module.display, line, col, {"type_name": name})


@rule(
    "PS304",
    "import-crash",
    severity=Severity.ERROR,
    family="mapping",
    scope="module",
    message="importing the plug-in failed: {error}",
    summary="The plug-in module raises when it is imported.",
    doc="""
        A module that raises on import is skipped by the loader, so none of its
        resources exist. Missing optional dependencies should disable the plug-in
        through ``available_resource_mapping()`` returning ``{}``, not crash it.
        The linter imports the module with the network blocked.
    """,
    bad="""
        import vendor_sdk  # not installed: ModuleNotFoundError


        def resource_mapping():
            return {"Vendor::Service::Thing": Thing}
    """,
    good="""
        try:
            import vendor_sdk
        except ImportError:
            vendor_sdk = None


        def available_resource_mapping():
            return {"Vendor::Service::Thing": Thing} if vendor_sdk else {}
    """,
)
def check_import_crash(module: PluginModule) -> Iterator[Hit]:
    """Plug-in modules that raise when imported."""
    result = loaded(module)
    if result is not None and result.module is None:
        yield module.hit(result.line, error=result.error)


@rule(
    "PS305",
    "duplicate-type-name",
    severity=Severity.ERROR,
    family="mapping",
    scope="project",
    message="type name {type_name!r} is already registered at {first}",
    summary="Two linted plug-ins register the same type name.",
    doc="""
        The loader refuses two plug-ins that claim one type name. The finding is
        reported at every registration after the first (files in path order).
    """,
    bad="""
        # volumes.py
        def resource_mapping():
            return {"Example::Storage::Volume": Volume}

        # legacy.py
        def resource_mapping():
            return {"Example::Storage::Volume": OldVolume}
    """,
    good="""
        # legacy.py
        def resource_mapping():
            return {"Example::Storage::LegacyVolume": OldVolume}
    """,
)
def check_duplicates(modules: Sequence[PluginModule]) -> Iterator[Hit]:
    """Type names registered by more than one linted module."""
    first: dict[str, str] = {}
    for module in sorted(modules, key=lambda m: m.display):
        for name, line, col in type_names(module):
            where = f"{module.display}:{line}"
            if name in first:
                yield Hit(module.display, line, col, {"type_name": name, "first": first[name]})
            else:
                first[name] = where


@rule(
    "PS306",
    "mapping-call-failed",
    severity=Severity.ERROR,
    family="mapping",
    scope="module",
    message="{function}() {error}",
    summary="resource_mapping() raises or does not return a dict.",
    doc="""
        The loader calls the mapping function once at start-up; if it raises or
        returns something other than a dict, the plug-in is skipped.
    """,
    bad="""
        def resource_mapping():
            return [("Example::Storage::Volume", Volume)]
    """,
    good="""
        def resource_mapping():
            return {"Example::Storage::Volume": Volume}
    """,
)
def check_mapping_call(module: PluginModule) -> Iterator[Hit]:
    """Mapping functions that raise or return a non-dict."""
    for call in mapping_calls(module):
        if call.error is not None:
            fn = module.functions.get(call.function)
            yield module.hit(fn, function=call.function, error=call.error)


def _source_file(cls: type, module: PluginModule) -> Path | None:
    """The file *cls* is defined in: the linted file for a class of the linter's private import."""
    if cls.__module__.startswith("_plugsim_lint_"):
        return module.path.resolve()
    try:
        found = inspect.getsourcefile(cls)
    except TypeError:
        return None
    return Path(found).resolve() if found else None


def _same_plugin(linted: type, module: PluginModule, installed: type) -> bool:
    """Whether two classes are one plug-in (the linter imports a file under a private name)."""
    if linted is installed:
        return True
    here = _source_file(linted, module)
    return (
        here is not None
        and here == _source_file(installed, module)
        and linted.__qualname__ == installed.__qualname__
    )


@rule(
    "PS307",
    "type-registered-by-installed-plugin",
    severity=Severity.WARNING,
    family="mapping",
    scope="project",
    message="type name {type_name!r} is already registered by an installed plug-in ({other}); "
    "the engine refuses to load both",
    summary="A linted plug-in claims a type name that a bundled or installed plug-in registers.",
    doc="""
        The engine loads plugsim's bundled types and every installed plug-in
        (the ``plugsim.resources`` entry points) and stops with a conflict
        when two of them register one type name with different classes: the
        plug-in passes its own tests, then breaks the first stack that loads
        both. Rename the type (your vendor name as its first part) or
        uninstall the other plug-in. The same file installed in development
        mode is not a conflict. A warning, so the run exits 1.
    """,
    bad="""
        def resource_mapping():
            return {"OS::Heat::None": Widget}
    """,
    good="""
        def resource_mapping():
            return {"Example::Widget::Thing": Widget}
    """,
)
def check_installed_conflict(modules: Sequence[PluginModule]) -> Iterator[Hit]:
    """Type names the linted modules register that the environment registers differently."""
    from sdk.lint.template_rules import installed_types

    installed = installed_types()
    for module in sorted(modules, key=lambda m: m.display):
        loaded = {
            name: cls
            for call in mapping_calls(module)
            for name, cls in (call.mapping or {}).items()
            if isinstance(name, str)
        }
        for name, line, col in type_names(module):
            other = installed.get(name)
            if other is None or name not in loaded or _same_plugin(loaded[name], module, other):
                continue
            where = f"{other.__module__}.{other.__qualname__}"
            yield Hit(module.display, line, col, {"type_name": name, "other": where})
