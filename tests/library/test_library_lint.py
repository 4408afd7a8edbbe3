"""The bundled OpenStack types driven by ``plugsim lint``'s dynamic rules (PS150-PS153)."""

import pytest

from sdk.lint.dynamic import drive_class
from simulator.resources.openstack import resource_mapping

#: Types that need an entity the default world does not hold (a server, a port, a router):
#: no property map can name one, so the dynamic checks are skipped, and say so.
NEEDS_A_PREREQUISITE = {
    "OS::Cinder::VolumeAttachment": "volume_id: custom constraint cinder.volume",
    "OS::Neutron::FloatingIPAssociation": "port_id: custom constraint neutron.port",
    "OS::Neutron::RouterInterface": "router: custom constraint neutron.router",
}

DRIVABLE = sorted(set(resource_mapping()) - set(NEEDS_A_PREREQUISITE))


@pytest.mark.parametrize("type_name", DRIVABLE)
def test_every_drivable_type_is_created_resolved_and_updated_cleanly(type_name):
    run = drive_class(type_name, resource_mapping()[type_name])
    assert run.skipped is None
    assert run.notes == []
    assert run.ignored_updates == []
    assert not run.no_resource_id
    if type_name == "OS::Neutron::FloatingIP":
        # An unassociated floating IP has no port: None is the true value (as in Heat).
        assert run.unresolved == {
            "fixed_ip_address": "returned None",
            "port_id": "returned None",
        }
    else:
        assert run.unresolved == {}


@pytest.mark.parametrize("type_name", sorted(NEEDS_A_PREREQUISITE))
def test_types_needing_a_prerequisite_are_skipped_with_the_reason(type_name):
    run = drive_class(type_name, resource_mapping()[type_name])
    assert run.skipped == (
        f"no property map can be generated (property {NEEDS_A_PREREQUISITE[type_name]} "
        "cannot be satisfied without a cloud)"
    )


@pytest.mark.parametrize(
    ("type_name", "props"),
    [
        ("OS::Cinder::Volume", {"size": 1}),
        ("OS::Nova::Server", {"image": "cirros", "flavor": "m1.tiny"}),
        ("OS::Neutron::Router", {"external_gateway_info": {"network": "public"}}),
        ("OS::Neutron::Port", {"network": "public"}),
    ],
)
def test_types_needing_properties_carry_a_working_lint_map(type_name, props):
    assert resource_mapping()[type_name].lint_properties == props
