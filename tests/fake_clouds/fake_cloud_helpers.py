"""Helpers shared by the fake cloud tests."""

from __future__ import annotations


def public_net(cloud) -> str:
    """Return the id of the pre-seeded external network."""
    return cloud.client("neutron").list_networks(name="public")["networks"][0]["id"]


def active_server(cloud, name: str = "web", **kwargs):
    """Create a server and advance the clock until it is ACTIVE."""
    nova = cloud.client("nova")
    server = nova.servers.create(name=name, image="cirros", flavor="m1.tiny", **kwargs)
    cloud.clock.advance(200)
    assert nova.servers.get(server.id).status == "ACTIVE"
    return server
