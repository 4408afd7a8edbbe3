"""One provider dialect as a WSGI application (werkzeug), over one world's services.

:class:`DialectApp` is what serves a dialect everywhere: in-process (the
``responses`` adapter of :mod:`fake_clouds.rest.mount` hands it each request)
and on loopback (``plugsim serve`` mounts it under the provider's path). Every
request goes through the same steps:

1. werkzeug parses the request (:meth:`fake_clouds.rest.dialect.Request.from_wsgi`);
   the token is checked (the provider's 401);
2. the dialect's werkzeug routing map finds the route (an unknown endpoint is
   the provider's 404, counted in the :class:`RestLog`);
3. the handler runs inside one dispatch of the route's fake cloud operation
   (faults, latency, trace - see :mod:`fake_clouds.rest.dialect`);
4. typed client errors become the provider's error reply (429 carries
   ``Retry-After``); a timeout fault is a ``504`` marked ``X-Plugsim-Timeout:
   connect`` (``applied: false``: nothing happened) or ``read`` (``applied:
   true``), which the in-process adapter turns into ``requests``' own
   exceptions; a virtual latency beyond the caller's read ``timeout=`` (known
   in-process only) is a ``read`` timeout too;
5. any other exception is a bug of the fake: the reply is the provider's 500
   body and the log records it.
"""

from __future__ import annotations

import json
import traceback
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from werkzeug.wrappers import Response

from fake_clouds.rest.accounts import as_account
from fake_clouds.rest.dialect import Dialect, Reply, Request
from sdk import exception

#: Response header marking a timeout the in-process adapter raises as ``requests``' own.
TIMEOUT_HEADER = "X-Plugsim-Timeout"
#: Response header marking a refused connection (no such device behind the host).
REFUSED_HEADER = "X-Plugsim-Refused"


@dataclass(frozen=True)
class ServedCall:
    """One request the fake answered (or answered with a timeout)."""

    time: float
    dialect: str
    method: str
    url: str
    route: str | None
    status: int | None
    latency: float
    outcome: str


@dataclass(frozen=True)
class UnservedCall:
    """An endpoint a client called that the dialect does not serve, with its count."""

    dialect: str
    method: str
    url: str
    count: int


@dataclass(frozen=True)
class FakeBug:
    """An unexpected exception inside a handler: a bug of the fake, not of the client."""

    dialect: str
    method: str
    url: str
    error: str
    where: str


@dataclass
class RestLog:
    """What the dialects of one server were asked: served calls, unserved endpoints, bugs."""

    calls: list[ServedCall] = field(default_factory=list)
    unserved: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    bugs: list[FakeBug] = field(default_factory=list)


def timeout_reply(kind: str, message: str) -> Reply:
    """A timeout as the WSGI app answers it: 504, marked *kind* (``connect`` or ``read``)."""
    return Reply(504, {"message": message}, {TIMEOUT_HEADER: kind})


class DialectApp:
    """The WSGI application serving one :class:`Dialect` of one world."""

    def __init__(self, dialect: Dialect, log: RestLog | None = None) -> None:
        """Serve *dialect*, recording calls in *log* (a new one by default)."""
        self.dialect = dialect
        self.cloud = dialect.cloud
        self.log = log if log is not None else RestLog()

    # --- WSGI -------------------------------------------------------------------------

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        """Answer one WSGI request."""
        from urllib.parse import urlsplit

        req = Request.from_wsgi(environ, urlsplit(self.dialect.base_url).path)
        return self.response(self.serve(req))(environ, start_response)

    def response(self, reply: Reply) -> Response:
        """The werkzeug response of *reply* (a JSON body, or the handler's raw bytes)."""
        headers = dict(reply.headers)
        raw = reply.body if isinstance(reply.body, bytes) else None
        if raw is not None:
            body = raw
        else:
            body = b"" if reply.body is None else json.dumps(reply.body, sort_keys=True).encode()
        content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), None)
        headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
        return Response(
            body,
            reply.status,
            headers=headers,
            content_type=content_type or "application/json",
        )

    # --- the pipeline -------------------------------------------------------------------

    def serve(self, req: Request) -> Reply:
        """Run *req* through auth, routing, one dispatch and the provider's error replies."""
        dialect = self.dialect
        start = self.cloud.now()
        found = dialect.match(req.method, dialect.route_path(req))
        route_name = found[0].name if found else None
        missing = None
        op = None
        if found:
            req.params = found[1]
            op = dialect.operation_of(found[0], req)
            if op is not None and op[0] not in self.cloud.service_names():
                missing = op[0]
        if not dialect.authenticate(req):
            self.charge("unauthorized")
            reply = dialect.unauthorized()
        elif found is None or missing is not None:
            self.log.unserved[(dialect.name, req.method, dialect.endpoint(req))] += 1
            self.charge("unserved")
            reply = dialect.unserved(req)
        else:
            with as_account(dialect, req):  # each credential is its own account
                reply = self._run(found[0], op, req)
        if reply.headers.get(TIMEOUT_HEADER):
            self.record(start, req, route_name, None, _outcome(reply))
            return reply
        latency = self.cloud.now() - start
        limit = req.read_timeout()
        if limit is not None and latency > limit:
            self.record(start, req, route_name, None, "ReadTimeout")
            return timeout_reply(
                "read",
                f"{req.method} {req.url}: no answer within timeout={limit:g} s "
                f"(the fake cloud took {latency:.3f} s of virtual time)",
            )
        self.record(start, req, route_name, reply.status, "ok")
        return reply

    def charge(self, what: str) -> None:
        """Charge the latency of ``rest.<dialect>.<what>`` to the clock (a call with no op)."""
        rnd = self.cloud.rng.stream("latency")
        key = f"{self.dialect.name}.{what}"
        self.cloud.clock.charge(self.cloud.latency.call("rest", key, rnd))

    def record(
        self, start: float, req: Any, route_name: str | None, status: int | None, outcome: str
    ) -> None:
        """Log one call that started at virtual time *start*."""
        latency = self.cloud.now() - start
        self.log.calls.append(
            ServedCall(
                start,
                self.dialect.name,
                req.method,
                req.url,
                route_name,
                status,
                latency,
                outcome,
            )
        )

    def _run(self, served: Any, op: Any, req: Request) -> Reply:
        dialect = self.dialect
        handler = dialect.handler(served)
        faults_before = len(self.cloud.injected_faults())
        box: dict[str, Reply] = {}
        try:
            if op is None:
                self.charge(served.name)
                return handler(req)
            service, operation, kind = op

            def perform() -> Any:
                box["reply"] = handler(req)
                return {"id": req.entity_id} if req.entity_id else None

            self.cloud.dispatch(self.cloud.service(service), operation, kind, None, perform)
            return box["reply"]
        except exception.ClientTimeout as ex:
            return self._timeout(req, ex, faults_before)
        except exception.ClientError as ex:
            return dialect.error_reply(ex, self._custom_body(faults_before))
        except Exception as ex:  # noqa: BLE001 - a bug of the fake must never reach the client
            frame = traceback.extract_tb(ex.__traceback__)[-1]
            where = f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno} in {frame.name}"
            error = f"{type(ex).__name__}: {ex}"
            self.log.bugs.append(FakeBug(dialect.name, req.method, req.url, error, where))
            message = f"Internal error in the fake {dialect.name} API ({error})"
            return Reply(500, dialect.error_body(500, message))

    def _new_faults(self, before: int) -> list[Any]:
        return self.cloud.injected_faults()[before:]

    def _custom_body(self, before: int) -> Any:
        for fault in self._new_faults(before):
            rule = self.cloud.faults.profile.rules[fault.rule_index]
            if rule.effect.type == "error" and rule.effect.params.get("body") is not None:
                return rule.effect.params["body"]
        return None

    def _timeout(self, req: Request, ex: Exception, before: int) -> Reply:
        applied = False
        for fault in self._new_faults(before):
            rule = self.cloud.faults.profile.rules[fault.rule_index]
            if rule.effect.type == "timeout":
                applied = bool(rule.effect.params.get("applied"))
        return timeout_reply("read" if applied else "connect", f"{req.method} {req.url}: {ex}")


def _outcome(reply: Reply) -> str:
    kind = reply.headers.get(TIMEOUT_HEADER)
    return "ReadTimeout" if kind == "read" else "ConnectTimeout"
