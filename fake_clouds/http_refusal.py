"""No real network: a request to a host no fake serves fails in one line saying so.

While the engine runs (:meth:`fake_clouds.core.world.FakeCloud.http_wire`), plug-in code
that calls HTTP itself reaches the fake cloud's HTTP APIs (Docker, the BIG-IPs, and any
service of the world that answers HTTP with a ``serve_http(mock)`` method: a third-party
fake backend's vendor API). A request nothing answers used to go out to the real network
and come back as the library's bare ``ConnectionError``; now it is refused here with
``requests``' ``ConnectionError`` naming the host, the method and the path, and how to
add a fake. Loopback addresses (``127.0.0.1``, ``localhost``, ``::1``) are still reached:
a ``plugsim serve`` the user started is a fake too.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

#: Hosts requests still go to for real (servers the user runs on this machine).
LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: Where the docs explain writing a fake backend for a vendor API.
DOCS = "docs/fake-backends.rst"


def refusal_message(method: str, url: str) -> str:
    """The one line a request to an unserved host fails with."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    if parts.port:
        host = f"{host}:{parts.port}"
    return (
        f"no fake cloud serves {host} ({method} {parts.path or '/'}): plugsim makes no real "
        f"network calls; add a fake for this API (a service with serve_http(mock), in a "
        f"backend published through the plugsim.fake_clouds entry point: {DOCS})"
    )


def _is_genuine(send: Any) -> bool:
    """True when *send* is requests' own transport (no mock of another caller is active)."""
    return (
        getattr(send, "__module__", "") == "requests.adapters"
        and getattr(send, "__qualname__", "") == "HTTPAdapter.send"
    )


@contextmanager
def refuse_unserved_hosts() -> Iterator[None]:
    """Refuse requests to non-loopback hosts for the duration of the block.

    Only when nothing else intercepts ``requests`` already: a caller's own mock (a test's
    ``responses``, the in-process OpenStack wire) keeps answering what it answers.
    """
    import requests

    adapter = requests.adapters.HTTPAdapter
    previous = adapter.send
    if not _is_genuine(previous):
        yield
        return

    def send(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        host = urlsplit(request.url or "").hostname or ""
        if host in LOOPBACK:
            return previous(self, request, *args, **kwargs)
        raise requests.exceptions.ConnectionError(
            refusal_message(request.method or "GET", request.url or ""), request=request
        )

    adapter.send = send  # type: ignore[method-assign]
    try:
        yield
    finally:
        adapter.send = previous  # type: ignore[method-assign]


@contextmanager
def serve_service_apis(cloud: Any) -> Iterator[None]:
    """Serve the HTTP APIs of *cloud*'s services that have ``serve_http(mock)``.

    Each such service adds its routes to one ``responses`` mock; every other request
    passes on to the transport in place before.
    """
    hooks = [
        svc.serve_http
        for svc in (cloud.service(n) for n in cloud.service_names())
        if callable(getattr(svc, "serve_http", None))
    ]
    if not hooks:
        yield
        return
    import re

    import requests
    import responses

    own = responses.RequestsMock(
        assert_all_requests_are_fired=False,
        passthru_prefixes=(re.compile(".*"),),
        real_adapter_send=requests.adapters.HTTPAdapter.send,
    )
    for hook in hooks:
        hook(own)
    with own:
        yield
