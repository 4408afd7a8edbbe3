"""The Orchestration API v1 service on the OpenStack wire: routing, projects, Heat's errors.

:class:`OrchestrationAPI` is one more :class:`fake_clouds.openstack.base.ServiceAPI`
mounted in the world's :class:`~fake_clouds.openstack.app.WireApp` (at
``/heat-api/v1/{project_id}``, catalog type ``orchestration``), so tokens, the
catalog and the request ids work as for the other services. Its routes live
in mixins by concept (:mod:`.stacks`, :mod:`.resources`, :mod:`.templates`,
:mod:`.snapshots`); every route calls the world's stack verbs
(:mod:`simulator.stack_api`), the ones ``plugsim stack`` calls, and actions
run through :class:`~simulator.orchestration_wire.engine.ServedEngine`.

Heat's ways kept here:

* a stack named without its id (``/stacks/{name}`` or
  ``/stacks/{name}/resources`` ...) answers ``302 Found`` with the
  ``/stacks/{name}/{id}/...`` location, for every method (heatclient follows
  it with the same method);
* a project sees only its own stacks (``project_id`` in the stack's
  document; a stack made by ``plugsim stack`` belongs to the bootstrap
  ``admin`` project), and a URL naming another project than the token's is
  403;
* errors are Heat's fault documents ``{"code", "title", "explanation",
  "error": {"type", "message", "traceback"}}`` with the status Heat maps the
  error type to.
"""

from __future__ import annotations

import re
from typing import Any

from werkzeug.wrappers import Request, Response

from fake_clouds.identity import fixed_id
from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, ServiceAPI, route
from sdk import exception
from simulator.orchestration_wire.engine import ServedEngine
from simulator.orchestration_wire.errors import HeatError, classify, fault, not_found, wire_text
from simulator.orchestration_wire.resources import ResourceRoutes
from simulator.orchestration_wire.snapshots import SnapshotRoutes
from simulator.orchestration_wire.software import SoftwareRoutes
from simulator.orchestration_wire.stacks import StackRoutes
from simulator.orchestration_wire.templates import TemplateRoutes
from simulator.orchestration_wire.views import OWNER_KEY

#: the words after ``/stacks/{name}/`` that are sub-paths, not a stack id
_SUBPATHS = frozenset(
    "resources events template outputs environment files snapshots actions abandon export "
    "preview".split()
)
_LOOKUP = re.compile(r"^/v1/(?P<tenant>[^/]+)/stacks/(?P<name>[^/]+)(?P<rest>/.*)?$")


class OrchestrationAPI(
    StackRoutes, ResourceRoutes, TemplateRoutes, SnapshotRoutes, SoftwareRoutes, ServiceAPI
):
    """Heat's Orchestration API v1 over one served world."""

    prefix = "heat-api"
    catalog_type = "orchestration"
    catalog_name = "heat"
    #: Heat's ``max_json_body_size`` default: a template may be up to 512 KiB itself.
    max_body_size = 1048576

    def __init__(self, app: Any, world: Any, engine: ServedEngine | None = None) -> None:
        self.world = world
        self.engine = engine or ServedEngine(world)
        super().__init__(app)

    # --- shapes ---------------------------------------------------------------------

    def endpoint(self, project_id: str) -> str:
        """``{base}/heat-api/v1/{project_id}``, devstack's layout."""
        return f"{self.app.base_url}/{self.prefix}/v1/{project_id}"

    def error_body(self, status: int, message: str) -> Any:
        """Heat's fault document for an error raised by the shared machinery."""
        kind = {404: "NotFound", 405: "HTTPMethodNotAllowed", 401: "Unauthorized"}.get(
            status, "HTTPBadRequest" if status < 500 else "HTTPInternalServerError"
        )
        return fault(status, kind, message)

    def core_error_body(self, status: int, ex: exception.ClientError) -> Any:
        """A fake cloud's typed error, in Heat's shape."""
        return fault(status, type(ex).__name__, str(ex))

    # --- handling -------------------------------------------------------------------

    def handle(self, raw: Request, path: str) -> Response:
        """Answer a request; a stack named without its id is redirected first."""
        lookup = _LOOKUP.match(path)
        if lookup and self._needs_lookup(lookup):
            req = ApiRequest(raw, self)
            headers = {"X-Openstack-Request-Id": "req-" + self.cloud.rng.uuid("requests")}
            req.token = self.app.identity_api.check_token(req.headers.get("X-Auth-Token"))
            if req.token is None:
                return self._response(self.app.identity_api.unauthorized(), headers)
            try:
                reply = self._redirect(req, lookup)
            except HeatError as ex:
                reply = Reply(ex.status, fault(ex.status, ex.kind, ex.message))
            return self._response(reply, headers)
        return super().handle(raw, path)

    def _needs_lookup(self, match: re.Match[str]) -> bool:
        name, rest = match["name"], match["rest"] or ""
        if name in ("preview", "detail") and not rest:
            return False
        second = rest.strip("/").split("/", 1)[0]
        return not second or second in _SUBPATHS and not self._is_stack_id(name, second)

    def _is_stack_id(self, name: str, candidate: str) -> bool:
        rec = self.world.store.get_stack(candidate)
        return rec is not None and rec.id == candidate and rec.name == name

    def _redirect(self, req: ApiRequest, match: re.Match[str]) -> Reply:
        tenant = match["tenant"]
        self.check_tenant(req, tenant)
        rec = self.visible_record(req, match["name"], deleted_ok=True)
        query = req.raw.query_string.decode("latin-1")
        location = f"{self.endpoint(tenant)}/stacks/{rec.name}/{rec.id}{match['rest'] or ''}" + (
            f"?{query}" if query else ""
        )
        return Reply(302, None, {"Location": location})

    def _run(self, handler: Any, spec: Any, req: ApiRequest, params: dict[str, Any]) -> Reply:
        def guarded(req: ApiRequest, **kw: Any) -> Reply:
            try:
                return handler(req, **kw)
            except HeatError as ex:
                return Reply(ex.status, fault(ex.status, ex.kind, ex.message))
            except ApiError:
                raise
            except exception.PlugsimError as ex:
                status, kind = classify(ex)
                return Reply(status, fault(status, kind, wire_text(ex)))

        # no commit here: ``plugsim serve``'s GroupCommit holds the answer of a changing
        # request back until a commit covers it (one path for every served service)
        return super()._run(guarded, spec, req, params)

    # --- projects -----------------------------------------------------------------------

    def check_tenant(self, req: ApiRequest, tenant: str) -> None:
        """A URL naming another project than the token's is Heat's 403."""
        if tenant != req.project_id:
            raise HeatError(
                403,
                "Forbidden",
                f"The project {tenant} of the URL is not the token's project.",
            )

    def owner(self, rec: Any) -> str:
        """The project a stack belongs to (a nested stack: its root's)."""
        store = self.world.store
        while rec.parent_id is not None:
            parent = store.get_stack(rec.parent_id)
            if parent is None:
                break
            rec = parent
        return str(rec.doc.get(OWNER_KEY) or fixed_id("project", "admin"))

    def visible_record(self, req: ApiRequest, name_or_id: str, *, deleted_ok: bool = False) -> Any:
        """The stack record *name_or_id* names, if the caller's project may see it."""
        rec = self.world.store.get_stack(name_or_id)
        if rec is None or (rec.deleted and not (deleted_ok and rec.id == name_or_id)):
            raise not_found("Stack", name_or_id)
        if self.owner(rec) != req.project_id:
            raise not_found("Stack", name_or_id)
        return rec

    def stack(self, req: ApiRequest, tenant: str, name: str, sid: str, **kw: Any) -> Any:
        """The :class:`~simulator.stack.Stack` ``/stacks/{name}/{sid}`` names (404 otherwise)."""
        self.check_tenant(req, tenant)
        rec = self.visible_record(req, sid, deleted_ok=kw.get("deleted_ok", False))
        if rec.name != name:
            raise not_found("Stack", name)
        return self.world.get_stack(rec.id, deleted_ok=True)

    # --- versions and build info ----------------------------------------------------------

    @route("GET", "/", public=True)
    def versions(self, req: ApiRequest) -> Reply:
        """``GET /heat-api``: the API versions."""
        link = {"href": f"{self.app.base_url}/{self.prefix}/v1/", "rel": "self"}
        return Reply(300, {"versions": [{"id": "v1.0", "status": "CURRENT", "links": [link]}]})

    @route("GET", "/v1/<tenant>/build_info")
    def build_info(self, req: ApiRequest, tenant: str) -> Reply:
        """``GET /build_info``: the (fake) engine's revision."""
        self.check_tenant(req, tenant)
        from importlib.metadata import PackageNotFoundError, version

        try:
            revision = version("plugsim")
        except PackageNotFoundError:  # a source checkout without metadata
            revision = "unknown"
        return Reply(200, {"api": {"revision": revision}, "engine": {"revision": revision}})
