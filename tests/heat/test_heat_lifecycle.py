"""Lifecycle plug-ins written against Heat run unmodified (issue #20).

The fixture plug-in imports ``heat.engine.lifecycle_plugin``, takes Heat's
parameter names (``cnxt``) and reads what Heat's engine passes: the stack's
``t``, ``env``, ``context``, ``tenant_id``, ``outputs``, ``identifier()``
and ``resources`` (``res.type()``), and the request context's
``tenant_id``, ``user_id``, ``roles`` and ``to_dict()``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from sdk.lint import lifecycle_rules
from sdk.lint.registry import _RULES
from sdk.lint.source import PluginModule
from sdk.testing.lifecycle_conformance import LifecyclePluginConformance, signature_problems
from simulator.store import Store
from simulator.world import World

HEAT_STYLE = Path(__file__).resolve().parent / "heat_style"
HEAT_LIFECYCLE = (HEAT_STYLE / "heat_lifecycle_audit.py").read_text(encoding="utf-8")

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "parameters": {"size": {"type": "number", "default": 2}},
    "resources": {
        "a": {"type": "OS::Heat::RandomString", "properties": {"length": 8}},
        "b": {"type": "OS::Heat::None"},
    },
    "outputs": {"secret": {"value": {"get_attr": ["a", "value"]}}},
}


@pytest.fixture
def heat_lifecycle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The fixture plug-in as the importable module ``heat_style_audit``."""
    (tmp_path / "heat_style_audit.py").write_text(HEAT_LIFECYCLE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "heat_style_audit", raising=False)
    yield tmp_path
    sys.modules.pop("heat_style_audit", None)


def _seen() -> list[dict[str, Any]]:
    return sys.modules["heat_style_audit"].SEEN


def test_heat_lifecycle_plugin_imports_and_sees_what_heat_passes(heat_lifecycle: Path) -> None:
    world = World(Store(":memory:"), seed=1, lifecycle_plugins=["heat_style_audit:Audit"])
    try:
        stack = world.create_stack("s", TEMPLATE, parameters={"size": 3})
        assert (stack.action, stack.status) == ("CREATE", "COMPLETE"), stack.status_reason
        pre, post = _seen()
        assert pre == {
            "action": "CREATE",
            "tenant": world.project_id,
            "user": True,
            "roles": pre["roles"],
            "ctx_keys": ["tenant", "user_id"],
            "stack_tenant": world.project_id,
            "stack_ctx_tenant": world.project_id,
            "t_resources": ["a", "b"],
            "params": {"size": 3},
            "outputs": ["secret"],
            "identifier": "s",
            "types": ["OS::Heat::None", "OS::Heat::RandomString"],
            "names": ["a", "b"],
        }
        assert pre["roles"] and all(isinstance(r, str) for r in pre["roles"])
        assert post == {"post": "CREATE", "failed": False}
    finally:
        world.close()


def test_heat_lifecycle_plugin_veto_fails_the_action(heat_lifecycle: Path) -> None:
    world = World(Store(":memory:"), seed=1, lifecycle_plugins=["heat_style_audit:Audit"])
    try:
        stack = world.create_stack("s", TEMPLATE, tags=["forbidden"])
        assert (stack.action, stack.status) == ("CREATE", "FAILED")
        assert "forbidden stack" in stack.status_reason
    finally:
        world.close()


def test_heat_entry_point_group_is_read(heat_lifecycle: Path) -> None:
    dist = heat_lifecycle / "heat_style_audit-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: heat-style-audit\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[heat.stack_lifecycle_plugins]\naudit = heat_style_audit:Audit\n"
    )
    world = World(Store(":memory:"), seed=1)
    try:
        assert "audit" in world.lifecycle.names()
        stack = world.create_stack("s", TEMPLATE)
        assert stack.status == "COMPLETE", stack.status_reason
        assert _seen()[0]["types"] == ["OS::Heat::None", "OS::Heat::RandomString"]
    finally:
        world.close()


def test_lint_ps702_accepts_heats_cnxt(tmp_path: Path) -> None:
    path = tmp_path / "audit.py"
    path.write_text(HEAT_LIFECYCLE, encoding="utf-8")
    module = PluginModule.read(path)
    assert [
        _RULES["PS702"].finding(h).message for h in lifecycle_rules.check_signatures(module)
    ] == []
    wrong = tmp_path / "wrong.py"
    wrong.write_text(
        HEAT_LIFECYCLE.replace("cnxt, stack, current_stack=None, action=None)", "cnxt, stack)")
    )
    found = [h for h in lifecycle_rules.check_signatures(PluginModule.read(wrong))]
    assert len(found) == 1


def test_lifecycle_conformance_signature_accepts_cnxt(heat_lifecycle: Path) -> None:
    from simulator.heat_compat.lifecycle_import import import_heat_aware

    audit = import_heat_aware("heat_style_audit").Audit
    assert signature_problems(audit) == []


def _audit_class() -> type:
    from simulator.heat_compat.lifecycle_import import import_heat_aware

    if str(HEAT_STYLE) not in sys.path:
        sys.path.insert(0, str(HEAT_STYLE))
    return import_heat_aware("heat_lifecycle_audit").Audit


class TestHeatStyleLifecycleConforms(LifecyclePluginConformance):
    """plugsim's lifecycle conformance suite on a plug-in written against Heat."""

    plugin_factory = staticmethod(lambda: _audit_class()())
