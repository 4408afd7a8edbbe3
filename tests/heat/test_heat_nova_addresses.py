"""Heat's nova client plug-in surface answers ``server_to_ipaddress`` (AWS Instance's PublicIp)."""

from __future__ import annotations

from fake_clouds import FakeCloud
from simulator.heat_compat.resource import heat_client_plugin


def test_server_to_ipaddress_gives_the_first_address_of_the_last_network_by_name() -> None:
    cloud = FakeCloud(seed=3)
    nova = heat_client_plugin(cloud.client_plugin("nova"), "nova")
    net = next(
        n for n in cloud.client("neutron").list_networks()["networks"] if n["name"] == "public"
    )
    server = cloud.client("nova").servers.create(
        name="web", image="cirros", flavor="m1.tiny", nics=[{"net-id": net["id"]}]
    )
    addresses = cloud.client("nova").servers.get(server.id).addresses
    assert list(addresses) == ["public"]
    assert nova.server_to_ipaddress(server.id) == addresses["public"][0]["addr"]
    assert nova.server_to_ipaddress("no-such-server") is None


def test_console_urls_read_novas_refusal_per_type_as_heat_shows_it() -> None:
    cloud = FakeCloud(seed=3)
    nova = heat_client_plugin(cloud.client_plugin("nova"), "nova")
    server = cloud.client("nova").servers.create(name="web", image="cirros", flavor="m1.tiny")
    urls = nova.get_console_urls(server.id)
    assert list(urls) == ["novnc", "xvpvnc", "spice-html5", "rdp-html5", "serial", "webmks"]
    assert urls["novnc"] == "Cannot get console url: Unavailable console type novnc."
    assert urls["telnet"] == "Unsupported console_type 'telnet'"
    assert nova.get_console_urls("gone")["serial"].startswith("Cannot get console url: ")


def test_tag_list_answers_for_a_server_nova_made() -> None:
    """Heat's Server reads its ``tags`` attribute with ``servers.tag_list`` (2.26)."""
    import pytest

    from sdk import exception

    cloud = FakeCloud(seed=3)
    nova = heat_client_plugin(cloud.client_plugin("nova"), "nova")
    server = cloud.client("nova").servers.create(name="web", image="cirros", flavor="m1.tiny")
    assert nova.client().servers.tag_list(server) == []
    with pytest.raises(exception.NotFound):
        nova.client().servers.tag_list("no-such-server")
