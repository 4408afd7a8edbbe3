"""No real network: a request to a host no fake serves fails in one line saying so.

While the engine runs (:meth:`fake_clouds.core.world.FakeCloud.http_wire`, see
:mod:`fake_clouds.http_wire`), plug-in code that calls HTTP itself reaches the fake
cloud's HTTP APIs (Docker, the BIG-IPs, and any service of the world that answers HTTP
with a ``serve_http(mock)`` method: a third-party fake backend's vendor API). A request nothing answers used to go out to the real network
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


def refusing_send(previous: Any) -> Any:
    """A ``send`` refusing non-loopback hosts in front of requests' own *previous*.

    When *previous* is not requests' own transport, something else intercepts
    ``requests`` already (a caller's ``responses``, the in-process OpenStack wire):
    *previous* itself is returned, so that mock keeps answering what it answers.
    """
    if not _is_genuine(previous):
        return previous

    def send(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        host = urlsplit(request.url or "").hostname or ""
        if host in LOOPBACK:
            return previous(self, request, *args, **kwargs)
        import requests

        raise requests.exceptions.ConnectionError(
            refusal_message(request.method or "GET", request.url or ""), request=request
        )

    return send


@contextmanager
def refuse_unserved_hosts() -> Iterator[None]:
    """Refuse requests to non-loopback hosts for the duration of the block.

    Only when nothing else intercepts ``requests`` already (see :func:`refusing_send`).
    """
    import requests

    adapter = requests.adapters.HTTPAdapter
    previous = adapter.send
    adapter.send = refusing_send(previous)  # type: ignore[method-assign]
    try:
        yield
    finally:
        adapter.send = previous  # type: ignore[method-assign]
