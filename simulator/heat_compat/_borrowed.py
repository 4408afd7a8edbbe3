"""What the compat layer imports as it is instead of imitating it.

Heat's plug-ins import libraries that are not Heat's engine: the oslo
libraries (``oslo_serialization.jsonutils``, ``oslo_config.cfg``,
``oslo_utils.netutils`` ...) and a few pure helpers of Heat itself
(``heat.common.template_format``, ``heat.rpc.api`` ...). The compat layer
imports those real modules unchanged, inside the compat namespace of
:mod:`simulator.heat_compat._finder` (so the process's own copies, if any, are
never touched), with the shims serving what they in turn import of Heat's
engine or of the clock (``oslo_utils.timeutils`` stays virtual).

Where a real library comes from: the running environment first (plugsim's
``[openstack]`` and ``[test]`` extras bring the oslo libraries with the
python-*clients), else the site-packages of the openstack-heat installation
(``$PLUGSIM_HEAT_PYTHON``'s virtualenv). Only the pure-Python distributions of
:data:`FALLBACK_DISTRIBUTIONS` are taken from Heat's virtualenv, and only while
a Heat plug-in is being imported.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: Top-level packages imported as they are, kept in the compat namespace
#: (a plug-in's ``cfg.CONF`` is the compat layer's, never the process's).
BORROWED_ROOTS = ("oslo_utils", "oslo_serialization", "oslo_config")

#: Modules of Heat itself run from the installed Heat's files: pure helpers,
#: constants and data types that are no part of the engine.
HEAT_HELPERS = frozenset(
    {
        "heat.common.environment_format",
        "heat.common.identifier",
        "heat.common.netutils",
        "heat.common.param_utils",
        "heat.common.template_format",
        "heat.engine.clients.client_exception",
        "heat.engine.clients.progress",
        "heat.engine.parameters",
        "heat.engine.software_config_io",
        "heat.rpc.api",
        "heat.scaling.cooldown",
        "heat.scaling.lbutils",
        "heat.scaling.rolling_update",
        "heat.scaling.scalingutil",
    }
)

#: Packages that hold a helper: served empty (their ``__init__`` is not run).
HELPER_PACKAGES = frozenset(
    ".".join(name.split(".")[:depth])
    for name in HEAT_HELPERS
    for depth in range(2, name.count(".") + 1)
)

#: Pure-Python distributions the borrowed libraries need, which may come from
#: Heat's virtualenv when the running environment lacks them.
FALLBACK_DISTRIBUTIONS = frozenset(
    {
        "debtcollector",
        "iso8601",
        "msgpack",
        "netaddr",
        "oslo_i18n",
        "pbr",
        "rfc3986",
        "stevedore",
        "tenacity",
        "wrapt",
    }
)


def heat_site(heat_source: Any) -> Path | None:
    """The site-packages directory holding the installed ``heat`` package, or None."""
    if heat_source is None:
        return None
    return Path(heat_source).parent


def is_helper(fullname: str) -> bool:
    """True for a Heat module (or a package of one) run from Heat's own files."""
    return fullname in HEAT_HELPERS or fullname in HELPER_PACKAGES


def _search_path(site: Path | None) -> list[str]:
    paths = [p for p in sys.path if isinstance(p, str)]
    if site is not None:
        paths.append(str(site))
    return paths


def borrowed_spec(
    fullname: str, path: Sequence[str] | None, site: Path | None
) -> importlib.machinery.ModuleSpec | None:
    """The real module's spec for a name under :data:`BORROWED_ROOTS`, or None.

    A top-level package is looked up on ``sys.path`` then in *site* (Heat's
    site-packages); a submodule in its parent package's directories (*path*).
    """
    if fullname.split(".", 1)[0] not in BORROWED_ROOTS:
        return None
    if "." not in fullname:
        return importlib.machinery.PathFinder.find_spec(fullname, _search_path(site))
    if path is None:
        return None
    return importlib.machinery.PathFinder.find_spec(fullname, list(path))


class FallbackFinder(importlib.abc.MetaPathFinder):
    """Finds :data:`FALLBACK_DISTRIBUTIONS` in Heat's site-packages (last on the meta path).

    It only answers for top-level names the rest of the import system did not
    find; their submodules then follow the package's own ``__path__``.
    """

    def __init__(self, site: Path) -> None:
        self.site = site

    def find_spec(
        self, fullname: str, path: Any = None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        """Return the spec of a fallback distribution's top-level package, or None."""
        if "." in fullname or fullname not in FALLBACK_DISTRIBUTIONS:
            return None
        return importlib.machinery.PathFinder.find_spec(fullname, [str(self.site)])


__all__ = [
    "BORROWED_ROOTS",
    "FALLBACK_DISTRIBUTIONS",
    "HEAT_HELPERS",
    "HELPER_PACKAGES",
    "FallbackFinder",
    "borrowed_spec",
    "heat_site",
    "is_helper",
]
