"""What every OpenStack service API of the wire shares: routes, requests, errors, dispatch.

A service API (:class:`ServiceAPI`) is one OpenStack service as a client sees
it: a URL prefix (``compute``, ``network`` ...), a werkzeug routing map built
from methods decorated with :func:`route`, and the service's own error body.
Handling one request:

1. the route is matched (an unknown route or method is the service's 404/405,
   counted in :attr:`WireApp.unserved`);
2. the token is checked against the identity service (a missing, unknown or
   expired token is keystone's 401) unless the route is public, then the
   services' default policies (:mod:`fake_clouds.openstack.policy`: a refusal is
   the service's 403), and the handler runs as the token's caller, so another
   project's entities are not found (:mod:`fake_clouds.core.scope`);
3. the handler runs inside one :meth:`FakeCloud.dispatch` of the route's
   operation, so fault rules and latency apply per call as they do for the
   Python clients; the handler calls the services' operations, which join
   that dispatch instead of starting their own;
4. a typed client error becomes the service's error reply (``Retry-After`` on
   413/429); a timeout fault becomes a 504 marked with ``X-Plugsim-Timeout``
   (the in-process transport turns it into ``requests``' timeout); any other
   exception is a bug of the fake, answered with the service's 500 and listed
   in :attr:`WireApp.bugs`.

Every reply carries ``X-Openstack-Request-Id`` drawn from the ``requests``
stream of the world's seeded RNG.
"""

from __future__ import annotations

import json
import math
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from werkzeug.exceptions import MethodNotAllowed, NotFound
from werkzeug.routing import Map, Rule
from werkzeug.wrappers import Request, Response

from fake_clouds.openstack import policy
from fake_clouds.openstack.replies import ApiError, Reply
from sdk import exception


class TokenChecker(Protocol):
    """What every service asks of the identity service: is this token live, and the 401."""

    def check_token(self, token_id: Any) -> dict[str, Any] | None:
        """The live token record for a request's ``X-Auth-Token``, or None."""
        ...

    def unauthorized(self) -> Reply:
        """The service's 401 answer."""
        ...


class WireHost(Protocol):
    """What a service needs of the WSGI application serving it (``app.WireApp``)."""

    cloud: Any
    base_url: str
    identity_api: TokenChecker

    def catalog(self, project_id: str | None) -> list[dict[str, Any]]:
        """The service catalog a token for *project_id* carries."""
        ...

    def count_unserved(self, service: str, method: str, path: str) -> None:
        """Count a request no route of *service* answers."""
        ...

    def record_bug(self, service: str, method: str, path: str, error: str, where: str) -> None:
        """Keep an unexpected exception a route raised (answered as a 500)."""
        ...


#: (fake cloud service, operation, entity kind) a route dispatches as.
Op = tuple[str, str, str | None]


@dataclass(frozen=True)
class RouteSpec:
    """One route: method, werkzeug rule, the operation it dispatches as, public or not."""

    method: str
    rule: str
    op: Op | str | None
    public: bool


def route(
    method: str, rule: str, op: Op | str | None = None, *, public: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a :class:`ServiceAPI` method as the handler of ``method rule``.

    The handler takes the :class:`ApiRequest` and the rule's variables and
    returns a :class:`Reply`. *op* is the operation the call dispatches as, or
    the name of a method computing it from ``(req, **params)``. Several
    ``route`` decorators may stack.
    """

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        specs = list(getattr(fn, "__wire_routes__", ()))
        specs.append(RouteSpec(method.upper(), rule, op, public))
        fn.__wire_routes__ = specs  # type: ignore[attr-defined]
        return fn

    return decorate


class ApiRequest:
    """One request as a handler sees it: werkzeug's request plus the caller's token."""

    def __init__(self, raw: Request, api: ServiceAPI) -> None:
        self.raw = raw
        self.api = api
        self.method = raw.method
        self.headers = raw.headers
        self.args = raw.args
        #: the validated token record (user, project, roles ...) or None on public routes
        self.token: dict[str, Any] | None = None
        #: the negotiated microversion (compute), as ``(major, minor)``
        self.version: tuple[int, int] | None = None

    def json(self) -> dict[str, Any]:
        """Return the JSON object body, or raise the service's 400 naming the problem."""
        from fake_clouds.openstack.wire_input import MAX_JSON_DEPTH, json_depth

        data = self.raw.get_data()
        if not data:
            raise ApiError(400, "The request body is empty; a JSON object is required.")
        try:
            body = json.loads(data)
        except (ValueError, UnicodeDecodeError) as ex:
            raise ApiError(400, f"Malformed request body: {ex}") from None
        except RecursionError:  # deeper than the parser goes
            body, depth = None, MAX_JSON_DEPTH + 1
        else:
            depth = json_depth(body)
        if depth > MAX_JSON_DEPTH:
            raise ApiError(
                400,
                f"Malformed request body: JSON nested more than {MAX_JSON_DEPTH} levels deep.",
            )
        if not isinstance(body, dict):
            raise ApiError(400, "Malformed request body: expected a JSON object")
        return body

    def member(self, key: str) -> dict[str, Any]:
        """Return ``body[key]`` as an object or raise 400 naming *key*."""
        inner = self.json().get(key)
        if not isinstance(inner, dict):
            raise ApiError(400, f"Invalid input for field/attribute {key}: expected an object")
        return inner

    @property
    def project_id(self) -> str:
        """The caller's project id (``plugsim`` without a scoped token)."""
        project = (self.token or {}).get("project") or {}
        return str(project.get("id") or "plugsim")

    @property
    def is_admin(self) -> bool:
        """Whether the caller's token holds the ``admin`` role (True on public routes)."""
        if self.token is None:
            return True
        identity = self.api.cloud.service("identity")
        names = {role.id: role.name for role in identity._live("role")}
        return any(names.get(role) == "admin" for role in self.token.get("roles", ()))

    @property
    def user_id(self) -> str:
        """The caller's user id."""
        return str(((self.token or {}).get("user") or {}).get("id") or "plugsim")


class ServiceAPI:
    """Base of one OpenStack service on the wire (subclasses add routes)."""

    #: first path segment of the service's endpoints (``compute``, ``network`` ...)
    prefix: str = ""
    #: catalog ``type`` and ``name``
    catalog_type: str = ""
    catalog_name: str = ""
    #: the largest request body in bytes (oslo.middleware sizelimit's default; see wire_input)
    max_body_size: int = 114688
    #: the largest data upload (a ``PUT`` body streamed to disk, never held whole in memory)
    #: of a service that takes data (object storage, image data); None: no such uploads
    max_upload_size: int | None = None

    def __init__(self, app: WireHost) -> None:
        self.app = app
        self.cloud = app.cloud
        self._handlers: dict[str, tuple[Callable[..., Any], RouteSpec]] = {}
        rules = []
        for attr in sorted(dir(type(self))):
            fn = getattr(type(self), attr, None)
            for index, spec in enumerate(getattr(fn, "__wire_routes__", ())):
                endpoint = f"{attr}#{index}"
                self._handlers[endpoint] = (getattr(self, attr), spec)
                rules.append(Rule(spec.rule, methods=[spec.method], endpoint=endpoint))
        self.url_map = Map(rules, strict_slashes=False, merge_slashes=False)

    # --- the service's shapes (override) ----------------------------------------------

    def error_body(self, status: int, message: str) -> Any:
        """Return the service's error body."""
        return {"error": {"code": status, "message": message}}

    def core_error_body(self, status: int, ex: exception.ClientError) -> Any:
        """Return the body for a typed error raised by the fake cloud core."""
        return self.error_body(status, str(ex))

    def endpoint(self, project_id: str) -> str:
        """Return the catalog URL of this service for *project_id*."""
        return f"{self.app.base_url}/{self.prefix}"

    def url(self, tail: str = "") -> str:
        """Return an absolute URL under the service root."""
        return f"{self.app.base_url}/{self.prefix}{tail}"

    def negotiate(self, req: ApiRequest) -> dict[str, str]:
        """Negotiate a microversion; return the headers to echo (override)."""
        return {}

    # --- handling ---------------------------------------------------------------------

    def handle(self, raw: Request, path: str) -> Response:
        """Answer one request whose path under the service prefix is *path*."""
        req = ApiRequest(raw, self)
        headers = {"X-Openstack-Request-Id": "req-" + self.cloud.rng.uuid("requests")}
        try:
            reply = self._handle(req, path, headers)
        except ApiError as ex:
            if ex.extra.get("unserved"):
                self.app.count_unserved(self.prefix, req.method, path)
            body = ex.extra.get("body")
            reply = Reply(
                ex.status, body if body is not None else self.error_body(ex.status, ex.message)
            )
        return self._response(reply, headers)

    def _handle(self, req: ApiRequest, path: str, headers: dict[str, str]) -> Reply:
        adapter = self.url_map.bind("plugsim", "/")
        try:
            endpoint, params = adapter.match(path or "/", method=req.method)
        except MethodNotAllowed:
            self.app.count_unserved(self.prefix, req.method, path)
            raise ApiError(405, f"The method {req.method} is not allowed for {path}.") from None
        except NotFound:
            self.app.count_unserved(self.prefix, req.method, path)
            raise ApiError(404, "The resource could not be found.") from None
        handler, spec = self._handlers[endpoint]
        if not spec.public:
            req.token = self.app.identity_api.check_token(req.headers.get("X-Auth-Token"))
            if req.token is None:
                return self.app.identity_api.unauthorized()
        refusal = policy.check_route(self, spec.method, spec.rule, req, params)
        if refusal is not None:
            return refusal
        headers.update(self.negotiate(req))
        with policy.acting_as(policy.caller_of(req, spec.rule)):
            return self._run(handler, spec, req, params)

    def _run(
        self, handler: Callable[..., Any], spec: RouteSpec, req: ApiRequest, params: dict[str, Any]
    ) -> Reply:
        faults_before = len(self.cloud.injected_faults())
        box: dict[str, Reply] = {}
        try:
            op = getattr(self, spec.op)(req, **params) if isinstance(spec.op, str) else spec.op
            if op is None or op[0] not in self.cloud.service_names():
                return handler(req, **params)
            service, operation, kind = op

            def perform() -> Any:
                box["reply"] = handler(req, **params)
                return None

            self.cloud.dispatch(self.cloud.service(service), operation, kind, None, perform)
            return box["reply"]
        except ApiError:
            raise
        except exception.ClientTimeout as ex:
            applied = any(
                self.cloud.faults.profile.rules[f.rule_index].effect.params.get("applied")
                for f in self.cloud.injected_faults()[faults_before:]
            )
            body = self.error_body(504, str(ex))
            return Reply(504, body, {"X-Plugsim-Timeout": "read" if applied else "connect"})
        except exception.ClientError as ex:
            return self._client_error(ex, faults_before)
        except Exception as ex:  # noqa: BLE001 - a bug of the fake must never reach the client
            frame = traceback.extract_tb(ex.__traceback__)[-1]
            where = f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno} in {frame.name}"
            error = f"{type(ex).__name__}: {ex}"
            self.app.record_bug(self.prefix, req.method, req.raw.path, error, where)
            return Reply(500, self.error_body(500, f"Internal error in the fake ({error})"))

    def _client_error(self, ex: exception.ClientError, faults_before: int) -> Reply:
        status = ex.code if isinstance(ex.code, int) and 400 <= ex.code < 600 else 500
        body = None
        for fault in self.cloud.injected_faults()[faults_before:]:
            rule = self.cloud.faults.profile.rules[fault.rule_index]
            if rule.effect.type == "error" and rule.effect.params.get("body") is not None:
                body = rule.effect.params["body"]
        if body is None:
            body = self.core_error_body(status, ex)
        headers: dict[str, str] = {}
        if status in (413, 429):
            retry_after = getattr(ex, "retry_after", None)
            headers["Retry-After"] = str(max(1, math.ceil(retry_after or 1)))
        return Reply(status, body, headers)

    def _response(self, reply: Reply, headers: dict[str, str]) -> Response:
        all_headers = dict(headers)
        all_headers.update(reply.headers or {})
        if reply.raw is not None:
            return Response(reply.raw, status=reply.status, headers=all_headers)
        if reply.body is None:
            return Response(b"", status=reply.status, headers=all_headers)
        if isinstance(reply.body, str):
            all_headers.setdefault("Content-Type", "text/plain; charset=utf-8")
            return Response(reply.body, status=reply.status, headers=all_headers)
        data = json.dumps(reply.body, sort_keys=True)
        all_headers.setdefault("Content-Type", "application/json")
        return Response(data, status=reply.status, headers=all_headers)


def bad(message: str) -> ApiError:
    """Return the 400 error a handler raises."""
    return ApiError(400, message)


def fields_filter(items: list[dict[str, Any]], fields: list[str]) -> list[dict[str, Any]]:
    """Keep only *fields* of each item (all when *fields* is empty)."""
    if not fields:
        return items
    return [{k: v for k, v in item.items() if k in fields} for item in items]
