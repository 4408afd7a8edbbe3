"""Serving the Docker Engine API to ``requests`` in-process, as the REST dialects are served.

:class:`DockerServer` is a :class:`~fake_clouds.rest.server.RestServer`
holding only the Docker dialect (:class:`~fake_clouds.docker.api.DockerEngine`),
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

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import requests
import responses

from fake_clouds.docker.api import DockerEngine, api_version, version_error
from fake_clouds.docker.engine import add_docker_service
from fake_clouds.rest.http import Dialect, Request
from fake_clouds.rest.server import METHODS, RestServer

_EVERYTHING = re.compile(".*")


class DockerServer(RestServer):
    """The Docker Engine API of one fake cloud, registered on a ``responses`` mock."""

    def __init__(
        self, cloud: Any, *, base_url: str | None = None, mock: responses.RequestsMock | None = None
    ) -> None:
        """Register the Docker API of *cloud* on *mock* at *base_url* and the local socket."""
        super().__init__(cloud, (), mock=mock)
        dialect = DockerEngine(cloud, base_url or DockerEngine.default_base_url, "")
        self.dialects[dialect.name] = dialect
        for base in dict.fromkeys((dialect.base_url, *DockerEngine.aliases)):
            pattern = re.compile(re.escape(base) + r"(/[^?#]*)?(\?.*)?$")
            for method in METHODS:
                self.mock.add_callback(method, pattern, callback=self._callback(dialect))

    def headers(self, dialect: str) -> dict[str, str]:
        """A Docker daemon's socket takes no credentials."""
        return {}

    def _serve(self, dialect: Dialect, req: Request) -> Any:
        problem = version_error(api_version(req.path)[0])
        if problem is not None:
            start = self.cloud.now()
            self._charge(dialect, "version_check")
            self._record(start, dialect, req, None, 400, "ok")
            return 400, {"Content-Type": "application/json"}, json.dumps({"message": problem})
        add_docker_service(self.cloud)
        result = super()._serve(dialect, req)
        if not isinstance(result, tuple):
            return result  # a requests exception (timeout)
        status, headers, body = result
        raw = getattr(req, "raw_body", None)
        if raw is not None and 200 <= status < 300:
            body = raw
        if body and not any(k.lower() == "content-type" for k in headers):
            headers["Content-Type"] = "application/json"
        return status, headers, body


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
