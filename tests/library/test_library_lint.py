"""The bundled Heat and OpenStack types driven by ``plugsim lint``'s dynamic rules (PS150-PS153)."""

from pathlib import Path

import pytest

import simulator.resources
from sdk.lint.dynamic import drive_class
from simulator.resources import heat, openstack

#: plugsim lint's dynamic rules over every bundled type: the material tier.
pytestmark = pytest.mark.material


def resource_mapping():
    """The bundled Heat and OpenStack types."""
    return {**heat.resource_mapping(), **openstack.resource_mapping()}


#: Types that need other resources, created beside them (``lint_companions``).
NEEDS_COMPANIONS = {
    "OS::Cinder::VolumeAttachment": {"server", "volume"},
    "OS::Neutron::FloatingIPAssociation": {"net", "subnet", "router", "interface", "port", "fip"},
    "OS::Neutron::RouterInterface": {"net", "subnet", "router"},
}


#: Properties whose change shows nothing at the time of the update, by design (each is
#: suppressed on its line with the reason): timing, policies for later actions.
UNOBSERVABLE = {
    "OS::Heat::AutoScalingGroup": ["rolling_updates"],
    "OS::Heat::Delay": ["actions", "jitter_multiplier", "max_jitter", "min_wait"],
    "OS::Heat::ResourceGroup": ["removal_policies", "removal_policies_mode"],
    "OS::Heat::SoftwareDeployment": ["actions"],
    "OS::Heat::SoftwareDeploymentGroup": ["actions"],
    "OS::Heat::SoftwareDeployments": ["actions"],
    "OS::Heat::Stack": ["context", "timeout"],
    "OS::Heat::StructuredDeployment": ["actions"],
    "OS::Heat::StructuredDeploymentGroup": ["actions"],
    "OS::Heat::StructuredDeployments": ["actions"],
    # client_name alone is any text, used only with entity_name (as in Heat 27's TestResource)
    "OS::Heat::TestResource": ["attr_wait_secs", "client_name", "entity_name", "wait_secs"],
    "OS::Heat::Value": ["type"],
    "OS::Neutron::Port": ["replacement_policy"],
    "OS::Nova::Server": ["flavor_update_policy", "image_update_policy", "user_data_update_policy"],
}


@pytest.mark.parametrize("type_name", sorted(resource_mapping()))
def test_every_type_is_created_resolved_and_updated_cleanly(type_name):
    run = drive_class(type_name, resource_mapping()[type_name])
    assert run.skipped is None
    if type_name == "OS::Heat::TestResource":  # fail: true fails the update, as told
        assert [prop for prop, _ in run.notes] == ["fail"]
    elif type_name == "OS::Cinder::VolumeType":  # a null extra spec: cinder refuses it for Heat too
        assert [prop for prop, _ in run.notes] == ["metadata"]
        assert "extra_specs" in run.notes[0][1]
    elif type_name == "OS::Heat::Stack":  # a parameter the remote template lacks: Heat refuses too
        assert [prop for prop, _ in run.notes] == ["parameters"]
        assert "are not defined in the template" in run.notes[0][1]
    else:
        assert run.notes == []
    assert run.ignored_updates == UNOBSERVABLE.get(type_name, [])
    assert not run.no_resource_id
    if type_name == "OS::Neutron::FloatingIP":
        # An unassociated floating IP has no port: None is the true value (as in Heat).
        assert run.unresolved == {
            "fixed_ip_address": "returned None",
            "port_id": "returned None",
        }
    elif type_name == "OS::Cinder::Volume":
        # An empty volume has no source and no description: None, as cinder shows them.
        assert run.unresolved == {
            "display_description": "returned None",
            "snapshot_id": "returned None",
            "source_volid": "returned None",
        }
    else:
        assert run.unresolved == {}


@pytest.mark.parametrize("type_name", sorted(NEEDS_COMPANIONS))
def test_types_linking_other_resources_are_driven_beside_their_companions(type_name):
    cls = resource_mapping()[type_name]
    assert set(cls.lint_companions) == NEEDS_COMPANIONS[type_name]
    without = drive_class(type_name, cls, companions={type_name: {}})
    assert without.skipped is not None and "does not exist in the template" in without.skipped


@pytest.mark.material
def test_the_whole_bundled_library_lints_without_a_finding():
    from sdk.lint import LintConfig, lint_paths

    report = lint_paths([Path(simulator.resources.__file__).parent], config=LintConfig())
    assert [f"{f.path}:{f.line}: {f.rule_id} {f.message}" for f in report.findings] == []


@pytest.mark.parametrize(
    ("type_name", "props"),
    [
        ("OS::Cinder::Volume", {"size": 1}),
        ("OS::Nova::Server", {"image": "cirros", "flavor": "m1.tiny"}),
        ("OS::Neutron::Router", {"external_gateway_info": {"network": "public"}}),
        ("OS::Neutron::Port", {"network": "public", "port_security_enabled": True}),
    ],
)
def test_types_needing_properties_carry_a_working_lint_map(type_name, props):
    assert resource_mapping()[type_name].lint_properties == props
