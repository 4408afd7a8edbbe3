"""Swift with keystoneauth: an account is its project's; other accounts are refused, even to admins."""

from __future__ import annotations

FORBIDDEN = "<html><h1>Forbidden</h1><p>Access was denied to this resource.</p></html>"


def _at(user, wire, account, tail=""):
    return f"{wire.base_url}/object-store/v1/AUTH_{account}{tail}"


def test_another_projects_account_is_forbidden(alice, bob, admin, wire):
    status, _ = bob.call("object-store", "PUT", "/bobs")
    assert status == 201
    status, _ = bob.call("object-store", "PUT", "/bobs/secret.txt", data=b"s3cret")
    assert status == 201
    for user in (alice, admin):
        for method, tail in (
            ("GET", ""),
            ("GET", "/bobs"),
            ("GET", "/bobs/secret.txt"),
            ("DELETE", "/bobs/secret.txt"),
            ("PUT", "/bobs/x"),
            ("HEAD", "/bobs"),
        ):
            response = user.session.request(
                _at(user, wire, bob.project_id, tail), method, raise_exc=False
            )
            assert response.status_code == 403, (user.name, method, tail)
            if method != "HEAD":
                assert response.text == FORBIDDEN
    response = bob.session.get(_at(bob, wire, bob.project_id, "/bobs/secret.txt"), raise_exc=False)
    assert response.status_code == 200 and response.content == b"s3cret"


def test_a_container_of_another_account_is_not_in_ones_own(alice, bob, wire):
    bob.call("object-store", "PUT", "/bobs")
    response = alice.session.get(_at(alice, wire, alice.project_id, "/bobs"), raise_exc=False)
    assert response.status_code == 404
    status, body = alice.call("object-store", "GET", "/?format=json")
    assert status == 200 and body == []
    # the fake keeps one namespace of container names: taking another account's is a 409
    status, body = alice.call("object-store", "PUT", "/bobs")
    assert status == 409
