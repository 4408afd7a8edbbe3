"""No real network I/O from driver code: HTTP goes to the fakes, sockets are refused.

``requests`` is served by a ``responses`` mock (the REST dialects of the fake
cloud); a request to a host no fake serves fails there with the URL. Code that
bypasses ``requests`` (``urllib``, ``http.client``, raw sockets) reaches
:func:`guard_sockets`, which refuses every IPv4/IPv6 connection with an error
naming the address while the harness runs a driver call.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class RealNetworkRefused(ConnectionRefusedError):
    """Driver code tried to open a real network connection."""


def _refuse(address: Any) -> RealNetworkRefused:
    if isinstance(address, tuple) and len(address) >= 2:
        where = f"{address[0]}:{address[1]}"
    else:
        where = str(address)
    return RealNetworkRefused(
        f"real network I/O refused: a connection to {where} was attempted from driver code; "
        "only HTTP through 'requests' to the fake clouds' URLs is served"
    )


@contextmanager
def guard_sockets() -> Iterator[None]:
    """Refuse IPv4/IPv6 connections (``socket.connect``, ``create_connection``) in the block."""
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex
    original_create = socket.create_connection

    def connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise _refuse(address)
        return original_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise _refuse(address)
        return original_connect_ex(self, address)

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        raise _refuse(address)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.create_connection = create_connection  # type: ignore[assignment]
    try:
        yield
    finally:
        socket.socket.connect = original_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = original_connect_ex  # type: ignore[method-assign]
        socket.create_connection = original_create  # type: ignore[assignment]
