"""What a provider dialect is written with: requests, replies, routes (werkzeug's), errors.

A dialect is a class with routes declared by :func:`route`; the routes of a
class are compiled into one werkzeug :class:`~werkzeug.routing.Map`
(``{id}`` is a werkzeug ``<id>`` segment), and a request reaches a handler as
a :class:`Request` parsed by werkzeug from its WSGI environ. The dialect does
not serve itself: :class:`fake_clouds.rest.app.DialectApp` is the WSGI
application over it, mounted in-process (:mod:`fake_clouds.rest.mount`) and
by ``plugsim serve`` on loopback::

    @route("GET", "/droplets/{id}", op=("compute", "servers.get", "server"))
    def get_droplet(self, req: Request) -> Reply: ...

``op`` names the fake cloud operation the request stands for: the whole
handler runs inside one :meth:`FakeCloud.dispatch` of that operation, so it
samples one latency, is matched by fault rules written for that operation and
leaves one trace entry. Operations the handler calls in turn run inside that
call (no second latency, fault or trace entry). A route without ``op`` (a
static listing such as regions) samples the latency key
``rest.<dialect>.<route name>`` and is never faulted.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import urlsplit

from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map, Rule
from werkzeug.wrappers import Request as WerkzeugRequest

from fake_clouds.core.faults import error_class_for_status
from sdk import exception

#: Where the in-process adapter leaves the ``timeout=`` a ``requests`` caller passed.
TIMEOUT_KEY = "plugsim.timeout"
#: Where the in-process adapter leaves the URL as the caller wrote it (reports name it).
URL_KEY = "plugsim.url"

Handler = Callable[[Any, "Request"], "Reply"]


@dataclass
class Request:
    """One HTTP request as a dialect handler sees it."""

    method: str
    url: str
    path: str
    query: dict[str, list[str]]
    headers: Mapping[str, str]
    body: bytes | None
    timeout: Any = None
    params: dict[str, str] = field(default_factory=dict)
    #: Set by a handler to the fake cloud id of the entity it acted on (for the trace).
    entity_id: str | None = None

    @classmethod
    def from_wsgi(cls, environ: dict[str, Any], base_path: str) -> Request:
        """Parse a WSGI *environ* with werkzeug; paths are relative to *base_path*.

        *base_path* is the path part of the dialect's base URL (``/v2``): a
        request for ``/v2/droplets`` is the dialect's ``/droplets``.
        """
        wz = WerkzeugRequest(environ)
        full = (environ.get("SCRIPT_NAME") or "") + (environ.get("PATH_INFO") or "")
        base = base_path.rstrip("/")
        path = full[len(base) :] if base and full.startswith(base) else full
        body = wz.get_data(cache=False)
        return cls(
            method=wz.method.upper(),
            url=environ.get(URL_KEY) or wz.url,
            path=path or "/",
            query=wz.args.to_dict(flat=False),
            headers=wz.headers,
            body=body or None,
            timeout=environ.get(TIMEOUT_KEY),
        )

    def arg(self, name: str, default: str | None = None) -> str | None:
        """Return the first value of query parameter *name* (or *default*)."""
        values = self.query.get(name)
        return values[0] if values else default

    def int_arg(self, dialect: Dialect, name: str, default: int, low: int, high: int) -> int:
        """Return an integer query parameter in ``[low, high]`` or fail naming it."""
        raw = self.arg(name)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            raise dialect.fail(400, f"{name} must be an integer, got {raw!r}", name) from None
        if not low <= value <= high:
            raise dialect.fail(400, f"{name} must be between {low} and {high}, got {value}", name)
        return value

    def json(self, dialect: Dialect, *, required: bool = True) -> dict[str, Any]:
        """Return the JSON object body, or fail with the provider's 400 body."""
        if not self.body:
            if required:
                raise dialect.fail(400, "The request body must be a JSON object")
            return {}
        try:
            data = json.loads(self.body)
        except (ValueError, UnicodeDecodeError) as ex:
            raise dialect.fail(400, f"The request body is not valid JSON: {ex}") from None
        if not isinstance(data, dict):
            raise dialect.fail(
                400, f"The request body must be a JSON object, got {type(data).__name__}"
            )
        return data

    def read_timeout(self) -> float | None:
        """Return the read part of the ``timeout=`` the caller passed to ``requests``."""
        value = self.timeout
        if isinstance(value, tuple | list):
            value = value[1] if len(value) > 1 else value[0]
        return float(value) if isinstance(value, int | float) else None


@dataclass
class Reply:
    """What a handler answers: a status, a JSON-able body (None: empty) and headers."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Route:
    """One served endpoint of a dialect."""

    method: str
    template: str
    handler_name: str
    #: (service, operation, kind), None (static route) or the name of a dialect method
    #: computing the tuple (or None) from the request - it must not raise.
    op: tuple[str, str, str | None] | str | None

    @property
    def name(self) -> str:
        """The route's name in latency keys and reports (the handler's name)."""
        return self.handler_name


def route(
    method: str, template: str, *, op: tuple[str, str, str | None] | str | None = None
) -> Callable[[Handler], Handler]:
    """Declare a handler for *method* and *template* (``{name}`` matches one segment)."""

    def decorate(fn: Handler) -> Handler:
        routes = getattr(fn, "__rest_routes__", [])
        fn.__rest_routes__ = [*routes, (method, template, op)]  # type: ignore[attr-defined]
        return fn

    return decorate


def _rule_path(template: str) -> str:
    """``/droplets/{id}`` as werkzeug writes it: ``/droplets/<id>`` (one path segment)."""
    return re.sub(r"\{(\w+)\}", r"<\1>", template)


class Dialect:
    """Base class of a provider dialect: werkzeug routing, auth and provider-shaped errors."""

    #: Short name (``digitalocean``); used for tokens, base URLs, latency keys and reports.
    name: ClassVar[str] = ""
    #: Default base URL (no trailing slash).
    default_base_url: ClassVar[str] = ""
    #: Default token accepted by the auth check.
    default_token: ClassVar[str] = ""
    #: HTTP statuses this provider never sends, mapped to the one it sends instead.
    status_map: ClassVar[dict[int, int]] = {}
    _routes: ClassVar[list[Route]] = []
    _map: ClassVar[Map] = Map()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        routes: list[Route] = []
        seen: set[str] = set()
        for klass in reversed(cls.__mro__):
            for attr, value in vars(klass).items():
                for method, template, op in getattr(value, "__rest_routes__", []):
                    key = f"{method} {template}"
                    if key in seen:
                        routes = [r for r in routes if f"{r.method} {r.template}" != key]
                    seen.add(key)
                    routes.append(Route(method, template, attr, op))
        cls._routes = routes
        # one werkzeug rule per route, its endpoint the route's index (no automatic OPTIONS)
        rules = [
            Rule(_rule_path(r.template), methods=[r.method], endpoint=i, strict_slashes=False)
            for i, r in enumerate(routes)
        ]
        for rule in rules:
            rule.provide_automatic_options = False
        cls._map = Map(rules, strict_slashes=False, merge_slashes=False)

    def __init__(self, cloud: Any, base_url: str, token: str) -> None:
        self.cloud = cloud
        self.base_url = base_url.rstrip("/")
        self.token = token

    # --- routing -------------------------------------------------------------------

    @classmethod
    def routes(cls) -> list[Route]:
        """Return every route this dialect serves, in declaration order."""
        return list(cls._routes)

    def match(self, method: str, path: str) -> tuple[Route, dict[str, str]] | None:
        """Return the route serving *method* *path* and its path parameters (werkzeug's match)."""
        trimmed = path.rstrip("/") or "/"
        adapter = self._map.bind("plugsim.invalid", "/")
        try:
            index, params = adapter.match(trimmed, method=method)
        except HTTPException:  # no such path (404) or not with that method (405): unserved
            return None
        served = self._routes[index]
        if served.method != method:  # werkzeug adds HEAD to a GET rule: unserved unless declared
            return None
        return served, {k: str(v) for k, v in params.items()}

    def route_path(self, req: Request) -> str:
        """Return the path routes are matched against (CloudStack routes by ``command``)."""
        return req.path

    def endpoint(self, req: Request) -> str:
        """Return the endpoint *req* stands for in reports (the URL without its query)."""
        return req.url.split("?", 1)[0]

    def handler(self, served: Route) -> Callable[[Request], Reply]:
        """Return the bound handler of *served*."""
        return getattr(self, served.handler_name)

    def operation_of(self, served: Route, req: Request) -> tuple[str, str, str | None] | None:
        """Return the fake cloud operation a request to *served* stands for (None: static)."""
        if isinstance(served.op, str):
            return getattr(self, served.op)(req)
        return served.op

    # --- auth and errors -------------------------------------------------------------

    #: Further bearer tokens accepted besides :attr:`token` (the credentials a salt-cloud
    #: providers file names; empty when the fake insists on one token).
    accepted: frozenset[str] = frozenset()

    def authenticate(self, req: Request) -> bool:
        """True when the request carries this dialect's token (``Authorization: Bearer``)."""
        header = req.headers.get("Authorization", "")
        if header == f"Bearer {self.token}":
            return True
        return header.startswith("Bearer ") and header[len("Bearer ") :] in self.accepted

    def client_headers(self) -> dict[str, str]:
        """Return the auth headers a client of this dialect sends."""
        return {"Authorization": f"Bearer {self.token}"}

    def error_body(self, status: int, message: str, field_name: str | None = None) -> Any:
        """Return the provider's error body for *status* (subclasses shape it)."""
        return {"message": message}

    def unauthorized(self) -> Reply:
        """Return the provider's 401 reply."""
        return Reply(401, self.error_body(401, "Unable to authenticate you."))

    def not_found(self) -> Reply:
        """Return the provider's 404 reply for an endpoint it does not serve."""
        return Reply(404, self.error_body(404, "The resource could not be found."))

    def unserved(self, req: Request) -> Reply:
        """Return the 404 for an endpoint the fake does not serve, naming method and path.

        The provider's error body shape, so a client's own error message (a
        Salt driver's "Linode API reported error(s): ...") carries the endpoint.
        """
        path = urlsplit(req.url).path
        message = f"Not found: plugsim's fake {self.name} API does not serve {req.method} {path}"
        return Reply(404, self.error_body(404, message))

    def fail(
        self, status: int, message: str, field_name: str | None = None
    ) -> exception.ClientError:
        """Return a typed client error carrying this provider's body (raise it)."""
        cls = exception.BadRequest if status == 422 else error_class_for_status(status)
        err = cls(message, code=status, body=self.error_body(status, message, field_name))
        err.rest_dialect = self.name  # type: ignore[attr-defined]
        return err

    def error_reply(self, ex: exception.ClientError, custom_body: Any = None) -> Reply:
        """Turn a typed client error into this provider's reply."""
        status = self.status_map.get(ex.code, ex.code)
        if getattr(ex, "rest_dialect", None) == self.name:
            status, body = ex.code, ex.body
        elif custom_body is not None:
            body = custom_body
        else:
            body = self.core_error_body(status, ex)
        headers: dict[str, str] = {}
        retry_after = getattr(ex, "retry_after", None)
        if isinstance(ex, exception.OverLimit) and ex.code == 429:
            headers["Retry-After"] = str(max(1, math.ceil(retry_after or 1)))
        return Reply(status, body, headers)

    def core_error_body(self, status: int, ex: exception.ClientError) -> Any:
        """Return the body for an error raised by the fake cloud core (not by the dialect)."""
        return self.error_body(status, str(ex))
