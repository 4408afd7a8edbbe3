"""Nova's flavors on the wire: list, show, create, update, delete, extra specs, access.

A caller holding the ``admin`` role sees every flavor ``is_public`` selects
(``true`` by default, ``false``, or ``none`` for both, as nova reads the
query); anyone else sees the public flavors and the private ones their project
was given access to, and a private flavor they may not see is a 404. The
flavors are the compute service's entities (:mod:`fake_clouds.flavor_ops`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, bad, route
from fake_clouds.openstack.name_fields import check_name

_F = "/v2.1/flavors/<fid>"
_GET = ("compute", "flavors.get", "flavor")
_SPECS = ("compute", "flavors.set_extra_specs", "flavor")
_TRUE = ("1", "t", "true", "on", "y", "yes")
_FALSE = ("0", "f", "false", "off", "n", "no")


class FlavorRoutes:
    """The flavor routes of :class:`~fake_clouds.openstack.compute.ComputeAPI` (a mixin)."""

    #: provided by ComputeAPI: the compute service and nova's self/bookmark links
    compute: Any
    link: Callable[[str, str], list[dict[str, str]]]

    def flavor_view(self, flavor: dict[str, Any]) -> dict[str, Any]:
        """Return a nova flavor body."""
        return {
            "id": flavor["id"],
            "name": flavor["name"],
            "vcpus": flavor["vcpus"],
            "ram": flavor["ram"],
            "disk": flavor["disk"],
            "swap": flavor.get("swap") or 0,
            "OS-FLV-EXT-DATA:ephemeral": flavor.get("ephemeral", 0),
            "OS-FLV-DISABLED:disabled": False,
            "os-flavor-access:is_public": flavor.get("is_public", True),
            "rxtx_factor": flavor.get("rxtx_factor", 1.0),
            "description": flavor.get("description"),
            "extra_specs": dict(flavor.get("extra_specs", {})),
            "links": self.link("flavors", flavor["id"]),
        }

    # --- visibility -----------------------------------------------------------------------

    @staticmethod
    def _may_see(req: ApiRequest, flavor: dict[str, Any]) -> bool:
        return (
            req.is_admin
            or flavor.get("is_public", True)
            or req.project_id in flavor.get("access", ())
        )

    def _visible(self, req: ApiRequest) -> list[dict[str, Any]]:
        flavors = self.compute.list_flavors()
        raw = req.args.get("is_public")
        if req.is_admin:
            wanted: bool | None = True
            if raw is not None:
                if raw.lower() == "none":
                    wanted = None
                elif raw.lower() in _TRUE + _FALSE:
                    wanted = raw.lower() in _TRUE
                else:
                    raise bad(f"Invalid is_public filter [{raw}]")
            if wanted is not None:
                flavors = [f for f in flavors if f.get("is_public", True) is wanted]
        else:
            flavors = [f for f in flavors if self._may_see(req, f)]
        for key, attr in (("minRam", "ram"), ("minDisk", "disk")):
            if key in req.args:
                if not req.args[key].isdigit():
                    raise bad(f"Invalid {key} filter [{req.args[key]}]")
                flavors = [f for f in flavors if f[attr] >= int(req.args[key])]
        return flavors

    def _flavor(self, req: ApiRequest, fid: str) -> dict[str, Any]:
        flavor = self.compute.get_flavor(fid)
        if not self._may_see(req, flavor):
            raise ApiError(404, f"Flavor {fid} could not be found.")
        return flavor

    # --- flavors --------------------------------------------------------------------------

    @route("GET", "/v2.1/flavors", op=("compute", "flavors.list", "flavor"))
    def list_flavors(self, req: ApiRequest) -> Reply:
        """``GET /flavors``."""
        flavors = [
            {"id": f["id"], "name": f["name"], "links": self.link("flavors", f["id"])}
            for f in self._visible(req)
        ]
        return Reply(200, {"flavors": flavors})

    @route("GET", "/v2.1/flavors/detail", op=("compute", "flavors.list", "flavor"))
    def list_flavors_detail(self, req: ApiRequest) -> Reply:
        """``GET /flavors/detail``."""
        return Reply(200, {"flavors": [self.flavor_view(f) for f in self._visible(req)]})

    @route("GET", _F, op=_GET)
    def get_flavor(self, req: ApiRequest, fid: str) -> Reply:
        """``GET /flavors/{id}``."""
        return Reply(200, {"flavor": self.flavor_view(self._flavor(req, fid))})

    @route("POST", "/v2.1/flavors", op=("compute", "flavors.create", "flavor"))
    def create_flavor(self, req: ApiRequest) -> Reply:
        """``POST /flavors``: nova's body names, ``id`` optional."""
        spec = req.member("flavor")
        check_name(spec)
        options: dict[str, Any] = {}
        for key, arg in (
            ("id", "flavor_id"),
            ("OS-FLV-EXT-DATA:ephemeral", "ephemeral"),
            ("swap", "swap"),
            ("rxtx_factor", "rxtx_factor"),
            ("os-flavor-access:is_public", "is_public"),
            ("description", "description"),
        ):
            if spec.get(key) is not None:
                options[arg] = spec[key]
        if isinstance(options.get("swap"), str):
            options["swap"] = int(options["swap"]) if options["swap"].isdigit() else -1
        if isinstance(options.get("flavor_id"), int) and not isinstance(options["flavor_id"], bool):
            options["flavor_id"] = str(options["flavor_id"])
        for key in ("name", "vcpus", "ram", "disk"):
            if key not in spec:
                raise bad(
                    f"Invalid input for field/attribute flavor: '{key}' is a required property"
                )
        flavor = self.compute.create_flavor(
            spec["name"], spec["vcpus"], spec["ram"], spec["disk"], **options
        )
        return Reply(200, {"flavor": self.flavor_view(flavor)})

    @route("PUT", _F, op=("compute", "flavors.update", "flavor"))
    def update_flavor(self, req: ApiRequest, fid: str) -> Reply:
        """``PUT /flavors/{id}``: the description only (microversion 2.55)."""
        spec = req.member("flavor")
        unknown = sorted(set(spec) - {"description"})
        if unknown or "description" not in spec:
            raise bad("Invalid input for field/attribute flavor: only 'description' may change")
        return Reply(
            200, {"flavor": self.flavor_view(self.compute.update_flavor(fid, spec["description"]))}
        )

    @route("DELETE", _F, op=("compute", "flavors.delete", "flavor"))
    def delete_flavor(self, req: ApiRequest, fid: str) -> Reply:
        """``DELETE /flavors/{id}``."""
        self.compute.delete_flavor(fid)
        return Reply(202)

    # --- extra specs ----------------------------------------------------------------------

    @route("GET", f"{_F}/os-extra_specs", op=_GET)
    def flavor_extra_specs(self, req: ApiRequest, fid: str) -> Reply:
        """``GET /flavors/{id}/os-extra_specs``."""
        return Reply(200, {"extra_specs": dict(self._flavor(req, fid).get("extra_specs", {}))})

    @route("POST", f"{_F}/os-extra_specs", op=_SPECS)
    def create_extra_specs(self, req: ApiRequest, fid: str) -> Reply:
        """``POST /flavors/{id}/os-extra_specs``: merge; answer the given specs."""
        specs = req.json().get("extra_specs")
        if not isinstance(specs, dict):
            raise bad("Invalid input for field/attribute extra_specs: expected an object")
        self.compute.set_flavor_extra_specs(fid, specs)
        return Reply(200, {"extra_specs": {k: str(v) for k, v in specs.items()}})

    @route("GET", f"{_F}/os-extra_specs/<key>", op=_GET)
    def extra_spec(self, req: ApiRequest, fid: str, key: str) -> Reply:
        """``GET /flavors/{id}/os-extra_specs/{key}``."""
        specs = self._flavor(req, fid).get("extra_specs", {})
        if key not in specs:
            raise ApiError(404, f"Flavor {fid} has no extra specs with key {key}.")
        return Reply(200, {key: specs[key]})

    @route("PUT", f"{_F}/os-extra_specs/<key>", op=_SPECS)
    def put_extra_spec(self, req: ApiRequest, fid: str, key: str) -> Reply:
        """``PUT /flavors/{id}/os-extra_specs/{key}`` with ``{key: value}``."""
        body = req.json()
        if list(body) != [key]:
            raise bad("Request body and URI mismatch")
        specs = self.compute.set_flavor_extra_specs(fid, body)
        return Reply(200, {key: specs[key]})

    @route(
        "DELETE",
        f"{_F}/os-extra_specs/<key>",
        op=("compute", "flavors.delete_extra_spec", "flavor"),
    )
    def delete_extra_spec(self, req: ApiRequest, fid: str, key: str) -> Reply:
        """``DELETE /flavors/{id}/os-extra_specs/{key}``."""
        self.compute.delete_flavor_extra_spec(fid, key)
        return Reply(202)

    # --- access ---------------------------------------------------------------------------

    @staticmethod
    def _access_body(fid: str, projects: list[str]) -> dict[str, Any]:
        return {"flavor_access": [{"flavor_id": fid, "tenant_id": p} for p in projects]}

    @route("GET", f"{_F}/os-flavor-access", op=("compute", "flavors.list_access", "flavor"))
    def flavor_access(self, req: ApiRequest, fid: str) -> Reply:
        """``GET /flavors/{id}/os-flavor-access``."""
        return Reply(200, self._access_body(fid, self.compute.list_flavor_access(fid)))

    def flavor_action_op(self, req: ApiRequest, fid: str) -> Any:
        """The operation a ``POST /flavors/{id}/action`` dispatches as."""
        try:
            body = req.json()
        except ApiError:
            return _GET
        if "removeTenantAccess" in body:
            return ("compute", "flavors.remove_access", "flavor")
        return ("compute", "flavors.add_access", "flavor")

    @route("POST", f"{_F}/action", op="flavor_action_op")
    def flavor_action(self, req: ApiRequest, fid: str) -> Reply:
        """``addTenantAccess`` / ``removeTenantAccess`` with ``{"tenant": project_id}``."""
        body = req.json()
        if len(body) != 1 or next(iter(body)) not in ("addTenantAccess", "removeTenantAccess"):
            raise bad("The action body must hold addTenantAccess or removeTenantAccess.")
        ((key, arg),) = body.items()
        tenant = arg.get("tenant") if isinstance(arg, dict) else None
        if not isinstance(tenant, str) or not tenant:
            raise bad(f"Invalid input for field/attribute {key}: 'tenant' is required")
        if key == "addTenantAccess":
            projects = self.compute.add_flavor_access(fid, tenant)
        else:
            projects = self.compute.remove_flavor_access(fid, tenant)
        return Reply(200, self._access_body(fid, projects))
