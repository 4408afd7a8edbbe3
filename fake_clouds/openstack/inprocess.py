"""Serving the OpenStack wire in-process: ``requests`` calls answered by the WSGI app.

:func:`serve_openstack` registers one ``responses`` callback per method on the
app's base URL; each request is turned into a WSGI environ and run through
:class:`~fake_clouds.openstack.app.WireApp`, so keystoneauth1, openstacksdk
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

import requests
import responses
import yaml
from werkzeug.test import EnvironBuilder, run_wsgi_app

from fake_clouds.identity import ADMIN_PASSWORD
from fake_clouds.openstack.app import DEFAULT_BASE_URL, REGION, WireApp

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD")


def _text(value: Any) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)


def call_app(app: WireApp, method: str, url: str, headers: Any, body: Any) -> Any:
    """Run one request through *app*; return ``(status, headers, body)`` or an exception."""
    if isinstance(body, str):
        body = body.encode("utf-8")
    elif body is not None and not isinstance(body, bytes):
        body = b"".join(body)  # a generator or file upload (swift, glance)
    # The body is whole here: a chunked upload's framing header would make werkzeug read nothing.
    # Header names and values may be bytes (swiftclient encodes them): they go on the wire as is.
    plain = {
        _text(k): _text(v)
        for k, v in dict(headers or {}).items()
        if _text(k).lower() != "transfer-encoding"
    }
    builder = EnvironBuilder(
        path=url[len(app.base_url) :] or "/",
        base_url=app.base_url,
        method=method,
        headers=list(plain.items()),
        data=body or b"",
    )
    try:
        environ = builder.get_environ()
    finally:
        builder.close()
    # the query string survives only through the path; keep the original
    environ["QUERY_STRING"] = url.split("?", 1)[1] if "?" in url else ""
    app_iter, status, out_headers = run_wsgi_app(app, environ)
    data = b"".join(app_iter)
    if hasattr(app_iter, "close"):
        app_iter.close()
    code = int(status.split(" ", 1)[0])
    timeout = out_headers.get("X-Plugsim-Timeout")
    if code == 504 and timeout == "read":
        return requests.exceptions.ReadTimeout(f"{method} {url}: read timed out (injected fault)")
    if code == 504 and timeout == "connect":
        return requests.exceptions.ConnectTimeout(f"{method} {url}: connect timed out (fault)")
    return code, dict(out_headers.items()), data


def register(app: WireApp, mock: responses.RequestsMock) -> None:
    """Add callbacks answering every method under *app*'s base URL to *mock*."""
    pattern = re.compile(re.escape(app.base_url) + r"(/.*)?$")

    def callback(prepared: requests.PreparedRequest) -> Any:
        return call_app(
            app, prepared.method or "GET", prepared.url or "", prepared.headers, prepared.body
        )

    for method in METHODS:
        mock.add_callback(method, pattern, callback=callback)


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
