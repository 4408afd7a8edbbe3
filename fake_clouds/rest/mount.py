"""The in-process adapter: ``requests`` calls handed to a WSGI application, no socket.

:func:`mount` registers one ``responses`` callback per method on a base URL;
each request becomes a WSGI environ (werkzeug's ``EnvironBuilder``) and runs
through the application, the provider dialects' (:class:`fake_clouds.rest.app.DialectApp`)
and the OpenStack wire's alike. The same applications are what ``plugsim
serve`` puts on a loopback socket, so a client sees one behaviour in both.

Two answers cannot travel as HTTP in-process and are raised as ``requests``
would raise them: a ``504`` marked ``X-Plugsim-Timeout: connect`` or ``read``
(an injected timeout) is ``ConnectTimeout`` or ``ReadTimeout``, and a ``502``
marked ``X-Plugsim-Refused`` (no device behind that host) is
``ConnectionError``. The ``timeout=`` the caller passed reaches the
application in the environ (``plugsim.timeout``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

import requests
import responses
from werkzeug.test import EnvironBuilder, run_wsgi_app

from fake_clouds.rest.app import REFUSED_HEADER, TIMEOUT_HEADER
from fake_clouds.rest.dialect import TIMEOUT_KEY, URL_KEY

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD")
WSGIApp = Callable[[dict[str, Any], Any], Iterable[bytes]]


def _text(value: Any) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)


def _message(data: bytes, default: str) -> str:
    try:
        found = json.loads(data or b"null")
    except ValueError:
        return default
    if isinstance(found, dict) and isinstance(found.get("message"), str):
        return str(found["message"])
    return default


def call_wsgi(
    app: WSGIApp,
    base_url: str,
    method: str,
    url: str,
    headers: Any,
    body: Any,
    *,
    timeout: Any = None,
) -> Any:
    """Run one request through *app* mounted at *base_url*.

    Returns ``(status, headers, body)`` for ``responses``, or the ``requests``
    exception a marked timeout or refusal stands for. An empty *base_url*
    mounts the application at the URL's own origin (every host).
    """
    if isinstance(body, str):
        body = body.encode("utf-8")
    elif body is not None and not isinstance(body, bytes):
        body = b"".join(body)  # a generator or file upload (swift, glance)
    if not base_url:
        parts = urlsplit(url)
        base_url = f"{parts.scheme}://{parts.netloc}"
    # The body is whole here: a chunked upload's framing header would make werkzeug read nothing.
    # Header names and values may be bytes (swiftclient encodes them): they go on the wire as is.
    plain = {
        _text(k): _text(v)
        for k, v in dict(headers or {}).items()
        if _text(k).lower() != "transfer-encoding"
    }
    path = url[len(base_url) :].split("?", 1)[0] if url.startswith(base_url) else url
    builder = EnvironBuilder(
        path=path or "/",
        base_url=base_url,
        method=method,
        headers=list(plain.items()),
        data=body or b"",
    )
    try:
        environ = builder.get_environ()
    finally:
        builder.close()
    # the query string as the client wrote it (EnvironBuilder would re-encode it)
    environ["QUERY_STRING"] = url.split("?", 1)[1] if "?" in url else ""
    environ[URL_KEY] = url
    if timeout is not None:
        environ[TIMEOUT_KEY] = timeout
    app_iter, status, out_headers = run_wsgi_app(app, environ)
    data = b"".join(app_iter)
    if hasattr(app_iter, "close"):
        app_iter.close()
    code = int(status.split(" ", 1)[0])
    marked = out_headers.get(TIMEOUT_HEADER)
    if code == 504 and marked == "read":
        default = f"{method} {url}: read timed out (injected fault)"
        return requests.exceptions.ReadTimeout(_message(data, default))
    if code == 504 and marked == "connect":
        default = f"{method} {url}: connect timed out (fault)"
        return requests.exceptions.ConnectTimeout(_message(data, default))
    if code == 502 and out_headers.get(REFUSED_HEADER):
        return requests.exceptions.ConnectionError(_message(data, f"{method} {url}: refused"))
    return code, dict(out_headers.items()), data


def mount(
    mock: responses.RequestsMock,
    app: WSGIApp,
    base_url: str,
    *,
    pattern: re.Pattern[str] | None = None,
) -> None:
    """Answer every method under *base_url* (or every URL *pattern* matches) with *app*."""
    base = base_url.rstrip("/")
    if pattern is None:
        pattern = re.compile(re.escape(base) + r"(/[^?#]*)?(\?.*)?$")

    def callback(prepared: requests.PreparedRequest) -> Any:
        kwargs = getattr(prepared, "req_kwargs", {}) or {}
        return call_wsgi(
            app,
            base,
            prepared.method or "GET",
            prepared.url or "",
            prepared.headers,
            prepared.body,
            timeout=kwargs.get("timeout"),
        )

    for method in METHODS:
        mock.add_callback(method, pattern, callback=callback)
