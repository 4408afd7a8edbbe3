"""One WSGI application per fake cloud speaking the OpenStack APIs (werkzeug).

Every service lives under its own path prefix of one base URL, as devstack
lays them out::

    {base}/identity/v3          keystone       (fake_clouds.openstack.identity)
    {base}/compute/v2.1         nova           (fake_clouds.openstack.compute)
    {base}/network/v2.0         neutron        (fake_clouds.openstack.network)
    {base}/volume/v3/{project}  cinder         (fake_clouds.openstack.block_storage)
    {base}/image/v2             glance         (fake_clouds.openstack.image)
    {base}/object-store/v1/AUTH_{project}  swift  (fake_clouds.openstack.object_store)

The catalog a token carries lists exactly these endpoints, so a client that
only knows the auth URL finds the rest. The same application is served
in-process through ``responses`` (:mod:`fake_clouds.openstack.inprocess`) and
over a loopback socket by ``plugsim serve``; both read and write the services
of one :class:`~fake_clouds.core.world.FakeCloud`, so the engine's Python
clients and the wire see the same entities.

A path no service answers is a 404 and is counted in :meth:`WireApp.unserved`
with the method and path (ids replaced by ``{id}``), so a report can say which
endpoint a client needed that the fake lacks.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

from werkzeug.wrappers import Request, Response

from fake_clouds.openstack.base import ServiceAPI
from fake_clouds.openstack.identity import IdentityAPI
from fake_clouds.openstack.wire_input import DEFAULT_MAX_BODY, SPOOLED, admit

#: The base URL the in-process transport answers at.
DEFAULT_BASE_URL = "http://openstack.plugsim.test"
REGION = "RegionOne"
_ID = re.compile(r"/(?:[0-9a-f]{32}|[0-9a-f-]{36}|\d+)(?=/|$)")


@dataclass(frozen=True)
class Unserved:
    """An endpoint a client called that the fake does not serve, with its count."""

    service: str
    method: str
    path: str
    count: int


@dataclass(frozen=True)
class WireBug:
    """An unexpected exception inside a handler, answered with the service's 500."""

    service: str
    method: str
    path: str
    error: str
    where: str


def api_classes() -> list[type[ServiceAPI]]:
    """Return the service API classes the wire serves, identity first."""
    from fake_clouds.openstack.block_storage import BlockStorageAPI
    from fake_clouds.openstack.compute import ComputeAPI
    from fake_clouds.openstack.image import ImageAPI
    from fake_clouds.openstack.network import NetworkAPI
    from fake_clouds.openstack.object_store import ObjectStoreAPI

    return [IdentityAPI, ComputeAPI, NetworkAPI, BlockStorageAPI, ImageAPI, ObjectStoreAPI]


class WireApp:
    """The OpenStack APIs of one fake cloud as a WSGI application."""

    def __init__(
        self,
        cloud: Any,
        base_url: str = DEFAULT_BASE_URL,
        *,
        lock: threading.Lock | threading.RLock | None = None,
        after_request: Callable[[dict[str, Any]], None] | None = None,
        body_limits: Mapping[str, int] | None = None,
        before_request: Callable[[], None] | None = None,
        extra_apis: Iterable[Callable[[WireApp], ServiceAPI]] = (),
        mounts: Mapping[str, Callable[..., Iterable[bytes]]] | None = None,
    ) -> None:
        """Serve *cloud* at *base_url*.

        *after_request* runs inside the lock last, with the request's WSGI
        environ (``plugsim serve`` gives a changing request its commit ticket
        there). *body_limits* maps a service prefix to its largest request
        body in bytes (default: each service's :attr:`ServiceAPI.max_body_size`).

        *lock* (if any) is held around every request; *before_request* runs
        inside it first (``plugsim serve`` moves virtual time forward there).
        *extra_apis* build more services on this app (each is called with the
        app): the engine's Orchestration API is mounted so, from above, since
        the fake clouds never import the engine.
        """
        self.cloud = cloud
        self.base_url = base_url.rstrip("/")
        self.lock = lock
        self.before_request = before_request
        self.after_request = after_request
        self.body_limits = dict(body_limits or {})
        self.mounts = dict(mounts or {})
        if "identity" not in cloud.service_names():
            cloud.add_service("identity")
        self.apis: dict[str, ServiceAPI] = {}
        for cls in api_classes():
            self.apis[cls.prefix] = cls(self)
        for factory in extra_apis:
            api = factory(self)
            self.apis[api.prefix] = api
        self.identity_api: IdentityAPI = self.apis["identity"]  # type: ignore[assignment]
        self._unserved: Counter[tuple[str, str, str]] = Counter()
        self._bugs: list[WireBug] = []

    @property
    def auth_url(self) -> str:
        """The keystone URL clients authenticate against."""
        return f"{self.base_url}/identity/v3"

    # --- the catalog --------------------------------------------------------------------

    def catalog(self, project_id: str | None, *, registered: bool = True) -> list[dict[str, Any]]:
        """Return keystone's catalog: one entry per service, one endpoint per interface.

        The fake's own services come first; with *registered*, the enabled services
        registered in the identity service follow with their enabled endpoints.
        """
        out = []
        for prefix, api in self.apis.items():
            url = api.endpoint(project_id or "")
            endpoints = [
                {
                    "id": f"{prefix}-{interface}",
                    "interface": interface,
                    "region": REGION,
                    "region_id": REGION,
                    "url": url,
                }
                for interface in ("public", "internal", "admin")
            ]
            out.append(
                {
                    "id": prefix,
                    "type": api.catalog_type,
                    "name": api.catalog_name,
                    "endpoints": endpoints,
                }
            )
        if registered:
            out += self._registered_catalog()
        return out

    def _registered_catalog(self) -> list[dict[str, Any]]:
        identity = self.cloud.service("identity")
        endpoints = [e for e in identity._live("endpoint") if e.attrs["enabled"]]
        out = []
        for service in identity._live("service"):
            if not service.attrs["enabled"]:
                continue
            mine = [
                {
                    "id": e.id,
                    "interface": e.attrs["interface"],
                    "region": e.attrs["region_id"],
                    "region_id": e.attrs["region_id"],
                    "url": e.attrs["url"],
                }
                for e in endpoints
                if e.attrs["service_id"] == service.id
            ]
            out.append(
                {
                    "id": service.id,
                    "type": service.attrs["type"],
                    "name": service.name,
                    "endpoints": mine,
                }
            )
        return out

    # --- reports ------------------------------------------------------------------------

    def count_unserved(self, service: str, method: str, path: str) -> None:
        """Count a request no route answers."""
        self._unserved[(service, method, _ID.sub("/{id}", path))] += 1

    def unserved(self) -> list[Unserved]:
        """Return the endpoints called but not served, sorted by path."""
        return [
            Unserved(service, method, path, count)
            for (service, method, path), count in sorted(
                self._unserved.items(), key=lambda item: (item[0][2], item[0][1], item[0][0])
            )
        ]

    def record_bug(self, service: str, method: str, path: str, error: str, where: str) -> None:
        """Record an unexpected exception of a handler."""
        self._bugs.append(WireBug(service, method, path, error, where))

    def bugs(self) -> list[WireBug]:
        """Return the unexpected exceptions so far."""
        return list(self._bugs)

    # --- WSGI -----------------------------------------------------------------------------

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        """Answer one WSGI request."""
        refusal = admit(self, environ)  # bounded input, before the world lock
        if refusal is not None:
            return refusal(environ, start_response)
        request = Request(environ)
        try:
            with self.lock if self.lock is not None else nullcontext():
                if self.before_request is not None:
                    self.before_request()
                try:
                    response = self.dispatch(request)
                finally:
                    if self.after_request is not None:
                        self.after_request(environ)
        finally:
            spooled = environ.pop(SPOOLED, None)
            if spooled is not None:  # a body the handler did not keep
                self.cloud.blobs.discard(spooled)
        return response(environ, start_response)

    def body_limit(self, prefix: str, *, upload: bool = False) -> int:
        """The largest request body the service at *prefix* accepts, in bytes.

        *upload*: a data upload (a ``PUT`` of a service with ``max_upload_size``).
        ``body_limits`` overrides a service's largest body: its upload limit
        when it takes uploads, else its body limit.
        """
        api = self.apis.get(prefix)
        if api is None:
            return DEFAULT_MAX_BODY
        takes_uploads = api.max_upload_size is not None
        if prefix in self.body_limits and upload == takes_uploads:
            return self.body_limits[prefix]
        if upload and api.max_upload_size is not None:
            return api.max_upload_size
        return api.max_body_size

    def dispatch(self, request: Request) -> Response:
        """Route *request* to the service its first path segment names."""
        path = request.path
        prefix, _, rest = path.lstrip("/").partition("/")
        mounted = self.mounts.get(prefix)
        if mounted is not None:
            return Response.from_app(mounted, request.environ, buffered=True)
        api = self.apis.get(prefix)
        if api is None:
            self.count_unserved("-", request.method, path)
            body = '{"error": {"code": 404, "message": "No service is served at this path."}}'
            return Response(body, 404, content_type="application/json")
        return api.handle(request, "/" + rest)
