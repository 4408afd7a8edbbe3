"""A rotated credential on the wire: the old token is refused, a keystoneauth session re-authenticates."""

from __future__ import annotations

import requests

from fake_clouds.core.drift import rotate_credentials


def test_the_old_token_is_refused_and_the_session_gets_a_new_one(session, wire, world, token):
    url = f"{wire.base_url}/compute/v2.1/servers"
    assert requests.get(url, headers={"X-Auth-Token": token}).status_code == 200
    rotate_credentials(world)
    assert requests.get(url, headers={"X-Auth-Token": token}).status_code == 401
    response = session.get(url)  # keystoneauth re-authenticates on the 401
    assert response.status_code == 200
    assert session.get_token() != token
