"""Software configs and deployments on the Orchestration API.

Heat's API answers these from its engine's RPC calls
(``create_software_config``, ``show_software_deployment`` ...); so does this
module: the calls are :class:`simulator.heat_compat.rpc_client.HeatRpcClient`'s,
the ones Heat's own deployment plug-ins make under plugsim. Configs are the
fake cloud's ``software_config`` entities (the same ones
``OS::Heat::SoftwareConfig`` stores), deployments its ``software_deployment``
entities, handed to the fake servers' config agent
(:mod:`fake_clouds.compute_agent`); reading a deployment the agent has run
applies the agent's report, as a signal would.
"""

from __future__ import annotations

import datetime as _dt
from types import SimpleNamespace
from typing import Any

from fake_clouds.openstack.base import ApiRequest, Reply, route
from simulator.heat_compat import _vtime
from simulator.heat_compat.rpc_client import KIND, HeatRpcClient
from simulator.orchestration_wire.errors import HeatError

_CONFIG_FIELDS = ("name", "group", "config", "inputs", "outputs", "options")
_DEPLOYMENT_FIELDS = (
    "config_id",
    "server_id",
    "input_values",
    "action",
    "status",
    "status_reason",
    "stack_user_project_id",
)


class _Caller:
    """What the RPC calls need of a resource: clients and a clock (for their timestamps)."""

    def __init__(self, world: Any) -> None:
        self.client_plugin = world.client_plugin
        self.context = SimpleNamespace(clock=world.clock)


def _iso(value: Any) -> Any:
    if isinstance(value, int | float) and not isinstance(value, bool):
        moment = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC) + _dt.timedelta(seconds=value)
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    return value


def _going(entity: Any) -> bool:
    """A config the entity service is still deleting (gone for Heat's API, which deletes at once)."""
    return getattr(entity, "status", None) in ("DELETING", "DELETED")


class SoftwareRoutes:
    """Mixin of :class:`~simulator.orchestration_wire.api.OrchestrationAPI`: software configs."""

    world: Any

    def _rpc(self) -> HeatRpcClient:
        return HeatRpcClient(_Caller(self.world))

    def _call(self, _method: str, *args: Any, **kwargs: Any) -> Any:
        """Call the engine RPC *_method* (Heat's name) with virtual timestamps."""
        caller = _Caller(self.world)
        with _vtime.running(caller):
            return getattr(HeatRpcClient(caller), _method)(None, *args, **kwargs)

    # --- configs --------------------------------------------------------------------

    @route("GET", "/v1/<tenant>/software_configs")
    def list_software_configs(self, req: ApiRequest, tenant: str) -> Reply:
        """``GET /software_configs`` (``limit``, ``marker``)."""
        api: Any = self
        api.check_tenant(req, tenant)
        entities = [e for e in self._rpc()._entities().list(KIND) if not _going(e)]
        rows = [
            {
                "id": e.id,
                "name": getattr(e, "name", None),
                "group": getattr(e, "group", None),
                "creation_time": _iso(getattr(e, "created_at", None)),
            }
            for e in entities
        ]
        marker = req.args.get("marker")
        if marker:
            ids = [r["id"] for r in rows]
            rows = rows[ids.index(marker) + 1 :] if marker in ids else []
        if req.args.get("limit"):
            rows = rows[: max(0, int(req.args["limit"]))]
        return Reply(200, {"software_configs": rows})

    @route("POST", "/v1/<tenant>/software_configs")
    def create_software_config(self, req: ApiRequest, tenant: str) -> Reply:
        """``POST /software_configs``: name, group, config, inputs, outputs, options."""
        api: Any = self
        api.check_tenant(req, tenant)
        body = req.json()
        try:
            made = self._call("create_software_config", **{k: body.get(k) for k in _CONFIG_FIELDS})
        except TypeError as ex:
            raise HeatError(400, "StackValidationFailed", str(ex)) from None
        return Reply(200, {"software_config": self._config_view(made)})

    def _config_view(self, config: dict[str, Any]) -> dict[str, Any]:
        entity = self._rpc()._entities().get(config["id"])
        return {**config, "creation_time": _iso(getattr(entity, "created_at", None))}

    @route("GET", "/v1/<tenant>/software_configs/<config_id>")
    def show_software_config(self, req: ApiRequest, tenant: str, config_id: str) -> Reply:
        """``GET /software_configs/{id}``."""
        api: Any = self
        api.check_tenant(req, tenant)
        config = self._call("show_software_config", config_id)
        if _going(self._rpc()._entities().get(config_id)):  # Heat deletes at once
            raise HeatError(404, "NotFound", f"Software config {config_id} could not be found")
        return Reply(200, {"software_config": self._config_view(config)})

    @route("DELETE", "/v1/<tenant>/software_configs/<config_id>")
    def delete_software_config(self, req: ApiRequest, tenant: str, config_id: str) -> Reply:
        """``DELETE /software_configs/{id}``: 204."""
        api: Any = self
        api.check_tenant(req, tenant)
        self._call("delete_software_config", config_id)
        return Reply(204, None)

    # --- deployments ----------------------------------------------------------------

    @route("GET", "/v1/<tenant>/software_deployments")
    def list_software_deployments(self, req: ApiRequest, tenant: str) -> Reply:
        """``GET /software_deployments`` (``server_id``)."""
        api: Any = self
        api.check_tenant(req, tenant)
        rows = self._call("list_software_deployments", req.args.get("server_id"))
        return Reply(200, {"software_deployments": rows})

    @route("POST", "/v1/<tenant>/software_deployments")
    def create_software_deployment(self, req: ApiRequest, tenant: str) -> Reply:
        """``POST /software_deployments``: an ``IN_PROGRESS`` one goes to the server's agent."""
        api: Any = self
        api.check_tenant(req, tenant)
        body = req.json()
        if not body.get("server_id"):
            raise HeatError(400, "HTTPBadRequest", "server_id must be specified")
        args = {k: body[k] for k in _DEPLOYMENT_FIELDS if body.get(k) is not None}
        args.setdefault("action", "INIT")
        args.setdefault("status", "COMPLETE")
        server_id = args.pop("server_id")
        made = self._call(
            "create_software_deployment",
            server_id,
            deployment_id=self.world.rng.uuid("deployment-ids"),
            **args,
        )
        return Reply(200, {"software_deployment": made})

    @route("GET", "/v1/<tenant>/software_deployments/<deployment_id>")
    def show_software_deployment(self, req: ApiRequest, tenant: str, deployment_id: str) -> Reply:
        """``GET /software_deployments/{id}`` (with the agent's report once it ran)."""
        api: Any = self
        api.check_tenant(req, tenant)
        shown = self._call("show_software_deployment", deployment_id)
        return Reply(200, {"software_deployment": shown})

    @route("PUT", "/v1/<tenant>/software_deployments/<deployment_id>")
    def update_software_deployment(self, req: ApiRequest, tenant: str, deployment_id: str) -> Reply:
        """``PUT /software_deployments/{id}``: the fields given change."""
        api: Any = self
        api.check_tenant(req, tenant)
        body = req.json()
        fields = ("config_id", "input_values", "output_values", "action", "status")
        args = {k: body.get(k) for k in (*fields, "status_reason")}
        updated = self._call("update_software_deployment", deployment_id, **args)
        return Reply(200, {"software_deployment": updated})

    @route("DELETE", "/v1/<tenant>/software_deployments/<deployment_id>")
    def delete_software_deployment(self, req: ApiRequest, tenant: str, deployment_id: str) -> Reply:
        """``DELETE /software_deployments/{id}``: 204 (the agent forgets it too)."""
        api: Any = self
        api.check_tenant(req, tenant)
        self._call("delete_software_deployment", deployment_id)
        return Reply(204, None)

    @route("GET", "/v1/<tenant>/software_deployments/metadata/<server_id>")
    def deployment_metadata(self, req: ApiRequest, tenant: str, server_id: str) -> Reply:
        """``GET /software_deployments/metadata/{server}``: the derived configs a server runs."""
        api: Any = self
        api.check_tenant(req, tenant)
        rpc = self._rpc()
        out = []
        for sd in self._call("list_software_deployments", server_id):
            derived = rpc._agent_config(sd["config_id"], sd["input_values"])
            derived["inputs"] = [
                {"name": name, "value": value} for name, value in sorted(derived["inputs"].items())
            ]
            derived["inputs"] += [
                {"name": "deploy_server_id", "value": server_id},
                {"name": "deploy_action", "value": sd["action"]},
            ]
            out.append({"id": sd["config_id"], "deployment_id": sd["id"], **derived})
        return Reply(200, {"metadata": out})
