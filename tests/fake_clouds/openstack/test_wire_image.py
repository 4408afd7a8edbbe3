"""Image v2 on the wire: openstacksdk registers, uploads, tags and deletes images."""

from __future__ import annotations

import pytest
import requests

pytest.importorskip("openstack")


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
