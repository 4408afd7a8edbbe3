"""The import machinery of the compat layer: shim modules named ``heat.*``.

While a Heat plug-in module is executed inside :func:`shim_imports`, a
meta-path finder placed first in :data:`sys.meta_path` serves the shim
modules (``heat.engine.resource`` ...) and sets aside any real modules under
:data:`ROOTS` (``heat``, ``oslo_log`` and the borrowed libraries
``oslo_utils``, ``oslo_serialization``, ``oslo_config``) already imported,
putting the compat namespace of earlier loadings in their place; on exit the
compat namespace is kept aside again and everything is put back as it was. A
process in which the real Heat is importable therefore keeps working: the
shims exist only during a loading, and the plug-in keeps references to the
modules it imported. Real libraries and Heat's helper modules imported as
they are come from :mod:`simulator.heat_compat._borrowed`.

Names the layer does not provide fail clearly: importing a module it lacks is
a ``ModuleNotFoundError`` naming the module, and reading an attribute it lacks
is :class:`MissingHeatName` naming ``module.attribute``.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from simulator.heat_compat import _borrowed
from simulator.heat_compat.missing import MissingHeatName

#: Top-level package names the compat namespace holds during a loading: the
#: shims' and those of the real libraries imported as they are
#: (:data:`simulator.heat_compat._borrowed.BORROWED_ROOTS`).
ROOTS = ("heat", "oslo_log", "neutron_lib", *_borrowed.BORROWED_ROOTS)

#: ``module name -> builder`` returning the module's public names (the table is
#: :data:`simulator.heat_compat._shims.BUILDERS`, passed to :func:`shim_imports`).
Builders = Mapping[str, Callable[[], dict[str, Any]]]

_BUILT: dict[str, types.ModuleType] = {}


#: Module-name prefixes of plug-in files loaded by path (sdk's and the compat loader's).
PLUGIN_MODULE_PREFIXES = ("plugsim_heat_plugins.", "plugsim_plugins.")


def _plugin_file(frame: types.FrameType | None) -> str | None:
    """The plug-in file whose code runs in *frame*, or None for any other code."""
    if frame is None:
        return None
    module = frame.f_globals.get("__name__", "")
    if isinstance(module, str) and module.startswith(PLUGIN_MODULE_PREFIXES):
        return frame.f_code.co_filename
    return None


def plugin_site(frame: types.FrameType | None) -> str | None:
    """``file:line`` of the nearest plug-in code at or above *frame*, or None.

    Walks out through the compat layer's own frames, so a name read by a
    plug-in through one of the layer's objects names the plug-in's line.
    """
    while frame is not None:
        found = _plugin_file(frame)
        if found is not None:
            return f"{found}:{frame.f_lineno}"
        frame = frame.f_back
    return None


class ShimModule(types.ModuleType):
    """A shim module: unknown public names raise :class:`MissingHeatName`.

    When the name is read by a plug-in file's own code, the error names that file and line.
    """

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise MissingHeatName(f"{self.__name__}.{name}", plugin_site(sys._getframe(1)))


def _is_package(name: str, builders: Builders) -> bool:
    prefix = name + "."
    return any(other.startswith(prefix) for other in builders)


def shim_module(name: str, builders: Builders) -> types.ModuleType:
    """Return (building once per process) the shim module *name* from *builders*."""
    module = _BUILT.get(name)
    if module is None:
        module = ShimModule(name, f"plugsim Heat compatibility shim for {name}")
        if _is_package(name, builders):
            module.__path__ = []  # a package: its submodules come from the finder
        module.__dict__.update(builders[name]())
        _BUILT[name] = module
    return module


class _Loader(importlib.abc.Loader):
    def __init__(self, builders: Builders) -> None:
        self.builders = builders

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return shim_module(spec.name, self.builders)

    def exec_module(self, module: types.ModuleType) -> None:
        parent, _, child = module.__name__.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)


#: The package whose modules may come from the installed Heat: plug-in code, not engine.
HEAT_SOURCE_PACKAGE = "heat.engine.resources"


class _EmptyPackageLoader(importlib.abc.Loader):
    """Creates an empty package (Heat's ``__init__`` registers plug-ins with Heat's engine)."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = ShimModule(spec.name, f"plugsim Heat compatibility package {spec.name}")
        module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        parent, _, child = module.__name__.rpartition(".")
        if parent in sys.modules:
            setattr(sys.modules[parent], child, module)


def heat_source_spec(fullname: str, heat_source: Any) -> importlib.machinery.ModuleSpec | None:
    """A spec running Heat's own file for *fullname*, or None.

    The shared base modules of Heat's plug-ins (``...openstack.neutron.neutron``,
    anything under :data:`HEAT_SOURCE_PACKAGE`) are plug-in code, and the
    helpers of :data:`simulator.heat_compat._borrowed.HEAT_HELPERS` are no part
    of the engine: they run as they are, with the shims serving their imports.
    A package is served empty, so Heat's registration code does not run.
    """
    if heat_source is None:
        return None
    if not (
        fullname == HEAT_SOURCE_PACKAGE
        or fullname.startswith(HEAT_SOURCE_PACKAGE + ".")
        or _borrowed.is_helper(fullname)
    ):
        return None
    relative = fullname.split(".")[1:]
    base = heat_source.joinpath(*relative)
    if base.is_dir():
        return importlib.machinery.ModuleSpec(fullname, _EmptyPackageLoader(), is_package=True)
    source = base.with_suffix(".py")
    if source.is_file():
        if not fullname.startswith(HEAT_SOURCE_PACKAGE + "."):
            return importlib.util.spec_from_file_location(fullname, source)
        return importlib.util.spec_from_file_location(
            fullname, source, loader=_PluginSourceLoader(fullname, str(source))
        )
    return None


class _PluginSourceLoader(importlib.machinery.SourceFileLoader):
    """Runs a shared plug-in module of Heat's, then gives it virtual time and seeded ids.

    A plug-in module is patched when the compat loader loads it; the modules it imports
    (``software_deployment`` for ``structured_config``) hold the code its classes inherit,
    so they get the same ``time``, ``uuid`` and ``random`` (a deployment's id drawn with
    ``uuid.uuid4()`` was a new one on every run).
    """

    def exec_module(self, module: types.ModuleType) -> None:
        from simulator.heat_compat import _vtime

        super().exec_module(module)
        _vtime.patch_module(module)


class ShimFinder(importlib.abc.MetaPathFinder):
    """Serves the shim modules of *builders* and refuses other names under :data:`ROOTS`.

    With *heat_source* (the installed ``heat`` package's directory), modules
    under :data:`HEAT_SOURCE_PACKAGE` the shims lack come from Heat's files.
    """

    def __init__(self, builders: Builders, heat_source: Any = None) -> None:
        self.builders = builders
        self.heat_source = heat_source

    def find_spec(
        self, fullname: str, path: Any = None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        """Return a spec for a shim module; raise for an unknown module under a root."""
        if fullname.split(".", 1)[0] not in ROOTS:
            return None
        if fullname in _borrowed.BORROWED_ROOTS or fullname not in self.builders:
            # a real library wins over an empty shim package of the same name
            spec = heat_source_spec(fullname, self.heat_source) or _borrowed.borrowed_spec(
                fullname, path, _borrowed.heat_site(self.heat_source)
            )
            if spec is not None:
                return spec
        if fullname not in self.builders:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: plugsim's Heat compatibility layer "
                f"(simulator.heat_compat) does not provide it",
                name=fullname,
            )
        return importlib.machinery.ModuleSpec(
            fullname, _Loader(self.builders), is_package=_is_package(fullname, self.builders)
        )


def _ours(name: str) -> bool:
    return name.split(".", 1)[0] in ROOTS


#: The compat namespace: the modules under :data:`ROOTS` imported during earlier
#: loadings, per Heat source, put back in :data:`sys.modules` for the next one
#: (so every Heat plug-in shares one ``cfg.CONF`` and one copy of each base module).
_NAMESPACES: dict[str, dict[str, types.ModuleType]] = {}


_SERVING_SOURCE: Any = None


def serving_heat_source() -> Any:
    """The installed ``heat`` package directory of the loading in progress (None: none)."""
    return _SERVING_SOURCE


@contextlib.contextmanager
def serving(builders: Builders, heat_source: Any = None) -> Iterator[None]:
    """Serve the shims of *builders* while the block runs; restore :data:`sys.modules` after.

    *heat_source*: the installed ``heat`` package directory (see :class:`ShimFinder`).
    The process's own modules under :data:`ROOTS` are set aside meanwhile and
    the compat namespace of earlier loadings is put in their place.
    """
    global _SERVING_SOURCE
    previous_source, _SERVING_SOURCE = _SERVING_SOURCE, heat_source
    saved = {name: sys.modules.pop(name) for name in sorted(sys.modules) if _ours(name)}
    namespace = _NAMESPACES.setdefault(str(heat_source), {})
    sys.modules.update(namespace)
    finder = ShimFinder(builders, heat_source)
    site = _borrowed.heat_site(heat_source)
    fallback = _borrowed.FallbackFinder(site) if site is not None else None
    sys.meta_path.insert(0, finder)
    if fallback is not None:
        sys.meta_path.append(fallback)
    try:
        yield
    finally:
        for hook in (finder, fallback):
            with contextlib.suppress(ValueError):
                sys.meta_path.remove(hook)  # type: ignore[arg-type]
        namespace.clear()
        for name in sorted(n for n in sys.modules if _ours(n)):
            namespace[name] = sys.modules.pop(name)
        sys.modules.update(saved)
        _SERVING_SOURCE = previous_source
