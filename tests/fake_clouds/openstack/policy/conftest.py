"""A world of two projects served in-process, and one session per user.

``alice`` is a member of ``alpha``, ``bob`` a member of ``beta``, ``carol`` a reader of
``alpha``; ``admin`` is the bootstrap admin (project ``admin``). :func:`call` answers
with the status and the decoded body, never raising.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fake_clouds import worldfile
from fake_clouds.openstack import serve_openstack

pytest.importorskip("keystoneauth1")

WORLD = Path(__file__).with_name("two_projects.yaml")
PASSWORDS = {"carol": "carol-secret"}
PROJECTS = {"alice": "alpha", "bob": "beta", "carol": "alpha", "admin": "admin"}


@pytest.fixture
def wire():
    """The two-project world's OpenStack APIs, served to ``requests`` in-process."""
    cloud = worldfile.build(str(WORLD), seed=5)
    with serve_openstack(cloud) as app:
        yield app


class User:
    """One logged-in user: a keystoneauth session and its ids."""

    def __init__(self, wire: Any, name: str) -> None:
        from keystoneauth1 import session as ks_session
        from keystoneauth1.identity import v3

        auth = v3.Password(
            auth_url=wire.auth_url,
            username=name,
            password=PASSWORDS.get(name, "plugsim"),
            project_name=PROJECTS[name],
            user_domain_id="default",
            project_domain_id="default",
        )
        self.session = ks_session.Session(auth=auth)
        self.name = name
        self.user_id = self.session.get_user_id()
        self.project_id = self.session.get_project_id()

    def call(
        self, service: str, method: str, path: str, body: Any = None, **kw: Any
    ) -> tuple[int, Any]:
        """``method path`` on *service* (a catalog type); return (status, decoded body)."""
        headers = kw.pop("headers", {})
        response = self.session.request(
            path,
            method,
            endpoint_filter={"service_type": service, "interface": "public"},
            json=body,
            headers=headers,
            raise_exc=False,
            **kw,
        )
        try:
            decoded: Any = response.json()
        except ValueError:
            decoded = response.text
        return response.status_code, decoded


@pytest.fixture
def alice(wire) -> User:
    """A member of project alpha."""
    return User(wire, "alice")


@pytest.fixture
def bob(wire) -> User:
    """A member of project beta."""
    return User(wire, "bob")


@pytest.fixture
def carol(wire) -> User:
    """A reader of project alpha."""
    return User(wire, "carol")


@pytest.fixture
def admin(wire) -> User:
    """The bootstrap admin (admin role on project admin)."""
    return User(wire, "admin")


def dumps(body: Any) -> str:
    """A body as text, for assertion messages."""
    return json.dumps(body, sort_keys=True) if not isinstance(body, str) else body
