"""Network v2.0 on the wire (neutron): networks, subnets, ports, routers with
interfaces and gateways, floating IPs, security groups and rules, subnet pools
and address scopes, quotas and the extension list; neutron's API extensions
(QoS, trunks, FWaaS v1, metering, RBAC, gateways, sfc, taas) are
:mod:`fake_clouds.openstack.network_ext`'s.

Lists filter on any attribute given as a query parameter (repeat it for
"any of"), keep only the ``fields`` asked for, and page with ``limit`` and
``marker`` (a ``<collection>_links`` entry points at the next page), as
neutron does. Errors are ``{"NeutronError": {"type", "message", "detail"}}``.
Every entity is the network service's, so the engine's Python client sees what
the wire created.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.core.network_ext_schema import BODY_KEYS
from fake_clouds.core.network_schema import PLURALS, SCHEMAS
from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, ServiceAPI, bad, route
from fake_clouds.openstack.network_agents import NetworkAgentRoutes
from fake_clouds.openstack.network_ext import STATUSLESS, NetworkExtensionRoutes
from fake_clouds.rest.common import iso
from sdk import exception

#: URL collection -> entity kind.
COLLECTIONS = {
    "networks": "network",
    "subnets": "subnet",
    "ports": "port",
    "routers": "router",
    "floatingips": "floatingip",
    "security-groups": "security_group",
    "security-group-rules": "security_group_rule",
    "subnetpools": "subnetpool",
    "address-scopes": "address_scope",
    # extensions at the top level (the others are under a group: fake_clouds.openstack.network_ext)
    "trunks": "trunk",
    "rbac-policies": "rbac_policy",
    "l2-gateways": "l2_gateway",
    "l2-gateway-connections": "l2_gateway_connection",
    "network-gateways": "network_gateway",
}
_TYPES = {400: "HTTPBadRequest", 401: "HTTPUnauthorized", 404: "HTTPNotFound"}
_TYPES.update({405: "HTTPMethodNotAllowed", 409: "HTTPConflict", 413: "OverQuota"})
#: extensions a client may probe: (alias, name)
EXTENSIONS = (
    ("address-scope", "Address scope"),
    ("agent", "agent"),
    ("allowed-address-pairs", "Allowed Address Pairs"),
    ("availability_zone", "Availability Zone"),
    ("binding", "Port Binding"),
    ("external-net", "Neutron external network"),
    ("extra_dhcp_opt", "Neutron Extra DHCP options"),
    ("fip-port-details", "Floating IP Port Details Extension"),
    ("extraroute", "Neutron Extra Route"),
    ("l3_agent_scheduler", "L3 Agent Scheduler"),
    ("net-mtu", "Network MTU"),
    ("port-security", "Port Security"),
    ("quotas", "Quota management support"),
    ("router", "Neutron L3 Router"),
    ("security-group", "security-group"),
    ("standard-attr-description", "standard-attr-description"),
    ("standard-attr-tag", "Tag support for resources with standard attribute"),
    ("standard-attr-timestamp", "Resource timestamps"),
    ("stateful-security-group", "Stateful security group"),
    ("subnet_allocation", "Subnet Allocation"),
    # the extensions of fake_clouds.openstack.network_ext
    ("flow_classifier", "Flow Classifier"),
    ("fwaas", "Firewall service"),
    ("l2-gateway", "L2 Gateway"),
    ("l2-gateway-connection", "L2 Gateway connection"),
    ("metering", "Neutron Metering"),
    ("network-gateway", "Network Gateway"),
    ("qos", "Quality of Service"),
    ("rbac-policies", "RBAC Policies"),
    ("sfc", "Port Chaining"),
    ("taas", "Neutron Tap as a Service"),
    ("trunk", "Trunk Extension"),
)


class NetworkAPI(NetworkExtensionRoutes, NetworkAgentRoutes, ServiceAPI):
    """Neutron v2.0 (``/network/v2.0``)."""

    prefix = "network"
    catalog_type = "network"
    catalog_name = "neutron"

    @property
    def network(self) -> Any:
        """The network service."""
        return self.cloud.service("network")

    def error_body(self, status: int, message: str) -> Any:
        """Neutron's ``NeutronError`` body."""
        return {
            "NeutronError": {
                "type": _TYPES.get(status, "HTTPError"),
                "message": message,
                "detail": "",
            }
        }

    def core_error_body(self, status: int, ex: exception.ClientError) -> Any:
        """Keep the network service's ``NeutronError`` bodies; shape anything else."""
        body = ex.body
        if isinstance(body, dict) and isinstance(body.get("NeutronError"), dict):
            return body
        return self.error_body(status, str(ex))

    # --- versions and extensions ------------------------------------------------------

    @route("GET", "/", public=True)
    def versions(self, req: ApiRequest) -> Reply:
        """``GET /network``: the version list."""
        link = [{"href": self.url("/v2.0/"), "rel": "self"}]
        return Reply(200, {"versions": [{"id": "v2.0", "status": "CURRENT", "links": link}]})

    @route("GET", "/v2.0")
    def resources(self, req: ApiRequest) -> Reply:
        """``GET /v2.0``: the collections."""
        items = [
            {
                "name": kind,
                "collection": col,
                "links": [{"href": self.url(f"/v2.0/{col}"), "rel": "self"}],
            }
            for col, kind in COLLECTIONS.items()
        ]
        return Reply(200, {"resources": items})

    @route("GET", "/v2.0/extensions")
    def extensions(self, req: ApiRequest) -> Reply:
        """``GET /v2.0/extensions``."""
        items = [
            {
                "alias": alias,
                "name": name,
                "description": name,
                "links": [],
                "updated": "2024-01-01T00:00:00-00:00",
            }
            for alias, name in EXTENSIONS
        ]
        return Reply(200, {"extensions": items})

    @route("GET", "/v2.0/extensions/<alias>")
    def extension(self, req: ApiRequest, alias: str) -> Reply:
        """``GET /v2.0/extensions/{alias}``."""
        for known, name in EXTENSIONS:
            if known == alias:
                return Reply(
                    200,
                    {"extension": {"alias": alias, "name": name, "description": name, "links": []}},
                )
        raise ApiError(404, f"Extension with alias {alias} does not exist")

    @route("GET", "/v2.0/service-providers")
    def service_providers(self, req: ApiRequest) -> Reply:
        """``GET /v2.0/service-providers``: the one router provider the fake implements."""
        provider = {"service_type": "L3_ROUTER_NAT", "name": "default", "default": True}
        return Reply(200, {"service_providers": [provider]})

    @route("GET", "/v2.0/availability_zones")
    def availability_zones(self, req: ApiRequest) -> Reply:
        """``GET /v2.0/availability_zones``: the world's one zone, ``nova`` (as nova reports),
        for networks and routers (filters ``name``, ``resource``, ``state``)."""
        items = [
            {"name": "nova", "resource": resource, "state": "available"}
            for resource in ("network", "router")
        ]
        for key in ("name", "resource", "state"):
            if key in req.args:
                items = [i for i in items if i[key] in req.args.getlist(key)]
        return Reply(200, {"availability_zones": items})

    # --- views --------------------------------------------------------------------------

    def view(self, kind: str, item: dict[str, Any]) -> dict[str, Any]:
        """Return neutron's body of one entity."""
        out = dict(item)
        out["created_at"] = iso(item["created_at"])
        out["updated_at"] = iso(item["updated_at"])
        out.setdefault("tags", [])
        out.setdefault("revision_number", 1)
        if kind == "security_group":
            out["security_group_rules"] = [
                self.view("security_group_rule", r)
                for r in self.network.list_security_group_rules()
                if r["security_group_id"] == item["id"]
            ]
        if kind == "network":
            out.setdefault("availability_zones", ["nova"])
            out.setdefault("router:external", False)
        if kind == "router":
            out.pop("interfaces", None)
        if kind in (
            "security_group",
            "security_group_rule",
            "subnet",
            "subnetpool",
            "address_scope",
        ):
            out.pop("status", None)
        if kind in STATUSLESS:
            out.pop("status", None)
        if kind in ("floatingip", "security_group_rule", "rbac_policy", "metering_label_rule"):
            out.pop("name", None)
        if kind == "floatingip":
            out["port_details"] = self._port_details(item.get("port_id"))
        return out

    def _port_details(self, port_id: Any) -> dict[str, Any] | None:
        """The ``fip-port-details`` of a floating IP's port (None when unassociated)."""
        if not port_id:
            return None
        try:
            port = self.network.get_port(port_id)
        except exception.NotFound:
            return None
        keys = ("name", "network_id", "mac_address", "admin_state_up", "device_id")
        details = {k: port.get(k) for k in keys}
        details.update(status=port.get("status"), device_owner=port.get("device_owner"))
        return details

    # --- generic CRUD -------------------------------------------------------------------

    def _kind(self, collection: str) -> str:
        kind = COLLECTIONS.get(collection)
        if kind is None:
            raise ApiError(404, f"The resource {collection} could not be found.", unserved=True)
        return kind

    def _op(self, collection: str, verb: str) -> Any:
        kind = COLLECTIONS.get(collection)
        if kind is None:
            return None
        return ("network", f"{PLURALS[kind][0]}.{verb}", kind)

    def op_list(self, req: ApiRequest, collection: str) -> Any:
        """The operation a list dispatches as."""
        return self._op(collection, "list")

    def op_create(self, req: ApiRequest, collection: str) -> Any:
        """The operation a create dispatches as."""
        return self._op(collection, "create")

    def op_get(self, req: ApiRequest, collection: str, ident: str, **_: Any) -> Any:
        """The operation a show dispatches as."""
        return self._op(collection, "get")

    def op_update(self, req: ApiRequest, collection: str, ident: str, **_: Any) -> Any:
        """The operation an update dispatches as."""
        return self._op(collection, "update")

    def op_delete(self, req: ApiRequest, collection: str, ident: str) -> Any:
        """The operation a delete dispatches as."""
        return self._op(collection, "delete")

    def _call(self, kind: str, verb: str, *args: Any) -> Any:
        method = f"list_{PLURALS[kind][0]}" if verb == "list" else f"{verb}_{kind}"
        return getattr(self.network, method)(*args)

    @route("GET", "/v2.0/<collection>", op="op_list")
    def list_collection(self, req: ApiRequest, collection: str) -> Reply:
        """List with neutron's filters, ``fields`` and ``limit``/``marker`` paging."""
        return self.list_kind(req, self._kind(collection), collection)

    def list_kind(self, req: ApiRequest, kind: str, collection: str) -> Reply:
        """List the *kind* entities (URL collection *collection*) as neutron does."""
        items = [self.view(kind, i) for i in self._call(kind, "list")]
        for key in sorted(set(req.args)):
            if key in ("fields", "limit", "marker", "page_reverse", "sort_key", "sort_dir"):
                continue
            wanted = req.args.getlist(key)
            items = [i for i in items if key in i and _matches(i[key], wanted)]
        body: dict[str, Any] = {}
        plural = collection_key(kind)
        limit = req.args.get("limit")
        if limit is not None:
            if not limit.isdigit():
                raise bad(
                    f"Bad limit request: Limit must be an integer 0 or greater and not '{limit}'."
                )
            marker = req.args.get("marker")
            if marker is not None:
                ids = [i["id"] for i in items]
                if marker not in ids:
                    raise ApiError(404, f"Marker {marker} could not be found.")
                items = items[ids.index(marker) + 1 :]
            if int(limit) and len(items) > int(limit):
                items = items[: int(limit)]
                nxt = self.url(f"/v2.0/{collection}?limit={limit}&marker={items[-1]['id']}")
                body[f"{plural}_links"] = [{"href": nxt, "rel": "next"}]
        fields = req.args.getlist("fields")
        if fields:
            items = [{k: v for k, v in i.items() if k in fields} for i in items]
        body[plural] = items
        return Reply(200, body)

    @route("POST", "/v2.0/<collection>", op="op_create")
    def create(self, req: ApiRequest, collection: str) -> Reply:
        """Create one entity (bulk create with the plural key too)."""
        return self.create_kind(req, self._kind(collection))

    def create_kind(self, req: ApiRequest, kind: str) -> Reply:
        """Create one *kind* entity (or several under the plural key)."""
        body = req.json()
        plural = collection_key(kind)
        if plural in body:
            if not isinstance(body[plural], list):
                raise bad(f"Invalid input: '{plural}' must be a list")
            made = [self._create(req, kind, spec) for spec in body[plural]]
            return Reply(201, {plural: made})
        return Reply(201, {member_key(kind): self._create(req, kind, req.member(member_key(kind)))})

    def _create(self, req: ApiRequest, kind: str, spec: Any) -> dict[str, Any]:
        if not isinstance(spec, dict):
            raise bad(f"Invalid input for {kind}: expected an object")
        attrs = dict(spec)
        attrs.pop("tags", None)
        project = attrs.get("project_id") or attrs.get("tenant_id") or req.project_id
        attrs["project_id"] = attrs["tenant_id"] = project
        _check_types(kind, attrs)
        return self.view(kind, self._call(kind, "create", attrs))

    @route("GET", "/v2.0/<collection>/<ident>", op="op_get")
    def show(self, req: ApiRequest, collection: str, ident: str) -> Reply:
        """Show one entity (``fields`` honoured)."""
        return self.show_kind(req, self._kind(collection), ident)

    def show_kind(self, req: ApiRequest, kind: str, ident: str) -> Reply:
        """Show one *kind* entity (``fields`` honoured)."""
        item = self.view(kind, self._call(kind, "get", ident))
        fields = req.args.getlist("fields")
        if fields:
            item = {k: v for k, v in item.items() if k in fields}
        return Reply(200, {member_key(kind): item})

    @route("PUT", "/v2.0/<collection>/<ident>", op="op_update")
    def update(self, req: ApiRequest, collection: str, ident: str) -> Reply:
        """Update one entity; a router's ``external_gateway_info`` sets or clears its gateway."""
        return self.update_kind(req, self._kind(collection), ident)

    def update_kind(self, req: ApiRequest, kind: str, ident: str) -> Reply:
        """Update one *kind* entity."""
        attrs = dict(req.member(member_key(kind)))
        attrs.pop("tags", None)
        _check_types(kind, attrs)
        if kind == "router" and "external_gateway_info" in attrs:
            gateway = attrs.pop("external_gateway_info")
            if gateway:
                self.network.set_gateway(ident, gateway)
            else:
                self.network.remove_gateway(ident)
        if attrs or kind != "router":
            item = self._call(kind, "update", ident, attrs)
        else:
            item = self._call(kind, "get", ident)
        return Reply(200, {member_key(kind): self.view(kind, item)})

    @route("DELETE", "/v2.0/<collection>/<ident>", op="op_delete")
    def delete(self, req: ApiRequest, collection: str, ident: str) -> Reply:
        """Delete one entity."""
        self._call(self._kind(collection), "delete", ident)
        return Reply(204)

    # --- tags ----------------------------------------------------------------------------

    def _tagged(self, collection: str, ident: str) -> Any:
        kind = self._kind(collection)
        return self.network._get(kind, ident, label=kind.replace("_", " ").capitalize())

    def _set_tags(self, ent: Any, tags: Any) -> list[str]:
        if not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags):
            raise bad("Invalid input for tags. Reason: a list of non-empty strings is required.")
        if any(len(t) > 255 or "," in t or "/" in t for t in tags):
            raise bad("Invalid input for tags. Reason: a tag holds no ',' or '/' (<= 255 chars).")
        self.network._set(ent, tags=sorted(set(tags)))
        return ent.attrs["tags"]

    @route("GET", "/v2.0/<collection>/<ident>/tags", op="op_get")
    def get_tags(self, req: ApiRequest, collection: str, ident: str) -> Reply:
        """The tags of an entity."""
        return Reply(200, {"tags": list(self._tagged(collection, ident).attrs.get("tags", []))})

    @route("PUT", "/v2.0/<collection>/<ident>/tags", op="op_update")
    def replace_tags(self, req: ApiRequest, collection: str, ident: str) -> Reply:
        """Replace every tag."""
        ent = self._tagged(collection, ident)
        return Reply(200, {"tags": self._set_tags(ent, req.json().get("tags"))})

    @route("DELETE", "/v2.0/<collection>/<ident>/tags", op="op_update")
    def clear_tags(self, req: ApiRequest, collection: str, ident: str) -> Reply:
        """Remove every tag."""
        self._set_tags(self._tagged(collection, ident), [])
        return Reply(204)

    @route("GET", "/v2.0/<collection>/<ident>/tags/<tag>", op="op_get")
    def check_tag(self, req: ApiRequest, collection: str, ident: str, tag: str) -> Reply:
        """204 when the entity has *tag*."""
        if tag not in self._tagged(collection, ident).attrs.get("tags", []):
            raise ApiError(404, f"Tag {tag} could not be found.")
        return Reply(204)

    @route("PUT", "/v2.0/<collection>/<ident>/tags/<tag>", op="op_update")
    def add_tag(self, req: ApiRequest, collection: str, ident: str, tag: str) -> Reply:
        """Add one tag."""
        ent = self._tagged(collection, ident)
        self._set_tags(ent, [*ent.attrs.get("tags", []), tag])
        return Reply(201)

    @route("DELETE", "/v2.0/<collection>/<ident>/tags/<tag>", op="op_update")
    def remove_tag(self, req: ApiRequest, collection: str, ident: str, tag: str) -> Reply:
        """Remove one tag."""
        ent = self._tagged(collection, ident)
        tags = ent.attrs.get("tags", [])
        if tag not in tags:
            raise ApiError(404, f"Tag {tag} could not be found.")
        self._set_tags(ent, [t for t in tags if t != tag])
        return Reply(204)

    # --- routers ----------------------------------------------------------------------------

    @route(
        "PUT",
        "/v2.0/routers/<ident>/add_router_interface",
        op=("network", "routers.add_interface", "router"),
    )
    def add_interface(self, req: ApiRequest, ident: str) -> Reply:
        """Plug a subnet or port into a router."""
        body = req.json()
        if not body.get("subnet_id") and not body.get("port_id"):
            raise bad("Bad router request: Either subnet_id or port_id must be specified.")
        return Reply(200, self.network.add_interface(ident, body))

    @route(
        "PUT",
        "/v2.0/routers/<ident>/remove_router_interface",
        op=("network", "routers.remove_interface", "router"),
    )
    def remove_interface(self, req: ApiRequest, ident: str) -> Reply:
        """Unplug a subnet or port from a router."""
        body = req.json()
        if not body.get("subnet_id") and not body.get("port_id"):
            raise bad("Bad router request: Either subnet_id or port_id must be specified.")
        return Reply(200, self.network.remove_interface(ident, body))

    # --- quotas -------------------------------------------------------------------------

    @route("GET", "/v2.0/quotas", op=("network", "quotas.get", None))
    def list_quotas(self, req: ApiRequest) -> Reply:
        """``GET /v2.0/quotas``: the projects with quotas of their own."""
        items = [
            {**self.network.project_quota(p), "project_id": p, "tenant_id": p}
            for p in sorted(self.network.project_quotas)
        ]
        return Reply(200, {"quotas": items})

    @route("GET", "/v2.0/quotas/<project>", op=("network", "quotas.get", None))
    @route("GET", "/v2.0/quotas/<project>/detail", op=("network", "quotas.get", None))
    def quotas(self, req: ApiRequest, project: str) -> Reply:
        """The project's network quotas (``/detail``: with what is used)."""
        quota: dict[str, Any] = self.network.project_quota(project)
        if req.raw.path.endswith("/detail"):
            quota = {
                k: {"limit": v, "used": self.network._count(k), "reserved": 0}
                for k, v in quota.items()
            }
        return Reply(200, {"quota": quota})

    @route("GET", "/v2.0/quotas/<project>/default")
    def quota_defaults(self, req: ApiRequest, project: str) -> Reply:
        """``GET /v2.0/quotas/{project}/default``: the service-wide quotas."""
        return Reply(200, {"quota": dict(sorted(self.network.quotas.items()))})

    @route("PUT", "/v2.0/quotas/<project>", op=("network", "quotas.update", None))
    def update_quotas(self, req: ApiRequest, project: str) -> Reply:
        """``PUT /v2.0/quotas/{project}`` with ``{"quota": {name: limit}}``."""
        spec = dict(req.member("quota"))
        return Reply(200, {"quota": self.network.set_project_quota(project, spec)})

    @route("DELETE", "/v2.0/quotas/<project>", op=("network", "quotas.delete", None))
    def delete_quotas(self, req: ApiRequest, project: str) -> Reply:
        """``DELETE /v2.0/quotas/{project}``: back to the defaults."""
        self.network.revert_project_quota(project)
        return Reply(204)


def member_key(kind: str) -> str:
    """The key of one *kind* entity in neutron's bodies (``policy`` for a QoS policy)."""
    return BODY_KEYS.get(kind, (kind, ""))[0]


def collection_key(kind: str) -> str:
    """The key of a *kind* listing in neutron's bodies (``policies`` for QoS policies)."""
    return BODY_KEYS.get(kind, ("", PLURALS[kind][0]))[1]


def _matches(value: Any, wanted: list[str]) -> bool:
    """True when *value* equals one of the query strings *wanted* (neutron's conversions)."""
    if isinstance(value, list):
        return any(_matches(v, wanted) for v in value) if value else False
    if isinstance(value, bool):
        text = "true" if value else "false"
        return text in [w.lower() for w in wanted]
    return ("" if value is None else str(value)) in wanted


#: neutron-lib's ``NAME_FIELD_SIZE`` and ``DESCRIPTION_FIELD_SIZE``
NAME_MAX_LEN = 255


def _check_types(kind: str, attrs: dict[str, Any]) -> None:
    """Reject values whose type differs from the schema default's (neutron's 400)."""
    defaults = SCHEMAS[kind][0]
    for key, value in attrs.items():
        default = defaults.get(key)
        if value is None:
            continue
        if isinstance(default, bool) and not isinstance(value, bool):
            raise bad(f"Invalid input for {key}. Reason: '{value}' is not a valid boolean value.")
        if key in ("name", "description") and not isinstance(value, str):
            raise bad(f"Invalid input for {key}. Reason: '{value}' is not a valid string.")
        if key in ("name", "description") and len(value) > NAME_MAX_LEN:
            # neutron-lib's attribute maps: both are strings of at most 255 characters
            raise bad(
                f"Invalid input for {key}. Reason: '{value}' exceeds maximum length of "
                f"{NAME_MAX_LEN}."
            )
        if isinstance(default, list) and not isinstance(value, list):
            raise bad(f"Invalid input for {key}. Reason: '{value}' is not a list.")
