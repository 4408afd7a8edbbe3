"""The software-deployment calls of Heat's engine RPC, answered over the fake clouds.

Heat's ``OS::Heat::SoftwareDeployment`` (and ``StructuredDeployment``, and
the groups of them) keeps no deployment itself: it asks its engine to create,
update, show, signal and delete one. Under plugsim a deployment is an entity
of kind ``software_deployment`` in the fake cloud's generic entity service
(so one left behind is a leak and the world's store keeps it), and a
deployment waiting for its outputs is handed, with its derived config's input
values, to the fake server's config agent (``servers.deploy`` of the compute
service, :mod:`fake_clouds.compute`).

The agent's report arrives as Heat's signal does: reading a deployment that
is ``IN_PROGRESS`` after the agent ran applies the agent's outputs
(``deploy_stdout``, ``deploy_stderr``, ``deploy_status_code`` and the
config's declared outputs) exactly as :meth:`signal_software_deployment`
applies a signal's details: a non-zero status code or a value for an output
flagged ``error_output`` fails it, anything else completes it with
``Outputs received``. A deployment created ``COMPLETE`` (``NO_SIGNAL``)
waits for nothing.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from sdk import exception
from simulator.heat_compat import _vtime

#: The entity kind deployments are kept as.
DEPLOYMENT_KIND = "software_deployment"
#: The statuses of a deployment (Heat's).
IN_PROGRESS, FAILED, COMPLETE = "IN_PROGRESS", "FAILED", "COMPLETE"
#: The outputs every deployment reports besides its config's.
STANDARD_OUTPUTS = ("deploy_stdout", "deploy_stderr", "deploy_status_code")
#: What a deployment holds, as Heat's ``show_software_deployment`` names it.
_FIELDS = ("config_id", "server_id", "input_values", "output_values", "action", "status_reason")


def _iso_now() -> str:
    """The virtual time, as Heat stamps a deployment."""
    return _vtime.utcnow().isoformat()


class SoftwareDeploymentCalls:
    """``create/update/show/signal/delete_software_deployment`` of :class:`HeatRpcClient`."""

    _resource: Any

    # from HeatRpcClient: ``_entities()`` (the entity client's manager) and
    # ``show_software_config``
    _entities: Any
    show_software_config: Any

    # -- the store --------------------------------------------------------------------

    def _deployments(self) -> Any:
        entities = self._entities()
        # a deployment changes on every signal: no transition may leave it busy
        entities.service.define_kind(
            DEPLOYMENT_KIND, create=(None, "ACTIVE"), update=(None, "ACTIVE"), delete=(None, None)
        )
        return entities

    def _find(self, deployment_id: Any) -> Any:
        if not deployment_id:
            raise ValueError("deployment_id must be specified")
        found = self._deployments().list(DEPLOYMENT_KIND, deployment_id=str(deployment_id))
        if not found:
            raise exception.NotFound(f"Software deployment {deployment_id} could not be found")
        return found[0]

    @staticmethod
    def _view(entity: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"id": entity.deployment_id}
        for field in _FIELDS:
            out[field] = getattr(entity, field, None)
        out["status"] = entity.deployment_status
        out["creation_time"] = getattr(entity, "creation_time", None)
        out["updated_time"] = getattr(entity, "updated_time", None)
        return out

    # -- the config agent ---------------------------------------------------------------

    def _compute(self) -> Any:
        return self._resource.client_plugin("nova").client().servers.service

    def _agent_config(self, config_id: Any, input_values: Any) -> dict[str, Any]:
        """The derived config as the fake agent takes it: its inputs as a name -> value map."""
        config = self.show_software_config(None, config_id) if config_id else {}
        inputs = {
            str(i.get("name")): i.get("value", i.get("default"))
            for i in config.get("inputs") or []
            if isinstance(i, dict)
        }
        inputs.update(dict(input_values or {}))
        return {
            "name": config.get("name"),
            "group": config.get("group"),
            "config": config.get("config"),
            "outputs": list(config.get("outputs") or []),
            "inputs": inputs,
        }

    def _hand_to_agent(self, sd: dict[str, Any]) -> None:
        config = self._agent_config(sd["config_id"], sd["input_values"])
        self._compute().deploy(str(sd["server_id"]), str(sd["id"]), str(sd["action"]), config)

    def _agent_report(self, sd: dict[str, Any]) -> dict[str, Any] | None:
        """The agent's outputs for *sd*, or None while it has not run it (or never will)."""
        try:
            status = self._compute().deployment_status(str(sd["server_id"]), str(sd["id"]))
        except exception.NotFound:
            return None
        if status["status"] == IN_PROGRESS:
            return None
        return dict(status["outputs"])

    # -- Heat's calls -------------------------------------------------------------------

    def create_software_deployment(
        self,
        cnxt: Any,
        server_id: str,
        config_id: str | None = None,
        input_values: dict[str, Any] | None = None,
        action: str = "INIT",
        status: str = COMPLETE,
        status_reason: str = "",
        stack_user_project_id: str | None = None,
        deployment_id: str | None = None,
    ) -> dict[str, Any]:
        """Store a deployment of *config_id* to *server_id*; an IN_PROGRESS one goes to its agent."""
        if not deployment_id:
            raise ValueError("deployment_id must be specified")
        now = _iso_now()
        attrs = {
            "deployment_id": str(deployment_id),
            "config_id": config_id,
            "server_id": server_id,
            "input_values": dict(input_values or {}),
            "output_values": {},
            "action": action,
            "deployment_status": status,
            "status_reason": status_reason,
            "stack_user_project_id": stack_user_project_id,
            "creation_time": now,
            "updated_time": None,
        }
        created = self._deployments().create(DEPLOYMENT_KIND, attrs, name=str(deployment_id))
        sd = self._view(created)
        if status == IN_PROGRESS:
            self._hand_to_agent(sd)
        return sd

    def update_software_deployment(
        self,
        cnxt: Any,
        deployment_id: str,
        config_id: str | None = None,
        input_values: dict[str, Any] | None = None,
        output_values: dict[str, Any] | None = None,
        action: str | None = None,
        status: str | None = None,
        status_reason: str | None = None,
        updated_at: Any = None,
    ) -> dict[str, Any]:
        """Change the given fields (None leaves one); a new IN_PROGRESS action goes to the agent."""
        entity = self._find(deployment_id)
        changes: dict[str, Any] = {}
        given = {
            "config_id": config_id,
            "input_values": input_values,
            "output_values": output_values,
            "action": action,
            "deployment_status": status,
            "status_reason": status_reason,
        }
        for key, value in given.items():
            if value is not None:
                changes[key] = value
        changes["updated_time"] = str(updated_at) if updated_at else _iso_now()
        updated = self._deployments().update(entity.id, changes)
        sd = self._view(updated)
        if status == IN_PROGRESS and (config_id is not None or action is not None):
            self._hand_to_agent(sd)
        return sd

    def show_software_deployment(self, cnxt: Any, deployment_id: str) -> dict[str, Any]:
        """The deployment; one the agent has run meanwhile takes the agent's report first."""
        sd = self._view(self._find(deployment_id))
        if sd["status"] == IN_PROGRESS:
            report = self._agent_report(sd)
            if report is not None:
                self.signal_software_deployment(cnxt, deployment_id, report, None)
                sd = self._view(self._find(deployment_id))
        return sd

    def signal_software_deployment(
        self, cnxt: Any, deployment_id: str, details: Any, updated_at: Any
    ) -> str | None:
        """Apply a signal's outputs to an IN_PROGRESS deployment; say what happened.

        Returns None (and changes nothing) when the deployment is not waiting.
        """
        sd = self._view(self._find(deployment_id))
        if sd["status"] != IN_PROGRESS:
            return None
        if isinstance(details, str):
            try:
                details = json.loads(details) if details.strip() else {}
            except ValueError:
                details = {}
        details = dict(details or {}) if isinstance(details, dict) else {}
        outputs = dict(sd["output_values"] or {})
        reasons: dict[str, str] = {}
        failed = False
        code = details.get("deploy_status_code")
        if code and str(code) != "0":
            failed = True
            reasons["deploy_status_code"] = f"Deployment exited with non-zero status code: {code}"
        event = (
            f"deployment {deployment_id} {'failed (' + str(code) + ')' if failed else 'succeeded'}"
        )
        config = self.show_software_config(cnxt, sd["config_id"]) if sd["config_id"] else {}
        for output in config.get("outputs") or []:
            name = output.get("name")
            if name in details:
                outputs[name] = details[name]
                if output.get("error_output"):
                    failed = True
                    reasons[name] = str(details[name])
                    event = f"deployment {deployment_id} failed"
        for name in STANDARD_OUTPUTS:
            outputs[name] = details.get(name)
        if failed:
            status, reason = FAILED, ", ".join(f"{k} : {v}" for k, v in reasons.items())
        else:
            status, reason = COMPLETE, "Outputs received"
        self.update_software_deployment(
            cnxt,
            deployment_id,
            output_values=outputs,
            status=status,
            status_reason=reason,
            updated_at=updated_at,
        )
        return event

    def delete_software_deployment(self, cnxt: Any, deployment_id: str) -> None:
        """Forget the deployment, on its server's agent too (NotFound when there is none)."""
        entity = self._find(deployment_id)
        with contextlib.suppress(exception.NotFound):  # the server went first, and them with it
            self._compute().undeploy(str(entity.server_id), str(deployment_id))
        self._deployments().delete(entity.id)

    def list_software_deployments(self, cnxt: Any, server_id: str | None = None) -> list[Any]:
        """Every deployment (of *server_id*, if given)."""
        filters = {"server_id": server_id} if server_id else {}
        return [self._view(e) for e in self._deployments().list(DEPLOYMENT_KIND, **filters)]


__all__ = ["DEPLOYMENT_KIND", "SoftwareDeploymentCalls"]
