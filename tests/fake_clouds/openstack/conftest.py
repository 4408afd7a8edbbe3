"""Fixtures of the OpenStack wire tests: a world served in-process, a keystoneauth session."""

from __future__ import annotations

import pytest

from fake_clouds import FakeCloud
from fake_clouds.openstack import serve_openstack

pytest.importorskip("keystoneauth1")


@pytest.fixture
def world() -> FakeCloud:
    """A fresh default world (seed 11, no faults)."""
    return FakeCloud(seed=11)


@pytest.fixture
def wire(world):
    """The world's OpenStack APIs served to ``requests`` in-process."""
    with serve_openstack(world) as app:
        yield app


@pytest.fixture
def session(wire):
    """A keystoneauth1 session authenticated as the bootstrap admin."""
    from keystoneauth1 import session as ks_session
    from keystoneauth1.identity import v3

    auth = v3.Password(
        auth_url=wire.auth_url,
        username="admin",
        password="plugsim",
        project_name="admin",
        user_domain_id="default",
        project_domain_id="default",
    )
    return ks_session.Session(auth=auth)


@pytest.fixture
def token(session) -> str:
    """A valid token of the admin session."""
    return session.get_token()
