"""The compute service's config agent: what a server's agent reports and the deployments it runs.

A mixin of :class:`fake_clouds.compute.ComputeService`. A server booted with
user data gets an agent record (:meth:`_agent_boot`): when it is ready (a delay
derived from the server's id, never drawn from a random stream), what it
signals (:func:`fake_clouds.agent.agent_plan`) and in which mode. Software
deployments handed to it (:meth:`deploy`) complete after a derived runtime, with
the status code, stderr and outputs their inputs ask for.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

from fake_clouds.agent import agent_plan
from fake_clouds.core.service import operation
from sdk import exception


def _derived_delay(label: str, low: float, high: float) -> float:
    """A delay in [low, high) derived from *label* (no random stream is drawn)."""
    digest = hashlib.sha256(label.encode("utf-8")).digest()
    return round(low + (high - low) * int.from_bytes(digest[:4], "big") / 2**32, 3)


def _bad(message: str) -> exception.BadRequest:
    return exception.BadRequest(message, body={"badRequest": {"code": 400, "message": message}})


def _check_ids(server_id: Any, deployment_id: Any) -> None:
    """A deployment is keyed by server and deployment id: both must be strings."""
    if not isinstance(server_id, str) or not isinstance(deployment_id, str):
        raise _bad("A server id and a deployment id must be strings")


class ConfigAgentOperations:
    """The config agent's records and the deployments it runs (a mixin of the compute service)."""

    agent: dict[str, Any]
    _now: Any
    _get: Any

    def _agent_boot(self, server: Any, user_data: Any, metadata: dict[str, Any]) -> None:
        """Note when the server's config agent runs (None when the boot never ends ACTIVE)."""
        step = server.pending[-1] if server.pending else None
        ready = None
        if step is not None and step.status == "ACTIVE":
            ready = round(step.at + _derived_delay(f"agent/{server.id}", 2.0, 12.0), 3)
        self.agent["servers"][server.id] = {
            "name": server.name,
            "ready_at": ready,
            "stopped_at": None,
            "mode": str(metadata.get("plugsim_agent") or "report"),
            "signals": agent_plan(user_data),
            "deployments": {},
        }

    def _agent_ran(self, record: dict[str, Any], at: float | None) -> bool:
        stopped = record.get("stopped_at")
        return (
            at is not None
            and at <= self._now()
            and (stopped is None or at < stopped)
            and record["mode"] != "silent"
        )

    def agent_signals(self, endpoint: str) -> list[dict[str, Any]]:
        """Return what config agents have reported to *endpoint* so far, oldest first.

        Each report is ``{id, status, reason, data, at}`` (see the module
        docstring for where each value comes from).
        """
        out = []
        for sid, record in self.agent["servers"].items():
            if not self._agent_ran(record, record["ready_at"]):
                continue
            plan = record.get("signals")
            if plan is None:  # state saved before payloads were read
                plan = [
                    {"endpoint": e, "payload": {}, "problem": None} for e in record["endpoints"]
                ]
            mine = [p for p in plan if p["endpoint"] == endpoint]
            for number, planned in enumerate(mine, start=1):
                out.append(self._report(sid, record, planned, number))
        out.sort(key=lambda r: (r["at"], r["order"]))
        return [{k: v for k, v in r.items() if k != "order"} for r in out]

    @staticmethod
    def _report(sid: str, record: dict[str, Any], planned: dict[str, Any], number: int) -> Any:
        payload = planned["payload"]
        status = "FAILURE" if record["mode"] == "fail" else payload.get("status", "SUCCESS")
        reason = payload.get("reason")
        if reason is None or record["mode"] == "fail":
            verb = "failed" if status == "FAILURE" else "completed"
            reason = f"Config agent of server {record['name']} {verb}"
        if planned["problem"]:
            reason += f" (signal payload ignored: {planned['problem']})"
        default_id = sid if number == 1 else f"{sid}.{number}"
        return {
            "id": str(payload["id"]) if payload.get("id") is not None else default_id,
            "status": status,
            "reason": str(reason),
            "data": payload.get("data"),
            "at": record["ready_at"],
            "order": (sid, number),
        }

    @operation("servers.deploy", kind="server", id_arg="server_id")
    def deploy(
        self, server_id: str, deployment_id: str, action: str, config: dict[str, Any]
    ) -> dict[str, Any]:
        """Hand a software deployment (*config* with its ``inputs``) to the server's agent."""
        _check_ids(server_id, deployment_id)
        server = self._get("server", server_id, label="Instance")
        record = self.agent["servers"].get(server.id)
        if record is None:
            raise _bad(f"Server {server_id} has no config agent")
        if not isinstance(config, dict):
            raise _bad("A deployment's config must be a mapping")
        start = max(self._now(), record["ready_at"] or self._now())
        runtime = _derived_delay(f"deploy/{deployment_id}/{action}/{self._now()}", 1.0, 8.0)
        record["deployments"][deployment_id] = {
            "action": action,
            "config": copy.deepcopy(config),
            "registered_at": self._now(),
            "done_at": None if record["ready_at"] is None else round(start + runtime, 3),
        }
        return self.deployment_status(server_id, deployment_id)

    @operation("servers.undeploy", kind="server", id_arg="server_id")
    def undeploy(self, server_id: str, deployment_id: str) -> None:
        """Forget a deployment (a deleted server's deployments are gone already)."""
        _check_ids(server_id, deployment_id)
        record = self.agent["servers"].get(server_id)
        if record is not None:
            record["deployments"].pop(deployment_id, None)

    def deployment_status(self, server_id: str, deployment_id: str) -> dict[str, Any]:
        """Return ``{status, status_reason, outputs}`` of a deployment as the agent reported it.

        ``status`` is IN_PROGRESS until the agent ran it, then COMPLETE or FAILED.
        """
        _check_ids(server_id, deployment_id)
        record = self.agent["servers"].get(server_id) or {"deployments": {}}
        dep = record["deployments"].get(deployment_id)
        if dep is None:
            raise exception.NotFound(f"Deployment {deployment_id} could not be found.")
        if not self._agent_ran(record, dep["done_at"]):
            return {
                "status": "IN_PROGRESS",
                "status_reason": "Deploy data available",
                "outputs": {},
            }
        inputs = dep["config"].get("inputs") or {}
        code = inputs.get("plugsim_status_code", 0)
        stderr = str(inputs.get("plugsim_stderr") or "")
        if record["mode"] == "fail":
            code, stderr = code or 1, stderr or "config agent failed"
        try:
            code = int(code)
        except (TypeError, ValueError):
            code = 1
        given = inputs.get("plugsim_outputs") or {}
        outputs = {
            str(o.get("name")): given.get(o.get("name"), o.get("default"))
            for o in dep["config"].get("outputs") or []
            if isinstance(o, dict)
        }
        outputs.update(deploy_stdout="", deploy_stderr=stderr, deploy_status_code=code)
        if code:
            reason = f"Deployment exited with non-zero status code: {code}"
            return {"status": "FAILED", "status_reason": reason, "outputs": outputs}
        reason = "Outputs received"
        return {"status": "COMPLETE", "status_reason": reason, "outputs": outputs}
