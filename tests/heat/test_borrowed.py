"""Real libraries under Heat plug-ins: the oslo libraries and Heat's own helper modules.

The compat layer imports ``oslo_serialization``, ``oslo_config``,
``oslo_utils`` and a few pure helpers of Heat (``heat.common.template_format``
...) as they are, in a namespace of its own, with ``oslo_utils.timeutils``
on virtual time.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from _heat_diff import requires_heat

from simulator.heat_compat import load_heat_plugin, use_heat_plugins
from simulator.heat_compat._borrowed import FallbackFinder
from simulator.store import Store
from simulator.world import World

#: Kept apart from heat_style/, whose plug-ins need no oslo library.
OSLO_USER = Path(__file__).resolve().parent / "heat_oslo" / "oslo_user.py"

pytest.importorskip("oslo_serialization")
pytest.importorskip("oslo_config")


def _template(resources: dict, outputs: dict | None = None) -> dict:
    return {
        "heat_template_version": "2018-08-31",
        "resources": resources,
        "outputs": {k: {"value": v} for k, v in (outputs or {}).items()},
    }


def test_oslo_libraries_are_imported_as_they_are() -> None:
    world = World(Store(":memory:"), seed=3)
    assert use_heat_plugins(world, OSLO_USER).errors == []
    props = {"address": "10.0.0.1", "payload": {"b": 1, "a": [2]}}
    stack = world.create_stack(
        "s",
        _template(
            {"r": {"type": "Test::Heat::Recorder", "properties": props}},
            {"record": {"get_attr": ["r", "record"]}},
        ),
    )
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert stack.output("record") == {
        "payload": '{"a": [2], "b": 1}',
        "is_ip": True,
        "name_limit": 53,  # heat.common.config's option, registered by the compat layer
        "made_at": "2023-11-14T22:13:20",  # virtual time 0, through the real timeutils
        "made_ts": 1_700_000_000,
        "text": "café",
        "uuid_like": True,
    }
    assert world.delete_stack("s").state == "DELETE_COMPLETE"


def test_the_process_copies_of_the_libraries_are_untouched() -> None:
    from oslo_config import cfg
    from oslo_utils import timeutils

    real_utcnow = timeutils.utcnow
    report = load_heat_plugin(OSLO_USER)
    assert report.errors == []
    assert sys.modules["oslo_config.cfg"] is cfg
    assert sys.modules["oslo_utils.timeutils"] is timeutils
    assert timeutils.utcnow is real_utcnow
    assert "max_server_name_length" not in cfg.CONF  # registered on the compat copy only
    plugin_cfg = report.mapping["Test::Heat::Recorder"].handle_create.__globals__["cfg"]
    assert plugin_cfg is not cfg
    assert plugin_cfg.CONF.max_server_name_length == 53


def test_plug_ins_share_one_compat_namespace(tmp_path: Path) -> None:
    copies = []
    for name in ("first", "second"):
        target = tmp_path / name / "oslo_user.py"
        target.parent.mkdir()
        shutil.copy(OSLO_USER, target)
        report = load_heat_plugin(target)
        assert report.errors == []
        copies.append(report.mapping["Test::Heat::Recorder"].handle_create.__globals__)
    assert copies[0]["cfg"] is copies[1]["cfg"]
    assert copies[0]["jsonutils"] is copies[1]["jsonutils"]


def test_fallback_finder_serves_listed_distributions_only(tmp_path: Path) -> None:
    for name in ("netaddr", "notlisted"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
    finder = FallbackFinder(tmp_path)
    spec = finder.find_spec("netaddr")
    assert spec is not None and spec.origin == str(tmp_path / "netaddr" / "__init__.py")
    assert finder.find_spec("notlisted") is None
    assert finder.find_spec("netaddr.ip") is None  # submodules follow the package's __path__


def _fake_heat_venv(root: Path) -> Path:
    """A virtualenv holding a tiny ``heat`` package of this test's own."""
    python = root / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\n")
    python.chmod(0o755)
    heat = root / "lib" / "python3.11" / "site-packages" / "heat"
    for package in ("", "engine", "common", "rpc"):
        (heat / package).mkdir(parents=True, exist_ok=True)
        (heat / package / "__init__.py").write_text("raise RuntimeError('never run')\n")
    (heat / "engine" / "resource.py").write_text("")
    (heat / "common" / "netutils.py").write_text("def get_id(source):\n    return 'id-' + source\n")
    (heat / "common" / "wsgi.py").write_text("SERVER = 'engine code'\n")
    (heat / "rpc" / "api.py").write_text("RES_NAME = 'resource_name'\n")
    return python


HELPER_USER = """
from heat.common import netutils
from heat.engine import resource
from heat.rpc import api


class Helped(resource.Resource):
    def handle_create(self):
        self.resource_id_set(netutils.get_id(api.RES_NAME))


def resource_mapping():
    return {"Test::Heat::Helped": Helped}
"""


def test_heat_helper_modules_come_from_heat_files(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PLUGSIM_HEAT_PYTHON", os.fspath(_fake_heat_venv(tmp_path / "venv")))
    plugin = tmp_path / "helped.py"
    plugin.write_text(HELPER_USER)
    world = World(Store(":memory:"), seed=3)
    assert use_heat_plugins(world, plugin).errors == []
    stack = world.create_stack(
        "s",
        _template({"h": {"type": "Test::Heat::Helped"}}, {"id": {"get_resource": "h"}}),
    )
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert stack.output("id") == "id-resource_name"


def test_engine_modules_of_heat_stay_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PLUGSIM_HEAT_PYTHON", os.fspath(_fake_heat_venv(tmp_path / "venv")))
    plugin = tmp_path / "wsgi_user.py"
    plugin.write_text("from heat.common import wsgi\n")
    [error] = load_heat_plugin(plugin).errors
    assert "heat.common.wsgi is not provided by plugsim's Heat compatibility layer" in str(error)


#: Heat's in-tree modules that failed to import before the oslo libraries and
#: Heat's helpers were imported as they are, with a type each registers.
NOW_LOADING = {
    "cinder.volume": "OS::Cinder::Volume",
    "heat.cloud_config": "OS::Heat::CloudConfig",
    "heat.deployed_server": "OS::Heat::DeployedServer",
    "heat.multi_part": "OS::Heat::MultipartMime",
    "heat.software_config": "OS::Heat::SoftwareConfig",
    "heat.software_component": "OS::Heat::SoftwareComponent",
    "neutron.extraroute": "OS::Neutron::ExtraRoute",
    "neutron.floatingip": "OS::Neutron::FloatingIP",
    "neutron.port": "OS::Neutron::Port",
    "neutron.router": "OS::Neutron::Router",
    "neutron.subnet": "OS::Neutron::Subnet",
    "neutron.subnetpool": "OS::Neutron::SubnetPool",
    "nova.server": "OS::Nova::Server",
}


@requires_heat
@pytest.mark.parametrize("module", sorted(NOW_LOADING))
def test_heat_modules_needing_oslo_and_helpers_load(module: str) -> None:
    report = load_heat_plugin(f"heat.engine.resources.openstack.{module}")
    assert report.errors == []
    assert NOW_LOADING[module] in report.mapping
