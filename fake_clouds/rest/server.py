"""Serving the REST dialects through ``responses``, backed by one :class:`FakeCloud`.

Every request goes through the same steps:

1. the dialect is chosen by base URL; the token is checked (provider's 401);
2. the route is looked up (unknown endpoint: provider's 404, listed by
   :meth:`RestServer.unserved`);
3. the handler runs inside one dispatch of the route's fake cloud operation
   (faults, latency, trace - see :mod:`fake_clouds.rest.http`);
4. typed client errors become the provider's error reply (429 carries
   ``Retry-After``); a timeout fault becomes ``requests``' ``ConnectTimeout``
   (``applied: false``: nothing happened) or ``ReadTimeout`` (``applied:
   true``); a virtual latency beyond the request's read ``timeout=`` becomes
   ``ReadTimeout``;
5. any other exception is a bug of the fake: the reply is the provider's 500
   body and :meth:`RestServer.bugs` records it.

A request to a host no dialect serves fails with ``responses``'
``ConnectionError`` naming the URL: there is never real network I/O.
"""

from __future__ import annotations

import json
import re
import traceback
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import requests
import responses

from fake_clouds.rest.accounts import as_account
from fake_clouds.rest.http import Dialect, Reply, Request, parse_request
from sdk import exception

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD")


@dataclass(frozen=True)
class ServedCall:
    """One request the fake answered (or turned into a ``requests`` exception)."""

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


@dataclass(frozen=True)
class RestReport:
    """What a run called: served calls, unserved endpoints and bugs of the fake."""

    calls: tuple[ServedCall, ...]
    unserved: tuple[UnservedCall, ...]
    bugs: tuple[FakeBug, ...]

    def format(self) -> str:
        """Return a plain-text summary (one line per unserved endpoint and bug)."""
        lines = [f"{len(self.calls)} REST call(s) served"]
        if self.unserved:
            lines.append("Endpoints the fake does not serve:")
            lines += [f"  {u.count:>4}x {u.method} {u.url} ({u.dialect})" for u in self.unserved]
        if self.bugs:
            lines.append("Fake cloud bugs (unexpected exceptions, answered with 500):")
            lines += [f"  {b.method} {b.url}: {b.error} at {b.where}" for b in self.bugs]
        return "\n".join(lines)


def dialect_classes() -> dict[str, type[Dialect]]:
    """Return the built-in dialect classes by name."""
    from fake_clouds.rest.cloudstack import CloudStack
    from fake_clouds.rest.digitalocean import DigitalOcean
    from fake_clouds.rest.hetzner import Hetzner
    from fake_clouds.rest.linode import Linode
    from fake_clouds.rest.openstack import OpenStackCompute
    from fake_clouds.rest.vultr import Vultr

    classes = (DigitalOcean, Linode, OpenStackCompute, Hetzner, Vultr, CloudStack)
    return {cls.name: cls for cls in classes}


DIALECTS: tuple[str, ...] = (
    "digitalocean",
    "linode",
    "openstack",
    "hetzner",
    "vultr",
    "cloudstack",
)


class RestServer:
    """The REST dialects of one fake cloud, registered on a ``responses.RequestsMock``."""

    def __init__(
        self,
        cloud: Any,
        dialects: Iterable[str] = DIALECTS,
        *,
        base_urls: Mapping[str, str] | None = None,
        tokens: Mapping[str, str] | None = None,
        mock: responses.RequestsMock | None = None,
    ) -> None:
        """Register *dialects* of *cloud* on *mock* (a new, inactive mock by default).

        *base_urls* / *tokens* override the defaults per dialect name. Unknown
        dialect names are a ConfigurationError naming the known ones.
        """
        known = dialect_classes()
        chosen = list(dialects)
        for where, names in (("dialects", chosen), ("base_urls", base_urls or {})):
            for name in sorted(names):
                if name not in known:
                    raise exception.ConfigurationError(
                        f"{where}: unknown REST dialect {name!r} (known: {', '.join(sorted(known))})"
                    )
        for name in sorted(tokens or {}):
            if name not in known:
                raise exception.ConfigurationError(
                    f"tokens: unknown REST dialect {name!r} (known: {', '.join(sorted(known))})"
                )
            if not isinstance(tokens[name], str) or not tokens[name]:  # type: ignore[index]
                raise exception.ConfigurationError(f"tokens.{name}: expected a non-empty string")
        self.cloud = cloud
        self.mock = (
            mock
            if mock is not None
            else responses.RequestsMock(assert_all_requests_are_fired=False)
        )
        self.dialects: dict[str, Dialect] = {}
        for name in chosen:
            cls = known[name]
            base = (base_urls or {}).get(name, cls.default_base_url)
            token = (tokens or {}).get(name, cls.default_token)
            dialect = cls(cloud, base, token)
            self.dialects[name] = dialect
            pattern = re.compile(re.escape(dialect.base_url) + r"(/[^?#]*)?(\?.*)?$")
            for method in METHODS:
                self.mock.add_callback(
                    method,
                    pattern,
                    callback=self._callback(dialect),
                    content_type="application/json",
                )
        self._calls: list[ServedCall] = []
        self._unserved: Counter[tuple[str, str, str]] = Counter()
        self._bugs: list[FakeBug] = []
        self.ec2: Any = None
        self.openstack_site: Any = None

    def serve_ec2(self) -> Any:
        """Serve Amazon EC2 through moto on the same mock (None when moto is not installed).

        See :mod:`fake_clouds.rest.aws_ec2`: moto's state is one per process,
        so this resets it.
        """
        from fake_clouds.rest.aws_ec2 import MotoEC2, moto_available

        if self.ec2 is None and moto_available():
            self.ec2 = MotoEC2(self)
        return self.ec2

    def serve_openstack(self, auth_url: str | None = None) -> Any:
        """Serve the world's OpenStack wire on the same mock, and its keystone at *auth_url*.

        See :mod:`fake_clouds.rest.openstack_site`; the wire's unserved
        endpoints join :meth:`unserved`.
        """
        from fake_clouds.rest.openstack_site import OpenStackSite

        if self.openstack_site is None:
            self.openstack_site = OpenStackSite(self, auth_url)
        return self.openstack_site

    def declare_keypair(self, name: str, key_file: str | None = None) -> bool:
        """Give the world SSH key *name* as a providers file names it (see accounts.py)."""
        from fake_clouds.rest.accounts import declare_keypair, declared_public_key

        return declare_keypair(self.cloud, name, declared_public_key(name, key_file))

    # --- lifecycle ----------------------------------------------------------------------

    def start(self) -> RestServer:
        """Activate the mock (patch ``requests``); return self."""
        self.mock.start()
        return self

    def stop(self) -> None:
        """Deactivate the mock; the routes stay registered, so the server can start again."""
        self.mock.stop()

    def __enter__(self) -> RestServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def base_url(self, dialect: str) -> str:
        """Return the base URL *dialect* is served at."""
        return self.dialects[dialect].base_url

    def token(self, dialect: str) -> str:
        """Return the token *dialect* accepts."""
        return self.dialects[dialect].token

    def address_of(self, shown: str) -> str:
        """Return the fake cloud's own address behind an address a dialect shows."""
        from fake_clouds.rest.common import rest_state

        return rest_state(self.cloud).aliases.get(shown, shown)

    def catalogue_misses(self) -> list[tuple[str, str, str]]:
        """Return ``(dialect, kind, value)`` of every catalogue entry asked for and lacking."""
        from fake_clouds.rest.common import rest_state

        return list(rest_state(self.cloud).misses)

    def headers(self, dialect: str) -> dict[str, str]:
        """Return the auth headers a client of *dialect* sends."""
        d = self.dialects[dialect]
        if dialect == "openstack":
            return {"X-Auth-Token": d.token}
        return {"Authorization": f"Bearer {d.token}"}

    # --- reports ------------------------------------------------------------------------

    def calls(self) -> list[ServedCall]:
        """Return every request handled so far, in order."""
        return list(self._calls)

    def unserved(self) -> list[UnservedCall]:
        """Return the endpoints called but not served (method + URL without query), sorted."""
        found = Counter(self._unserved)
        if self.openstack_site is not None:
            base = self.openstack_site.app.base_url
            for service, method, path, count in self.openstack_site.unserved():
                found[(f"openstack {service}", method, f"{base}/{service}{path}")] += count
        return [
            UnservedCall(dialect, method, url, count)
            for (dialect, method, url), count in sorted(found.items(), key=_unserved_key)
        ]

    def bugs(self) -> list[FakeBug]:
        """Return the unexpected exceptions handlers raised (each answered with a 500)."""
        return list(self._bugs)

    def record_bug(self, dialect: str, method: str, url: str, error: str, where: str) -> None:
        """Record an unexpected exception of a handler (answered with a 500)."""
        self._bugs.append(FakeBug(dialect, method, url, error, where))

    def report(self) -> RestReport:
        """Return calls, unserved endpoints and bugs together."""
        return RestReport(tuple(self._calls), tuple(self.unserved()), tuple(self._bugs))

    # --- the callback ---------------------------------------------------------------------

    def _callback(self, dialect: Dialect):
        def callback(prepared: requests.PreparedRequest) -> Any:
            kwargs = getattr(prepared, "req_kwargs", {}) or {}
            req = parse_request(
                prepared.method or "GET",
                prepared.url or "",
                dialect.base_url,
                prepared.headers,
                prepared.body,
                kwargs.get("timeout"),
            )
            return self._serve(dialect, req)

        return callback

    def _serve(self, dialect: Dialect, req: Request) -> Any:
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
        try:
            if not dialect.authenticate(req):
                self._charge(dialect, "unauthorized")
                reply = dialect.unauthorized()
            elif found is None or missing is not None:
                self._unserved[(dialect.name, req.method, dialect.endpoint(req))] += 1
                self._charge(dialect, "unserved")
                reply = dialect.unserved(req)
            else:
                with as_account(dialect, req):  # each credential is its own account
                    reply = self._run(dialect, found[0], op, req)
        except requests.exceptions.Timeout as ex:
            self._record(start, dialect, req, route_name, None, type(ex).__name__)
            return ex
        latency = self.cloud.now() - start
        limit = req.read_timeout()
        if limit is not None and latency > limit:
            self._record(start, dialect, req, route_name, None, "ReadTimeout")
            return requests.exceptions.ReadTimeout(
                f"{req.method} {req.url}: no answer within timeout={limit:g} s "
                f"(the fake cloud took {latency:.3f} s of virtual time)",
                request=None,
            )
        self._record(start, dialect, req, route_name, reply.status, "ok")
        headers = dict(reply.headers)
        body = "" if reply.body is None else json.dumps(reply.body, sort_keys=True)
        return reply.status, headers, body

    def _charge(self, dialect: Dialect, what: str) -> None:
        rnd = self.cloud.rng.stream("latency")
        self.cloud.clock.charge(self.cloud.latency.call("rest", f"{dialect.name}.{what}", rnd))

    def _run(self, dialect: Dialect, served: Any, op: Any, req: Request) -> Reply:
        handler = dialect.handler(served)
        faults_before = len(self.cloud.injected_faults())
        box: dict[str, Reply] = {}
        try:
            if op is None:
                self._charge(dialect, served.name)
                return handler(req)
            service, operation, kind = op

            def perform() -> Any:
                box["reply"] = handler(req)
                return {"id": req.entity_id} if req.entity_id else None

            self.cloud.dispatch(self.cloud.service(service), operation, kind, None, perform)
            return box["reply"]
        except exception.ClientTimeout as ex:
            raise self._timeout(req, ex, faults_before) from None
        except exception.ClientError as ex:
            return dialect.error_reply(ex, self._custom_body(faults_before))
        except Exception as ex:  # noqa: BLE001 - a bug of the fake must never reach the client
            frame = traceback.extract_tb(ex.__traceback__)[-1]
            where = f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno} in {frame.name}"
            error = f"{type(ex).__name__}: {ex}"
            self._bugs.append(FakeBug(dialect.name, req.method, req.url, error, where))
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

    def _timeout(self, req: Request, ex: Exception, before: int) -> Exception:
        applied = False
        for fault in self._new_faults(before):
            rule = self.cloud.faults.profile.rules[fault.rule_index]
            if rule.effect.type == "timeout":
                applied = bool(rule.effect.params.get("applied"))
        if applied:
            return requests.exceptions.ReadTimeout(f"{req.method} {req.url}: {ex}")
        return requests.exceptions.ConnectTimeout(f"{req.method} {req.url}: {ex}")

    def _record(
        self,
        start: float,
        dialect: Dialect,
        req: Request,
        route_name: str | None,
        status: int | None,
        outcome: str,
    ) -> None:
        latency = self.cloud.now() - start
        self._calls.append(
            ServedCall(
                start, dialect.name, req.method, req.url, route_name, status, latency, outcome
            )
        )


def _unserved_key(item: tuple[tuple[str, str, str], int]) -> tuple[str, str, str]:
    (dialect, method, url), _ = item
    return (url, method, dialect)


@contextmanager
def serve(
    cloud: Any,
    dialects: Iterable[str] = DIALECTS,
    *,
    base_urls: Mapping[str, str] | None = None,
    tokens: Mapping[str, str] | None = None,
    mock: responses.RequestsMock | None = None,
) -> Iterator[RestServer]:
    """Serve *dialects* of *cloud* for the duration of a ``with`` block.

    With *mock* given, the routes are added to it and the caller activates it;
    otherwise a private mock is started and stopped around the block.
    """
    server = RestServer(cloud, dialects, base_urls=base_urls, tokens=tokens, mock=mock)
    if mock is not None:
        yield server
        return
    with server:
        yield server
