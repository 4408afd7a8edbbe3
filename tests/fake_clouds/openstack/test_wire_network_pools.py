"""Neutron subnet pools and address scopes on the wire: allocation from a pool, in-use 409s."""

from __future__ import annotations

import pytest

openstack = pytest.importorskip("openstack")


def test_openstacksdk_subnet_pool_lifecycle_and_allocation(openstack_connection, fake_cloud):
    net = openstack_connection.network
    pool = net.create_subnet_pool(
        name="pool",
        min_prefixlen=8,
        default_prefixlen=24,
        max_prefixlen=32,
        default_quota=24,
        prefixes=["10.100.0.0/24", "10.101.0.0/24"],
    )
    shown = net.get_subnet_pool(pool.id)
    assert (shown.minimum_prefix_length, shown.default_prefix_length) == (8, 24)
    assert (shown.maximum_prefix_length, shown.ip_version) == (32, 4)
    assert shown.prefixes == ["10.100.0.0/24", "10.101.0.0/24"]
    assert net.find_subnet_pool("pool", ignore_missing=False).id == pool.id
    network = net.create_network(name="n")
    first = net.create_subnet(
        network_id=network.id, ip_version=4, prefixlen=28, subnetpool_id=pool.id
    )
    second = net.create_subnet(
        network_id=network.id, ip_version=4, prefixlen=28, subnetpool_id=pool.id
    )
    assert (first.cidr, second.cidr) == ("10.100.0.0/28", "10.100.0.16/28")
    # the subnets are the network service's entities
    stored = fake_cloud.service("network").get_subnet(first.id)
    assert (stored["cidr"], stored["subnetpool_id"]) == ("10.100.0.0/28", pool.id)
    with pytest.raises(openstack.exceptions.ConflictException, match="allocated from it"):
        net.delete_subnet_pool(pool)
    assert net.update_subnet_pool(pool, name="renamed").name == "renamed"
    net.delete_subnet(first)
    net.delete_subnet(second)
    net.delete_subnet_pool(pool)
    assert "renamed" not in [p.name for p in net.subnet_pools()]


def test_a_full_pool_is_a_neutron_conflict(openstack_connection):
    net = openstack_connection.network
    pool = net.create_subnet_pool(name="tiny", prefixes=["192.168.7.0/27"], min_prefixlen=28)
    network = net.create_network(name="n2")
    for _ in range(2):
        net.create_subnet(network_id=network.id, ip_version=4, subnetpool_id=pool.id)
    with pytest.raises(openstack.exceptions.ConflictException, match="insufficient prefix"):
        net.create_subnet(network_id=network.id, ip_version=4, subnetpool_id=pool.id)
    with pytest.raises(openstack.exceptions.BadRequestException, match="outside the pool"):
        net.create_subnet(network_id=network.id, ip_version=4, subnetpool_id=pool.id, prefixlen=24)


def test_address_scope_lifecycle_and_its_pools(openstack_connection):
    net = openstack_connection.network
    scope = net.create_address_scope(name="scope", ip_version=4, shared=False)
    assert net.get_address_scope(scope.id).ip_version == 4
    assert net.update_address_scope(scope, name="scope2").name == "scope2"
    pool = net.create_subnet_pool(
        name="scoped", prefixes=["10.9.0.0/16"], address_scope_id=scope.id
    )
    with pytest.raises(openstack.exceptions.BadRequestException, match="IPv4"):
        net.create_subnet_pool(name="v6", prefixes=["fd00::/48"], address_scope_id=scope.id)
    with pytest.raises(openstack.exceptions.ConflictException, match="belong to it"):
        net.delete_address_scope(scope)
    net.delete_subnet_pool(pool)
    net.delete_address_scope(scope)
    assert list(net.address_scopes()) == []
