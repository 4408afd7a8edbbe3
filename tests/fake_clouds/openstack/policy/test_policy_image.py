"""Glance's default policies: private images are their owner's, public ones seen by all and changed by their owner."""

from __future__ import annotations


def _forbidden(status, body, action):
    assert status == 403, body
    assert body == {
        "code": 403,
        "title": "Forbidden",
        "message": f"You are not authorized to complete {action} action.",
    }


def _image(user, **attrs):
    status, body = user.call(
        "image", "POST", "/v2/images", {"disk_format": "raw", "container_format": "bare", **attrs}
    )
    assert status == 201, body
    return body["id"]


def test_a_private_image_of_another_project_is_not_found(alice, bob):
    iid = _image(bob, name="bobs", visibility="private")
    missing = "0c0ffee0-0000-4000-8000-000000000000"
    for method in ("GET", "DELETE"):
        status, answer = alice.call("image", method, f"/v2/images/{iid}")
        status_missing, answer_missing = alice.call("image", method, f"/v2/images/{missing}")
        assert status == status_missing == 404, answer
        assert str(answer).replace(iid, "X") == str(answer_missing).replace(missing, "X")
    status, body = alice.call("image", "GET", "/v2/images")
    assert iid not in [i["id"] for i in body["images"]]
    status, body = bob.call("image", "GET", f"/v2/images/{iid}")
    assert status == 200 and body["owner"] == bob.project_id


def test_a_public_image_is_seen_by_all_and_changed_by_its_owner(alice, admin):
    iid = _image(admin, name="golden", visibility="public")
    status, _ = alice.call("image", "GET", f"/v2/images/{iid}")
    assert status == 200
    patch = [{"op": "replace", "path": "/name", "value": "mine"}]
    status, body = alice.call(
        "image",
        "PATCH",
        f"/v2/images/{iid}",
        patch,
        headers={"Content-Type": "application/openstack-images-v2.1-json-patch"},
    )
    _forbidden(status, body, "modify_image")
    _forbidden(*alice.call("image", "DELETE", f"/v2/images/{iid}"), "delete_image")


def test_publicizing_is_the_admins(alice):
    status, body = alice.call(
        "image",
        "POST",
        "/v2/images",
        {"name": "p", "visibility": "public", "disk_format": "raw", "container_format": "bare"},
    )
    _forbidden(status, body, "publicize_image")
    own = _image(alice, name="own", visibility="private")
    patch = [{"op": "replace", "path": "/visibility", "value": "public"}]
    status, body = alice.call(
        "image",
        "PATCH",
        f"/v2/images/{own}",
        patch,
        headers={"Content-Type": "application/openstack-images-v2.1-json-patch"},
    )
    _forbidden(status, body, "publicize_image")


def test_a_shared_image_is_seen_by_its_members(alice, bob):
    iid = _image(bob, name="for-alpha", visibility="shared")
    status, _ = alice.call("image", "GET", f"/v2/images/{iid}")
    assert status == 404
    status, _ = bob.call("image", "POST", f"/v2/images/{iid}/members", {"member": alice.project_id})
    assert status == 200
    status, body = alice.call("image", "GET", f"/v2/images/{iid}")
    assert status == 200 and body["name"] == "for-alpha"
