"""Nova flavors on the wire: create, update, delete, extra specs and project access."""

from __future__ import annotations

import pytest

openstack = pytest.importorskip("openstack")


def test_openstacksdk_flavor_lifecycle_is_the_compute_services(openstack_connection, fake_cloud):
    compute = openstack_connection.compute
    public = compute.create_flavor(name="pub", ram=1024, vcpus=2, disk=10, is_public=True)
    private = compute.create_flavor(name="priv", ram=128, vcpus=1, disk=0, is_public=False)
    names = {f.name for f in compute.flavors()}
    assert {"pub", "priv", "m1.small"} <= names
    assert compute.find_flavor("pub", ignore_missing=False).id == public.id
    compute.update_flavor(public, description="updated")
    assert compute.get_flavor(public.id).description == "updated"
    # the engine's nova client sees the flavor the wire created
    assert fake_cloud.client("nova").flavors.get(private.id).ram == 128
    compute.delete_flavor(private)
    assert "priv" not in {f.name for f in compute.flavors()}
    with pytest.raises(openstack.exceptions.NotFoundException):
        compute.get_flavor(private.id)


def test_flavor_extra_specs_are_set_read_and_removed(openstack_connection):
    compute = openstack_connection.compute
    flavor = compute.create_flavor(name="specs", ram=128, vcpus=1, disk=0)
    compute.create_flavor_extra_specs(flavor, extra_specs={"a": "b"})
    assert compute.fetch_flavor_extra_specs(flavor).extra_specs == {"a": "b"}
    compute.update_flavor_extra_specs_property(flavor, "c", "d")
    assert compute.get_flavor_extra_specs_property(flavor, "c") == "d"
    compute.delete_flavor_extra_specs_property(flavor, "c")
    assert compute.fetch_flavor_extra_specs(flavor).extra_specs == {"a": "b"}
    gone = compute.delete(f"/flavors/{flavor.id}/os-extra_specs/c")
    assert gone.status_code == 404
    assert "no extra specs with key c" in gone.json()["itemNotFound"]["message"]


def test_bad_flavors_are_nova_errors(openstack_connection):
    compute = openstack_connection.compute
    compute.create_flavor(name="once", ram=128, vcpus=1, disk=0)
    with pytest.raises(openstack.exceptions.ConflictException, match="already exists"):
        compute.create_flavor(name="once", ram=128, vcpus=1, disk=0)
    with pytest.raises(openstack.exceptions.BadRequestException, match="ram"):
        compute.create_flavor(name="neg", ram=-1, vcpus=1, disk=0)


def _demo_connection(admin):
    """A second connection as a non-admin member of a new project ``demo``."""
    identity = admin.identity
    project = identity.create_project(name="demo", domain_id="default")
    user = identity.create_user(
        name="demo", password="secret", default_project_id=project.id, domain_id="default"
    )
    member = identity.find_role("member", ignore_missing=False)
    identity.assign_project_role_to_user(project, user, member)
    demo = openstack.connection.Connection(
        auth_url=admin.plugsim_wire.auth_url,
        username="demo",
        password="secret",
        project_name="demo",
        user_domain_id="default",
        project_domain_id="default",
    )
    return demo, project


def test_private_flavor_is_seen_only_by_projects_given_access(openstack_connection):
    admin = openstack_connection
    demo, project = _demo_connection(admin)
    flavor = admin.compute.create_flavor(name="secret", ram=128, vcpus=1, disk=0, is_public=False)
    assert demo.compute.find_flavor("secret", ignore_missing=True) is None
    assert "secret" not in {f.name for f in demo.compute.flavors()}
    admin.compute.flavor_add_tenant_access(flavor.id, project.id)
    assert demo.compute.find_flavor("secret", ignore_missing=False).id == flavor.id
    assert [a["tenant_id"] for a in admin.compute.get_flavor_access(flavor)] == [project.id]
    admin.compute.flavor_remove_tenant_access(flavor.id, project.id)
    assert demo.compute.find_flavor("secret", ignore_missing=True) is None
    public = admin.compute.find_flavor("m1.small", ignore_missing=False)
    with pytest.raises(openstack.exceptions.ConflictException, match="public flavor"):
        admin.compute.flavor_add_tenant_access(public.id, project.id)


def test_novaclient_creates_keys_and_deletes_a_flavor(session, world):
    from novaclient import client as nova_client

    nova = nova_client.Client("2.55", session=session)
    flavor = nova.flavors.create("nc-flavor", 256, 1, 1, description="from novaclient")
    flavor.set_keys({"hw:cpu_policy": "dedicated"})
    assert nova.flavors.get(flavor.id).get_keys() == {"hw:cpu_policy": "dedicated"}
    assert world.service("compute").get_flavor(flavor.id)["extra_specs"] == {
        "hw:cpu_policy": "dedicated"
    }
    nova.flavors.delete(flavor.id)
    assert "nc-flavor" not in [f.name for f in nova.flavors.list()]
