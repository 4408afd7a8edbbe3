"""A shared plug-in module of Heat's, imported by a plug-in, draws seeded ids (issue #30).

``structured_config`` imports ``software_deployment``, whose ``_handle_action`` makes the
deployment's id with ``uuid.uuid4()``; that module must get the compat layer's seeded
``uuid`` (and virtual ``time``) as the plug-in module itself does, or each run of the same
world makes different ids (and the fake agent's timing, derived from the id, differs).
"""

from __future__ import annotations

import importlib.util
import time
import uuid
from pathlib import Path

from simulator.heat_compat import _finder, _vtime


def _load(heat: Path, name: str):
    spec = _finder.heat_source_spec(name, heat)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shared_plugin_module_gets_seeded_uuid_and_virtual_time(tmp_path: Path) -> None:
    heat = tmp_path / "heat"
    base = heat / "engine" / "resources" / "openstack" / "heat"
    base.mkdir(parents=True)
    (base / "shared.py").write_text(
        "import time\nimport uuid\n\n\ndef new_id():\n    return str(uuid.uuid4())\n",
        encoding="utf-8",
    )
    module = _load(heat, "heat.engine.resources.openstack.heat.shared")
    assert isinstance(module.uuid, _vtime.SeededUUID)
    assert isinstance(module.time, _vtime.VirtualTime)
    assert module.uuid is not uuid and module.time is not time


class _Clock:
    def __init__(self, at: float) -> None:
        self.at = at

    def now(self) -> float:
        return self.at


class _Resource:
    def __init__(self, at: float) -> None:
        self.name = "resource"
        self.stack = type("S", (), {"id": "stack-1"})()
        self.context = type("C", (), {"clock": _Clock(at)})()


def _draw(at: float) -> str:
    with _vtime.running(_Resource(at)):
        return str(_vtime.SeededUUID.uuid4())


def test_seeded_uuid_is_reproducible_and_new_for_a_replacement() -> None:
    """Same stack, name and instant: the same id on every run; a replacement (a new object
    of the same name, made later) gets a different one, as Heat's does."""
    assert _draw(10.0) == _draw(10.0)
    assert _draw(10.0) != _draw(25.5)
