"""neutron-lib's API definition constants, read from the installed neutron-lib without running it.

Heat's VPN plug-in (``neutron.vpnservice``) takes its allowed values from
``neutron_lib.api.definitions`` (``vpn.VPN_SUPPORTED_AUTH_ALGORITHMS``,
``vpn_aes_ctr.VPN_SUPPORTED_ENCRYPTION_ALGORITHMS_WITH_CTR``,
``vpn_no_sha1_3des.ALIAS`` ...). Importing neutron-lib itself drags in its
database layer and about a thousand modules, so the compat layer reads those
definition modules' source instead: the module-level assignments whose values
are literals, names of earlier constants, other definition modules' constants,
and ``+`` of those, evaluated with :mod:`ast` — never executed. The files are the
neutron-lib installed beside openstack-heat (a dependency of Heat), so the
values are exactly the ones Heat's plug-in sees there.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from simulator.heat_compat._finder import serving_heat_source
from simulator.heat_compat.missing import MissingHeatName

#: The definition modules Heat 27's in-tree plug-ins import.
DEFINITIONS = ("vpn", "vpn_aes_ctr", "vpn_no_sha1_3des")

_PACKAGE = "neutron_lib.api.definitions"


class _Unknown(Exception):
    """A value the reader does not evaluate (a call, a comprehension ...): the name is left out."""


def _definitions_dir() -> Path:
    heat = serving_heat_source()
    directory = Path(heat).parent / "neutron_lib" / "api" / "definitions" if heat else None
    if directory is None or not directory.is_dir():
        raise MissingHeatName(f"{_PACKAGE} (neutron-lib beside the installed openstack-heat)")
    return directory


@functools.cache
def _read(directory: str, module: str) -> dict[str, Any]:
    path = Path(directory) / f"{module}.py"
    if not path.is_file():
        raise MissingHeatName(f"{_PACKAGE}.{module}")
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    scope: dict[str, Any] = {}
    imported: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == _PACKAGE:
            for alias in node.names:
                try:
                    scope[alias.asname or alias.name] = _read(directory, alias.name)
                except MissingHeatName:
                    continue
                imported.add(alias.asname or alias.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is None or not all(isinstance(t, ast.Name) for t in targets):
                continue
            try:
                value = _evaluate(node.value, scope)
            except _Unknown:
                continue
            for target in targets:
                scope[target.id] = value  # type: ignore[attr-defined]
    return {name: value for name, value in scope.items() if name not in imported}


def _evaluate(node: ast.expr, scope: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        items = [_evaluate(item, scope) for item in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise _Unknown
        return {
            _evaluate(key, scope): _evaluate(value, scope)  # type: ignore[arg-type]
            for key, value in zip(node.keys, node.values, strict=True)
        }
    if isinstance(node, ast.Name) and node.id in scope:
        return scope[node.id]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        owner = scope.get(node.value.id)
        if isinstance(owner, dict) and node.attr in owner:
            return owner[node.attr]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _evaluate(node.left, scope) + _evaluate(node.right, scope)
    raise _Unknown


def _definition(module: str) -> dict[str, Any]:
    return dict(_read(str(_definitions_dir()), module))


def _package() -> dict[str, Any]:
    return {}


#: ``module name -> builder`` of the neutron-lib modules the compat layer serves.
BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "neutron_lib": _package,
    "neutron_lib.api": _package,
    _PACKAGE: _package,
    **{f"{_PACKAGE}.{name}": functools.partial(_definition, name) for name in DEFINITIONS},
}
