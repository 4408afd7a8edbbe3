"""``plugsim serve`` killed (SIGKILL) under load keeps every write it acknowledged.

Runs ``tools/serve_kill.py`` for three kills (the tool's default of ten is
what the docs record): eight client threads PUT objects, create and delete
networks and create servers against a real ``plugsim serve`` on 127.0.0.1;
the server is killed after a seeded random 1 to 3 seconds, the world file is
reopened and must hold every write that got a 2xx, then the server is
restarted on the same file for the next round.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

from tests.world.conftest import ROOT

pytest.importorskip("requests")


def _tool():
    spec = importlib.util.spec_from_file_location("serve_kill", ROOT / "tools" / "serve_kill.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("serve_kill", module)  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.material
def test_no_acknowledged_write_is_lost_across_kills(tmp_path):
    result = _tool().run(kills=3, clients=8, seed=7, workdir=tmp_path)
    assert [r["lost"] for r in result["rounds"]] == [0, 0, 0], result
    # the rounds did real work: writes of every kind were acknowledged before the kills
    # (servers the instance quota made a client delete again count in servers_made only)
    assert result["objects"] and result["networks"] and result["servers_made"], result
    assert result["acknowledged"] >= 60, result
