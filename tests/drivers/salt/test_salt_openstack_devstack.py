"""Salt's openstack driver from its docstring's providers file, against a DevStack world.

``auth_url: http://HOST/identity`` (no ``/v3``), ``user_domain_name: default``
in lower case, no ``networks`` in the profile: Nova puts the server on the
project's one network, shade's ``auto_ip`` gives it a floating IP from
``public`` and Nova shows it in the server's addresses. Skipped, with the
reason, without Salt or shade.
"""

from __future__ import annotations

import pytest

from simulator.drivers import DriverHarness
from simulator.drivers import salt_mode as sm
from simulator.world import World

pytestmark = pytest.mark.skipif(
    not sm.salt_available(), reason=f"needs Salt: {sm.salt_unavailable_reason()}"
)
pytest.importorskip("shade", reason="Salt's openstack driver needs shade (plugsim[salt])")

PROVIDERS = {
    "myopenstack": {
        "driver": "openstack",
        "region_name": "RegionOne",
        "auth": {
            "username": "demo",
            "password": "plugsim",  # the devstack world's password for its users
            "project_name": "demo",
            "user_domain_name": "default",
            "project_domain_name": "default",
            "auth_url": "http://openstack/identity",
        },
    }
}


def test_the_docstrings_provider_on_devstack(tmp_path) -> None:
    key = tmp_path / "id_rsa"
    key.write_text("not a real key\n")
    profiles = {
        "cirros": {
            "provider": "myopenstack",
            "image": "cirros-0.6.3-x86_64-disk",
            "size": "ds1G",
            "ssh_key_name": "mykey",
            "ssh_key_file": str(key),
            "ssh_interface": "floating_ips",  # DevStack's public range is private
        }
    }
    world = World(world_file="devstack", transient=True)
    h = DriverHarness(PROVIDERS, profiles, salt_mode=True, cloud=world.cloud)
    node = h.create("cirros", "web1")
    assert node["deployed"] is True
    listed = h.query("list_nodes")["myopenstack"]["openstack"]["web1"]
    assert listed["fixed_ips"][0].startswith("10.0.0.")  # the project's network, not asked for
    assert listed["floating_ips"][0].startswith("172.24.4.")
    assert node["host"] == listed["floating_ips"][0]
    assert "web1" in h.query("list_nodes_full")["myopenstack"]["openstack"]
    assert h.action("show_instance", "web1")["myopenstack"]["openstack"]["web1"]["name"] == "web1"
    assert h.destroy("web1") == {"myopenstack": {"openstack": {"web1": True}}}
    h.clock.advance(300)
    assert h.query("list_nodes")["myopenstack"]["openstack"] == {}
    # Salt's destroy calls shade's delete_server without delete_ips: the floating IP stays,
    # as it would on DevStack
    assert [i.kind for i in h.cloud.leaks()] == ["floatingip"]
