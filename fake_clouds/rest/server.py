"""The provider dialects of one world, mounted in-process on a ``responses`` mock.

Each dialect is a WSGI application (:class:`fake_clouds.rest.app.DialectApp`,
werkzeug's routing and request parsing) over the world's services;
:class:`RestServer` builds one per dialect and mounts it at the dialect's
base URL through the in-process adapter (:mod:`fake_clouds.rest.mount`).
``plugsim serve --provider`` mounts the same applications on loopback. The
request pipeline (auth, routing, one dispatch per request, the provider's
error bodies, timeouts) is :mod:`fake_clouds.rest.app`'s.

``https://compute.openstack.fake/v2.1``, where an earlier nova-style dialect
answered, is the world's OpenStack wire (:mod:`fake_clouds.openstack`): its
compute service, with keystone beside it (see :mod:`fake_clouds.rest.openstack_site`).

A request to a host nothing serves fails with ``responses``'
``ConnectionError`` naming the URL: there is never real network I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import responses

from fake_clouds.rest.app import DialectApp, FakeBug, RestLog, ServedCall, UnservedCall
from fake_clouds.rest.dialect import Dialect
from fake_clouds.rest.mount import METHODS, mount
from sdk import exception

__all__ = [
    "DIALECTS",
    "METHODS",
    "PROVIDER_GROUP",
    "FakeBug",
    "RestReport",
    "RestServer",
    "ServedCall",
    "UnservedCall",
    "dialect_classes",
    "serve",
]


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


#: The entry-point group a provider dialect is registered in (name = the dialect's name).
PROVIDER_GROUP = "plugsim.providers"


def dialect_classes() -> dict[str, type[Dialect]]:
    """Return the provider dialect classes by name: the built-in ones, then the entry points.

    A package adds a provider with one entry point in :data:`PROVIDER_GROUP`
    naming its :class:`Dialect` subclass; it is then served in-process
    (:class:`RestServer`) and by ``plugsim serve --provider``. An entry point
    that does not load a dialect is a ConfigurationError naming it.
    """
    from fake_clouds.rest.cloudstack import CloudStack
    from fake_clouds.rest.digitalocean import DigitalOcean
    from fake_clouds.rest.hetzner import Hetzner
    from fake_clouds.rest.linode import Linode
    from fake_clouds.rest.vultr import Vultr
    from sdk._entry_points import group_entry_points

    found: dict[str, type[Dialect]] = {
        cls.name: cls for cls in (DigitalOcean, Linode, Hetzner, Vultr, CloudStack)
    }
    for ep in group_entry_points(PROVIDER_GROUP):
        where = f"entry point {ep.name} = {ep.value} (group {PROVIDER_GROUP})"
        try:
            cls = ep.load()
        except Exception as ex:  # noqa: BLE001 - a broken plug-in is named, not a traceback
            raise exception.ConfigurationError(
                f"{where}: could not be loaded: {type(ex).__name__}: {ex}"
            ) from None
        if not (isinstance(cls, type) and issubclass(cls, Dialect)) or not cls.name:
            raise exception.ConfigurationError(
                f"{where}: expected a fake_clouds.rest.Dialect subclass with a name"
            )
        found.setdefault(cls.name, cls)
    return found


#: Every name :class:`RestServer` serves: the dialects and ``openstack`` (the OpenStack wire).
DIALECTS: tuple[str, ...] = (
    "digitalocean",
    "linode",
    "openstack",
    "hetzner",
    "vultr",
    "cloudstack",
)


class RestServer:
    """The provider APIs of one fake cloud, mounted on a ``responses.RequestsMock``."""

    def __init__(
        self,
        cloud: Any,
        dialects: Iterable[str] = DIALECTS,
        *,
        base_urls: Mapping[str, str] | None = None,
        tokens: Mapping[str, str] | None = None,
        mock: responses.RequestsMock | None = None,
    ) -> None:
        """Mount *dialects* of *cloud* on *mock* (a new, inactive mock by default).

        *base_urls* / *tokens* override the defaults per dialect name. Unknown
        dialect names are a ConfigurationError naming the known ones.
        """
        from fake_clouds.rest.openstack_site import NovaEntry

        known: dict[str, Any] = {**dialect_classes(), NovaEntry.name: NovaEntry}
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
        self.log = RestLog()
        self.dialects: dict[str, Any] = {}
        self.apps: dict[str, DialectApp] = {}
        self.ec2: Any = None
        self.openstack_site: Any = None
        for name in chosen:
            cls = known[name]
            base = (base_urls or {}).get(name, cls.default_base_url)
            token = (tokens or {}).get(name, cls.default_token)
            if cls is NovaEntry:
                self.dialects[name] = NovaEntry(self, base, token)
                continue
            self.add_app(self.make_app(cls(cloud, base, token)))

    def make_app(self, dialect: Dialect) -> DialectApp:
        """The WSGI application serving *dialect* (subclasses serve theirs)."""
        return DialectApp(dialect, self.log)

    def add_app(self, app: DialectApp, *bases: str) -> DialectApp:
        """Mount *app* at its dialect's base URL (and at *bases*) on this server's mock."""
        dialect = app.dialect
        self.dialects[dialect.name] = dialect
        self.apps[dialect.name] = app
        for base in dict.fromkeys((dialect.base_url, *bases)):
            mount(self.mock, app, base)
        return app

    @property
    def _unserved(self) -> Counter[tuple[str, str, str]]:
        return self.log.unserved

    @property
    def _calls(self) -> list[ServedCall]:
        return self.log.calls

    @property
    def _bugs(self) -> list[FakeBug]:
        return self.log.bugs

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
        elif auth_url:
            self.openstack_site.serve_auth_url(auth_url)
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
        return self.dialects[dialect].client_headers()

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

    def _record(
        self,
        start: float,
        dialect: Any,
        req: Any,
        route: str | None,
        status: int | None,
        outcome: str,
    ) -> None:
        """Log a call answered outside a dialect app (moto's EC2)."""
        latency = self.cloud.now() - start
        self.log.calls.append(
            ServedCall(start, dialect.name, req.method, req.url, route, status, latency, outcome)
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
