"""Fixtures of the REST dialect tests: a served world and authenticated sessions."""

from __future__ import annotations

import pytest
import requests

from fake_clouds import FakeCloud
from fake_clouds.rest import serve


@pytest.fixture
def world() -> FakeCloud:
    """A fresh default world (seed 11)."""
    return FakeCloud(seed=11)


@pytest.fixture
def server(world):
    """Every dialect of ``world`` served for the test."""
    with serve(world) as rest:
        yield rest


def session(rest, dialect: str) -> requests.Session:
    """Return a requests session carrying *dialect*'s auth headers."""
    s = requests.Session()
    s.headers.update(rest.headers(dialect))
    return s


@pytest.fixture
def do(server):
    """(base URL, session) for DigitalOcean."""
    return server.base_url("digitalocean"), session(server, "digitalocean")


@pytest.fixture
def linode(server):
    """(base URL, session) for Linode."""
    return server.base_url("linode"), session(server, "linode")


@pytest.fixture
def osc(server):
    """(base URL, session) for the OpenStack wire's compute service at its old nova URL."""
    return server.base_url("openstack"), session(server, "openstack")
