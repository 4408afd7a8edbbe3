"""Serving the fake BIG-IPs' iControl REST API to ``requests`` in-process.

:class:`BigIPServer` is a :class:`~fake_clouds.rest.server.RestServer`
holding only the iControl REST dialect
(:class:`~fake_clouds.bigip.api.IControlREST`), registered for
``https://HOST[:PORT]/mgmt/...`` whatever the host: f5-sdk's
``ManagementRoot(address, user, password)`` calls the address a template
gives. A host that is a device of the world (on its port, 443 by default)
is served through the REST pipeline (one dispatch of the route's operation:
latency, seeded faults, the trace, unserved endpoints, bugs of the fake);
any other host is a refused connection, ``requests``' ``ConnectionError``
naming it, and never real network I/O. The ``bigip`` service joins the
world, with its default device, at the first request.

:func:`serve_bigip` nests like :func:`fake_clouds.docker.wire.serve_docker`:
its own ``responses`` mock answers only those URLs and hands every other
request to whatever sent requests before it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import requests
import responses

from fake_clouds.bigip.api import IControlREST
from fake_clouds.bigip.device import add_bigip_service
from fake_clouds.rest.app import REFUSED_HEADER, DialectApp
from fake_clouds.rest.dialect import Dialect, Reply, Request
from fake_clouds.rest.mount import mount
from fake_clouds.rest.server import RestServer

#: Every iControl REST URL, whatever the host.
URLS = re.compile(r"^https://[^/?#]+/mgmt(/[^?#]*)?(\?.*)?$")
_EVERYTHING = re.compile(".*")


class BigIPApp(DialectApp):
    """iControl REST as a WSGI application: the host names the device (refused if none)."""

    def serve(self, req: Request) -> Reply:
        """Refuse a host no device of the world has; else the dialect pipeline."""
        service = add_bigip_service(self.cloud)
        parts = urlsplit(req.url)
        host, port = parts.hostname or "", parts.port or 443
        device = service.find_device(host)
        if device is None or device.attrs["port"] != port:
            start = self.cloud.now()
            self.charge("refused")
            self.record(start, req, None, None, "ConnectionError")
            message = (
                f"HTTPSConnectionPool(host='{host}', port={port}): Max retries exceeded with url: "
                f"{parts.path} (Failed to establish a new connection: [Errno 111] Connection "
                f"refused: the fake world has no BIG-IP at {host}:{port})"
            )
            return Reply(502, {"message": message}, {REFUSED_HEADER: "1"})
        reply = super().serve(req)
        if reply.body is not None and not any(k.lower() == "content-type" for k in reply.headers):
            reply.headers["Content-Type"] = "application/json; charset=UTF-8"
        return reply


class BigIPServer(RestServer):
    """The iControl REST API of every BIG-IP of one fake cloud, on a ``responses`` mock."""

    def __init__(self, cloud: Any, *, mock: responses.RequestsMock | None = None) -> None:
        """Register the API of *cloud*'s devices on *mock* (a new, inactive one by default)."""
        super().__init__(cloud, (), mock=mock)
        dialect = IControlREST(cloud, IControlREST.default_base_url, "")
        dialect.base_url = ""  # routes match the whole path: the host names the device
        app = self.make_app(dialect)
        self.dialects[dialect.name] = dialect
        self.apps[dialect.name] = app
        mount(self.mock, app, "", pattern=URLS)

    def make_app(self, dialect: Dialect) -> DialectApp:
        """BIG-IP's application."""
        return BigIPApp(dialect, self.log)

    def headers(self, dialect: str) -> dict[str, str]:
        """The default device's Basic credentials are what a client sends."""
        return {"Authorization": "Basic YWRtaW46YWRtaW4="}


@contextmanager
def serve_bigip(cloud: Any, *, mock: responses.RequestsMock | None = None) -> Iterator[BigIPServer]:
    """Serve *cloud*'s BIG-IPs to ``requests`` for the duration of a ``with`` block.

    With *mock* given the routes are added to it and the caller activates it.
    Otherwise a mock of its own answers the iControl REST URLs and passes
    every other request on to the ``send`` that was in place when it started.
    """
    if mock is not None:
        yield BigIPServer(cloud, mock=mock)
        return
    previous = requests.adapters.HTTPAdapter.send
    own = responses.RequestsMock(
        assert_all_requests_are_fired=False,
        passthru_prefixes=(_EVERYTHING,),
        real_adapter_send=previous,
    )
    server = BigIPServer(cloud, mock=own)
    with own:
        yield server
