"""Image v2 on the wire: openstacksdk registers, uploads, tags and deletes images."""

from __future__ import annotations

import pytest
import requests

openstack = pytest.importorskip("openstack")


def test_openstacksdk_image_upload_state_machine(openstack_connection, fake_cloud):
    image_api = openstack_connection.image
    image = image_api.create_image(
        name="mine",
        data=b"x" * 1024,
        disk_format="qcow2",
        container_format="bare",
        wait=True,
        timeout=600,
    )
    image = (
        image_api.wait_for_status(image, status="active", wait=600)
        if image.status != "active"
        else image
    )
    shown = image_api.get_image(image.id)
    assert (shown.status, shown.size) == ("active", 1024)
    assert "mine" in [i.name for i in image_api.images()]
    # nova boots the image glance registered: it is the compute service's entity
    assert fake_cloud.client("nova").images.get(image.id).status == "active"
    image_api.add_tag(image, "golden")
    assert image_api.get_image(image.id).tags == ["golden"]
    image_api.delete_image(image)
    assert "mine" not in [i.name for i in image_api.images()]


def test_preseeded_images_are_listed(openstack_connection):
    names = [i.name for i in openstack_connection.image.images()]
    assert {"cirros", "fedora", "ubuntu"} <= set(names)


def test_patch_with_bad_body_is_glance_400(wire, token, world):
    image = next(i for i in world.service("compute").list_images() if i["name"] == "cirros")
    r = requests.patch(
        f"{wire.base_url}/image/v2/images/{image['id']}",
        data=b'{"op": "x"}',
        headers={
            "X-Auth-Token": token,
            "Content-Type": "application/openstack-images-v2.1-json-patch",
        },
    )
    assert r.status_code == 400
    assert "JSON-patch" in r.json()["message"]
    assert wire.bugs() == []


def test_openstacksdk_shares_an_image_with_a_project(openstack_connection, fake_cloud):
    image_api = openstack_connection.image
    image = image_api.create_image(
        name="shared-one",
        data=b"0",
        disk_format="raw",
        container_format="bare",
        visibility="shared",
    )
    member = image_api.add_member(image=image, member="project-b")
    assert (member.member_id, member.status) == ("project-b", "pending")
    assert [m.member_id for m in image_api.members(image=image)] == ["project-b"]
    accepted = image_api.update_member(image=image, member="project-b", status="accepted")
    assert accepted.status == "accepted"
    # the membership is the world's state, seen by the compute service too
    compute = fake_cloud.service("compute")
    assert compute.get_image_member(image.id, "project-b")["status"] == "accepted"
    with pytest.raises(openstack.exceptions.ConflictException):
        image_api.add_member(image=image, member="project-b")
    with pytest.raises(openstack.exceptions.BadRequestException, match="Invalid status"):
        image_api.update_member(image=image, member="project-b", status="maybe")
    image_api.remove_member(image=image, member="project-b")
    with pytest.raises(openstack.exceptions.NotFoundException):
        image_api.get_member(image=image, member="project-b")


def test_a_private_image_takes_no_members(openstack_connection):
    image_api = openstack_connection.image
    image = image_api.create_image(
        name="private-one",
        data=b"0",
        disk_format="raw",
        container_format="bare",
        visibility="private",
    )
    with pytest.raises(openstack.exceptions.ForbiddenException, match="not shared"):
        image_api.add_member(image=image, member="project-b")


def test_glance_schemas_describe_the_entities(openstack_connection):
    image_api = openstack_connection.image
    assert "status" in image_api.get_member_schema().properties
    assert "members" in image_api.get_members_schema().properties
    namespace = image_api.get_metadef_namespace_schema()
    assert namespace.required == ["namespace"]
    tags = image_api.get_metadef_tags_schema()
    assert tags.properties["tags"]["items"]["properties"]["name"] == {"type": "string"}
