"""Bounded input on the wire: every request body is checked before a service sees it.

:func:`admit` runs in :meth:`fake_clouds.openstack.app.WireApp.__call__` for
every request, before the world lock is taken (a slow upload never holds the
world up). It answers, in the service's own error shape:

* ``400`` to a request that has both ``Content-Length`` and
  ``Transfer-Encoding: chunked`` (RFC 9112 lets a server refuse it, and
  servers do, since the two disagree about where the body ends);
* ``413`` to a body larger than the service's limit: at once from
  ``Content-Length``, or as soon as a chunked body goes past it. The limit is
  :attr:`ServiceAPI.max_body_size` (oslo.middleware's ``sizelimit`` default of
  114688 bytes), or for a data upload :attr:`ServiceAPI.max_upload_size`
  (swift's ``max_file_size``, glance's ``image_size_cap``), or what
  ``plugsim serve --max-body SERVICE=BYTES`` sets.

A body that passes is read whole into memory (it is at most the limit)
and handed on as a plain stream with its length. For a service that takes
data uploads (:attr:`ServiceAPI.max_upload_size`: objects, image data), a ``PUT``
body larger than :data:`~fake_clouds.core.blobs.INLINE_BYTES` (or of unknown
length) is streamed into a file of the world's blob store instead, and the
handler finds it in the environ under :data:`SPOOLED`; memory holds one
chunk of it at a time.
"""

from __future__ import annotations

import io
from typing import Any

from werkzeug.wrappers import Response

from fake_clouds.core.blobs import INLINE_BYTES, BodyTooLarge, read_chunks

#: Where a body spooled to disk is handed to the handler (a ``Spooled``).
SPOOLED = "plugsim.spooled_body"
#: oslo.middleware's ``max_request_body_size`` default (nova, neutron, cinder, glance, keystone).
DEFAULT_MAX_BODY = 114688


#: How deep a JSON request body may nest (objects and arrays): far beyond any API's own shapes.
MAX_JSON_DEPTH = 100


def json_depth(value: Any) -> int:
    """How deep *value* nests (a scalar is 0), without recursion; stops past the limit."""
    deepest = 0
    todo = [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_JSON_DEPTH:
            return deepest
        todo.extend((child, level + 1) for child in children if isinstance(child, dict | list))
    return deepest


def admit(app: Any, environ: dict[str, Any]) -> Response | None:
    """Check and read the body of the request in *environ*; return the refusal, or None."""
    prefix = environ.get("PATH_INFO", "").lstrip("/").partition("/")[0]
    api = app.apis.get(prefix)
    chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
    length_text = environ.get("CONTENT_LENGTH", "").strip()
    if chunked and length_text:
        return _refuse(
            api,
            400,
            "The request has both Content-Length and Transfer-Encoding: chunked; send one of them.",
        )
    length: int | None = None
    if length_text:
        if not length_text.isdigit():
            return _refuse(api, 400, f"Invalid Content-Length {length_text!r}.")
        length = int(length_text)
    if not chunked and not length:
        environ["wsgi.input"] = io.BytesIO(b"")
        environ["CONTENT_LENGTH"] = "0"
        return None
    upload = (
        api is not None
        and api.max_upload_size is not None
        and environ.get("REQUEST_METHOD") == "PUT"
    )
    limit = app.body_limit(prefix, upload=upload)
    if length is not None and length > limit:
        return _too_large(api, prefix, limit)
    stream = environ["wsgi.input"]
    blobs = getattr(app.cloud, "blobs", None)
    spool = upload and blobs is not None and (length is None or length > INLINE_BYTES)
    try:
        if spool:
            environ[SPOOLED] = blobs.spool(stream, length, limit)
            data = b""
        else:
            data = _read(stream, length, limit)
    except BodyTooLarge:
        return _too_large(api, prefix, limit)
    except (OSError, ValueError) as ex:  # a broken chunk header, a client gone mid-body
        return _refuse(api, 400, f"The request body could not be read: {ex}")
    if spool and length is not None and environ[SPOOLED].size < length:
        blobs.discard(environ.pop(SPOOLED))
        return _refuse(api, 400, "The request body is shorter than its Content-Length.")
    environ["wsgi.input"] = io.BytesIO(data)
    environ["CONTENT_LENGTH"] = str(len(data))
    environ.pop("HTTP_TRANSFER_ENCODING", None)
    environ.pop("wsgi.input_terminated", None)
    return None


def _read(stream: Any, length: int | None, limit: int) -> bytes:
    """Read *length* bytes (or to the end, at most *limit*) from *stream*."""
    data = b"".join(read_chunks(stream, length, limit))
    if length is not None and len(data) < length:
        raise ValueError("the body is shorter than its Content-Length")
    return data


def _too_large(api: Any, prefix: str, limit: int) -> Response:
    message = (
        f"Request is too large: the {prefix or 'request'} body limit is {limit} bytes "
        f"(plugsim serve --max-body {prefix or 'SERVICE'}=BYTES)."
    )
    return _refuse(api, 413, message)


def _refuse(api: Any, status: int, message: str) -> Response:
    if api is None:
        body: Any = {"error": {"code": status, "message": message}}
    else:
        body = api.error_body(status, message)
    if isinstance(body, str):
        return Response(body, status, content_type="text/plain; charset=utf-8")
    import json

    return Response(json.dumps(body, sort_keys=True), status, content_type="application/json")
