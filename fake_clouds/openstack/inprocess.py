"""Serving the OpenStack wire in-process: ``requests`` calls answered by the WSGI app.

:func:`serve_openstack` mounts :class:`~fake_clouds.openstack.app.WireApp` at
its base URL with the one in-process adapter every provider API uses
(:mod:`fake_clouds.rest.mount`), so keystoneauth1, openstacksdk
and the python-*clients run unmodified without a socket. A timeout fault
(the app's 504 marked ``X-Plugsim-Timeout``) becomes ``requests``'
``ConnectTimeout`` (nothing happened) or ``ReadTimeout`` (it happened).
:func:`clouds_yaml` writes the ``clouds.yaml`` entry clients read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import responses
import yaml

from fake_clouds.identity import ADMIN_PASSWORD
from fake_clouds.openstack.app import DEFAULT_BASE_URL, REGION, WireApp
from fake_clouds.rest.mount import call_wsgi, mount


def call_app(app: WireApp, method: str, url: str, headers: Any, body: Any) -> Any:
    """Run one request through *app*; return ``(status, headers, body)`` or an exception."""
    return call_wsgi(app, app.base_url, method, url, headers, body)


def register(app: WireApp, mock: responses.RequestsMock) -> None:
    """Add callbacks answering every method under *app*'s base URL to *mock*."""
    mount(mock, app, app.base_url, pattern=re.compile(re.escape(app.base_url) + r"(/.*)?$"))


@contextmanager
def serve_openstack(
    cloud: Any, base_url: str = DEFAULT_BASE_URL, *, mock: responses.RequestsMock | None = None
) -> Iterator[WireApp]:
    """Serve *cloud*'s OpenStack APIs to ``requests`` for the duration of a ``with`` block.

    With *mock* given the callbacks are added to it and the caller activates it.
    """
    app = WireApp(cloud, base_url)
    if mock is not None:
        register(app, mock)
        yield app
        return
    with responses.RequestsMock(assert_all_requests_are_fired=False) as own:
        register(app, own)
        yield app


def cloud_config(
    auth_url: str,
    *,
    names: tuple[str, ...] = ("plugsim",),
    users: dict[str, tuple[str, str, str]] | None = None,
) -> dict[str, Any]:
    """Return the ``clouds.yaml`` document for *auth_url*, one cloud per name.

    A cloud named in *users* logs in as ``(user, project, password)``; every other
    one is the bootstrap admin (``admin`` in project ``admin``).
    """
    clouds = {}
    for name in names:
        user, project, password = (users or {}).get(name, ("admin", "admin", ADMIN_PASSWORD))
        clouds[name] = {
            "auth": {
                "auth_url": auth_url,
                "username": user,
                "password": password,
                "project_name": project,
                "user_domain_id": "default",
                "project_domain_id": "default",
            },
            "region_name": REGION,
            "identity_api_version": "3",
            "interface": "public",
        }
    return {"clouds": clouds}


def clouds_yaml(
    path: str | Path,
    auth_url: str,
    *,
    names: tuple[str, ...] = ("plugsim",),
    users: dict[str, tuple[str, str, str]] | None = None,
) -> Path:
    """Write a ``clouds.yaml`` for *auth_url* (see :func:`cloud_config`) to *path*; return it."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    document = cloud_config(auth_url, names=names, users=users)
    target.write_text(yaml.safe_dump(document, sort_keys=True))
    return target
