"""OS::Neutron::Trunk, OS::Neutron::ExtraRouteSet, OS::Cinder::VolumeType and EncryptedVolumeType.

Fixtures shaped like heat-tempest-plugin's test_create_update_neutron_trunk,
test_extra_route_set and test_encryption_vol_type.
"""

from tests.library.conftest import outputs, tmpl


def _ports(n):
    res = {"net": {"type": "OS::Neutron::Net"}}
    for i in range(n):
        res[f"p{i}"] = {
            "type": "OS::Neutron::Port",
            "properties": {"network": {"get_resource": "net"}},
        }
    return res


def _trunk(subs):
    return tmpl(
        {
            **_ports(3),
            "trunk": {
                "type": "OS::Neutron::Trunk",
                "properties": {
                    "port": {"get_resource": "p0"},
                    "sub_ports": [
                        {
                            "port": {"get_resource": p},
                            "segmentation_type": "vlan",
                            "segmentation_id": vid,
                        }
                        for p, vid in subs
                    ],
                },
            },
        },
        outputs={"parent": {"value": {"get_attr": ["trunk", "port_id"]}}},
    )


def test_a_trunk_carries_its_sub_ports_and_an_update_adds_and_removes_them(world):
    stack = world.create_stack("t", _trunk([("p1", 10)]))
    assert stack.status == "COMPLETE", stack.status_reason
    neutron = world.client_plugin("network").client()
    trunk_id = stack.resources["trunk"].resource_id
    assert outputs(stack)["parent"] == stack.resources["p0"].resource_id
    p1, p2 = (stack.resources[p].resource_id for p in ("p1", "p2"))
    subs = neutron.trunk_get_subports(trunk_id)["sub_ports"]
    assert [(s["port_id"], s["segmentation_id"]) for s in subs] == [(p1, 10)]
    stack = world.update_stack("t", _trunk([("p2", 20)]))
    assert stack.status == "COMPLETE", stack.status_reason
    subs = neutron.trunk_get_subports(trunk_id)["sub_ports"]
    assert [(s["port_id"], s["segmentation_id"]) for s in subs] == [(p2, 20)]
    assert world.delete_stack("t").status == "COMPLETE"
    assert world.cloud.leaks(world.baseline) == []


def _routes(routes):
    return tmpl(
        {
            "net": {"type": "OS::Neutron::Net"},
            "subnet": {
                "type": "OS::Neutron::Subnet",
                "properties": {"network": {"get_resource": "net"}, "cidr": "10.0.0.0/24"},
            },
            "router": {"type": "OS::Neutron::Router"},
            "iface": {
                "type": "OS::Neutron::RouterInterface",
                "properties": {
                    "router": {"get_resource": "router"},
                    "subnet": {"get_resource": "subnet"},
                },
            },
            "routes": {
                "type": "OS::Neutron::ExtraRouteSet",
                "depends_on": "iface",
                "properties": {
                    "router": {"get_resource": "router"},
                    "routes": [{"destination": d, "nexthop": n} for d, n in routes],
                },
            },
        }
    )


def test_an_extra_route_set_adds_its_routes_and_takes_only_them_away(world):
    stack = world.create_stack(
        "r", _routes([("10.0.10.0/24", "10.0.0.10"), ("10.0.11.0/24", "10.0.0.11")])
    )
    assert stack.status == "COMPLETE", stack.status_reason
    neutron = world.client_plugin("network").client()
    router = stack.resources["router"].resource_id
    neutron.add_extra_routes_to_router(
        router, {"router": {"routes": [{"destination": "10.0.99.0/24", "nexthop": "10.0.0.99"}]}}
    )

    def routes():
        return sorted(r["destination"] for r in neutron.show_router(router)["router"]["routes"])

    assert routes() == ["10.0.10.0/24", "10.0.11.0/24", "10.0.99.0/24"]
    stack = world.update_stack(
        "r", _routes([("10.0.11.0/24", "10.0.0.11"), ("10.0.12.0/24", "10.0.0.12")])
    )
    assert stack.status == "COMPLETE", stack.status_reason
    assert routes() == ["10.0.11.0/24", "10.0.12.0/24", "10.0.99.0/24"]
    doc = _routes([])
    del doc["resources"]["routes"]
    assert world.update_stack("r", doc).status == "COMPLETE"
    assert routes() == ["10.0.99.0/24"]


def test_an_encrypted_volume_type_is_the_spec_of_its_type(world):
    doc = tmpl(
        {
            "vt": {
                "type": "OS::Cinder::VolumeType",
                "properties": {"name": "LUKS", "metadata": {"k": "v"}},
            },
            "enc": {
                "type": "OS::Cinder::EncryptedVolumeType",
                "properties": {
                    "provider": "nova.volume.encryptors.luks.LuksEncryptor",
                    "control_location": "front-end",
                    "cipher": "aes-xts-plain64",
                    "key_size": 512,
                    "volume_type": {"get_resource": "vt"},
                },
            },
        }
    )
    stack = world.create_stack("v", doc)
    assert stack.status == "COMPLETE", stack.status_reason
    cinder = world.client_plugin("block_storage").client()
    vt = stack.resources["vt"].resource_id
    assert stack.resources["enc"].resource_id == vt
    spec = cinder.volume_encryption_types.get(vt)
    assert (spec.key_size, spec.cipher, spec.control_location) == (
        512,
        "aes-xts-plain64",
        "front-end",
    )
    assert cinder.volume_types.get(vt).get_keys() == {"k": "v"}
    assert world.delete_stack("v").status == "COMPLETE"
    assert world.cloud.leaks(world.baseline) == []


def test_a_private_volume_types_projects_change_in_place(world):
    """Heat 27 updates ``projects`` in place: access is given to the new, taken from the dropped."""

    def doc(projects):
        props = {"name": "priv", "is_public": False, "projects": projects}
        return tmpl({"vt": {"type": "OS::Cinder::VolumeType", "properties": props}})

    stack = world.create_stack("v", doc(["p1", "p2"]))
    assert stack.status == "COMPLETE", stack.status_reason
    vt = stack.resources["vt"].resource_id
    cinder = world.client_plugin("block_storage").client()

    def access():
        return sorted(a.project_id for a in cinder.volume_type_access.list(vt))

    assert access() == ["p1", "p2"]
    stack = world.update_stack("v", doc(["p2", "p3"]))
    assert stack.status == "COMPLETE", stack.status_reason
    assert stack.resources["vt"].resource_id == vt
    assert access() == ["p2", "p3"]
    assert world.delete_stack("v").status == "COMPLETE"
    assert world.cloud.leaks(world.baseline) == []
