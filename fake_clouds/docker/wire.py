"""Serving the Docker Engine API to ``requests`` in-process, as the REST dialects are served.

:class:`DockerServer` is a :class:`~fake_clouds.rest.server.RestServer`
holding only the Docker dialect (its WSGI application :class:`DockerApp`) (:class:`~fake_clouds.docker.api.DockerEngine`),
registered at its base URL (``http://docker.fake:2375``, which
``docker.APIClient("tcp://docker.fake:2375")`` calls) and at the local
socket's (``http+docker://localhost``, which ``docker.APIClient()`` calls).
Each request runs through the REST pipeline: one dispatch of the route's
operation (latency, seeded faults, the trace), Docker's error bodies,
requests' timeouts for timeout faults, and the report of unserved endpoints
and bugs of the fake. The ``containers`` service joins the world at the
first request.

:func:`serve_docker` starts a ``responses`` mock that answers only the
Docker URLs and hands every other request to whatever sent requests before
it (the network, or an enclosing mock), so it nests inside other mocks and
changes nothing for other traffic. A world serves it while it runs
(:meth:`fake_clouds.core.world.FakeCloud.http_wire`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import requests
import responses

from fake_clouds.docker.api import DockerEngine, api_version, version_error
from fake_clouds.docker.engine import add_docker_service
from fake_clouds.rest.app import DialectApp
from fake_clouds.rest.dialect import Dialect, Reply, Request
from fake_clouds.rest.server import RestServer

_EVERYTHING = re.compile(".*")


class DockerApp(DialectApp):
    """The Docker dialect's WSGI application: the API version checked first, raw bodies."""

    def serve(self, req: Request) -> Reply:
        """Refuse an API version the daemon lacks; else the dialect pipeline."""
        problem = version_error(api_version(req.path)[0])
        if problem is not None:
            start = self.cloud.now()
            self.charge("version_check")
            self.record(start, req, None, 400, "ok")
            return Reply(400, {"message": problem})
        add_docker_service(self.cloud)
        reply = super().serve(req)
        raw = getattr(req, "raw_body", None)
        if raw is not None and 200 <= reply.status < 300:
            return Reply(reply.status, raw, reply.headers)
        return reply


class DockerServer(RestServer):
    """The Docker Engine API of one fake cloud, registered on a ``responses`` mock."""

    def __init__(
        self, cloud: Any, *, base_url: str | None = None, mock: responses.RequestsMock | None = None
    ) -> None:
        """Register the Docker API of *cloud* on *mock* at *base_url* and the local socket."""
        super().__init__(cloud, (), mock=mock)
        dialect = DockerEngine(cloud, base_url or DockerEngine.default_base_url, "")
        self.add_app(self.make_app(dialect), *DockerEngine.aliases)

    def make_app(self, dialect: Dialect) -> DialectApp:
        """Docker's application."""
        return DockerApp(dialect, self.log)

    def headers(self, dialect: str) -> dict[str, str]:
        """A Docker daemon's socket takes no credentials."""
        return {}


@contextmanager
def serve_docker(
    cloud: Any, *, base_url: str | None = None, mock: responses.RequestsMock | None = None
) -> Iterator[DockerServer]:
    """Serve *cloud*'s Docker Engine API to ``requests`` for the duration of a ``with`` block.

    With *mock* given the routes are added to it and the caller activates it.
    Otherwise a mock of its own answers the Docker URLs and passes every
    other request on to the ``send`` that was in place when it started.
    """
    if mock is not None:
        yield DockerServer(cloud, base_url=base_url, mock=mock)
        return
    previous = requests.adapters.HTTPAdapter.send
    own = responses.RequestsMock(
        assert_all_requests_are_fired=False,
        passthru_prefixes=(_EVERYTHING,),
        real_adapter_send=previous,
    )
    server = DockerServer(cloud, base_url=base_url, mock=own)
    with own:
        yield server
