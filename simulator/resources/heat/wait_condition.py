"""``OS::Heat::WaitConditionHandle`` and ``OS::Heat::WaitCondition``.

A handle is where signals arrive: sent by ``plugsim stack resource signal``
(kept in the handle's mailbox, read through ``context.signals()``), or from the config agent of a fake server
whose ``user_data`` names the handle's endpoint (the handle's ``curl_cli``,
``endpoint`` or ``signal`` attribute put in ``user_data``). A wait condition
completes once its handle has ``count`` successful signals, fails at the
first ``FAILURE`` signal and fails when ``timeout`` virtual seconds pass first.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, ClassVar

from sdk import attributes, constraints, exception, properties, support
from sdk.resource import Resource
from sdk.signals import signal_endpoint

__all__ = [
    "UpdateWaitConditionHandle",
    "WaitCondition",
    "WaitConditionFailure",
    "WaitConditionHandle",
    "WaitConditionTimeout",
    "normalise_signal",
]

STATUSES = ("SUCCESS", "FAILURE")


class WaitConditionFailure(exception.PlugsimError):
    """A wait condition's handle received a FAILURE signal."""


class WaitConditionTimeout(exception.PlugsimError):
    """A wait condition's timeout passed before enough signals arrived."""


def normalise_signal(details: Any, default_id: str) -> dict[str, Any]:
    """Return ``{id, status, reason, data}`` for signal *details* (None: a bare success).

    A missing status is SUCCESS; any other status than SUCCESS or FAILURE is
    a :class:`sdk.exception.StackValidationFailed` naming it.
    """
    if details is None:
        details = {}
    if not isinstance(details, Mapping):
        raise exception.StackValidationFailed(
            f"Signal data must be a map (status, reason, data, id), not {type(details).__name__}"
        )
    unknown = sorted(set(details) - {"status", "reason", "data", "id"})
    if unknown:
        raise exception.StackValidationFailed(
            f"Unknown signal key(s) {', '.join(unknown)}: a signal has status, reason, data, id"
        )
    status = str(details.get("status", "SUCCESS"))
    if status not in STATUSES:
        raise exception.StackValidationFailed(
            f"Signal status {status!r} is not one of {', '.join(STATUSES)}"
        )
    return {
        "id": str(details.get("id") if details.get("id") is not None else default_id),
        "status": status,
        "reason": str(details.get("reason") or "Signal received"),
        "data": details.get("data"),
    }


class WaitConditionHandle(Resource):  # plugsim: ignore[PS301] - see the package
    """``OS::Heat::WaitConditionHandle``: receives the signals a wait condition counts.

    Attributes: ``endpoint`` (the URL to POST a signal to), ``token``,
    ``curl_cli`` (a curl command line that signals, to put in user_data) and
    ``signal`` (``{url, token}``). A signal is a map with ``status``
    (SUCCESS or FAILURE, default SUCCESS), ``reason``, ``data`` and ``id``
    (default: the number of signals so far plus one).
    """

    support_status = support.SupportStatus(version="0.1.0")

    properties_schema: dict[str, Any] = {}
    attributes_schema = {
        "endpoint": attributes.Schema("The URL signals are posted to."),
        "token": attributes.Schema("The token a signal carries."),
        "curl_cli": attributes.Schema("A curl command line that sends a signal."),
        "signal": attributes.Schema("The url and token as a map.", type=attributes.Schema.MAP),
    }

    def handle_create(self) -> None:
        """Give the handle its id and an empty mailbox."""
        self.resource_id_set(self.physical_resource_name())
        self.context.signals().clear(self.name)

    def handle_delete(self) -> None:
        """Forget the handle's signals (unless a replacement of the same name now owns them)."""
        if self.context.resource_by_reference(self.name) in (None, self):
            self.context.signals().clear(self.name)

    def handle_signal(self, details: Any = None) -> dict[str, Any]:
        """Check and normalise one signal; the engine keeps it in the handle's mailbox."""
        return normalise_signal(details, str(len(self.signals()) + 1))

    def endpoint(self) -> str:
        """Return the URL the config agent and users signal (:func:`sdk.signals.signal_endpoint`)."""
        return signal_endpoint(str(self.resource_id or self.name))

    def token(self) -> str:
        """Return the handle's token (derived from the stack id and the handle name)."""
        text = f"{self.stack.id}/{self.name}/token"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

    def signals(self) -> list[dict[str, Any]]:
        """Return every signal received so far: API/CLI ones, then the config agent's."""
        received = self.context.signals().received(self.name)
        if self.resource_id is not None:
            received.extend(self._agent_signals())
        return received

    def _agent_signals(self) -> list[dict[str, Any]]:
        return [
            normalise_signal({k: r[k] for k in ("id", "status", "reason", "data")}, r["id"])
            for r in self.context.signals().from_agents(self.endpoint())
        ]

    def _resolve_attribute(self, name: str) -> Any:
        if name == "endpoint":
            return self.endpoint()
        if name == "token":
            return self.token()
        if name == "signal":
            return {"url": self.endpoint(), "token": self.token()}
        if name == "curl_cli":
            return (
                f"curl -i -X POST -H 'X-Auth-Token: {self.token()}' "
                "-H 'Content-Type: application/json' -H 'Accept: application/json' "
                f"{self.endpoint()}"
            )
        return None


class UpdateWaitConditionHandle(WaitConditionHandle):  # plugsim: ignore[PS301] - see the package
    """``OS::Heat::UpdateWaitConditionHandle``: a handle whose reference is its signal URL.

    Heat's type is the AWS-style handle: ``get_resource`` gives the URL to signal
    (Heat's pre-signed EC2 URL; here the handle's endpoint, which the config
    agent recognises), signals may be cfn-signal's ``{Status, Reason, Data,
    UniqueId}``, and every stack update replaces it, so the senders signal the new
    handle again.
    """

    #: the AWS-style handle has no attribute of its own in Heat 27 (only ``show``):
    #: its reference is all a template uses
    attributes_schema = {}

    def get_reference_id(self) -> str:
        """The URL to signal once the handle exists (its name before)."""
        return self.endpoint() if self.resource_id is not None else self.name

    def handle_signal(self, details: Any = None) -> dict[str, Any]:
        """Take cfn-signal's four keys as well as plugsim's signal map."""
        cfn = {"Status": "status", "Reason": "reason", "Data": "data", "UniqueId": "id"}
        if isinstance(details, Mapping) and set(details) == set(cfn):
            details = {ours: details[theirs] for theirs, ours in cfn.items()}
        return super().handle_signal(details)

    async def update(self, after: Any, before: Any = None) -> None:
        """Every update replaces the handle (Heat's ``_needs_update`` always says so)."""
        raise exception.UpdateReplace(self.name)


class WaitCondition(Resource):  # plugsim: ignore[PS301] - see the package
    """``OS::Heat::WaitCondition``: waits for ``count`` successful signals on ``handle``.

    ``timeout`` is in virtual seconds from the start of the create. The
    ``data`` attribute is a JSON map of signal id → data of the successful
    signals.
    """

    support_status = support.SupportStatus(version="0.1.0")
    lint_properties: ClassVar[dict[str, Any]] = {
        "handle": {"get_resource": "handle"},
        "timeout": 600,
    }
    lint_companions: ClassVar[dict[str, Any]] = {
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "server": {  # its config agent signals the handle once booted
            "type": "OS::Nova::Server",
            "properties": {
                "image": "cirros",
                "flavor": "m1.tiny",
                "user_data": {
                    "str_replace": {
                        "template": '#!/bin/sh\nwc_notify --data-binary \'{"status": "SUCCESS"}\'\n',
                        "params": {"wc_notify": {"get_attr": ["handle", "curl_cli"]}},
                    }
                },
            },
        },
    }

    properties_schema = {
        "handle": properties.Schema(
            properties.Schema.STRING,
            "The OS::Heat::WaitConditionHandle (get_resource of it) to wait on.",
            required=True,
        ),
        "timeout": properties.Schema(
            properties.Schema.NUMBER,
            "Virtual seconds to wait for the signals (required, as in Heat).",
            required=True,
            constraints=[constraints.Range(min=1, max=43200)],
        ),
        "count": properties.Schema(
            properties.Schema.INTEGER,
            "How many successful signals complete the wait.",
            default=1,
            constraints=[constraints.Range(min=1)],
        ),
    }
    attributes_schema = {
        "data": attributes.Schema("JSON map of signal id to data of the successful signals."),
    }

    def _handle(self) -> WaitConditionHandle:
        ref = str(self.properties["handle"])
        res = self.context.resource_by_reference(ref)
        if isinstance(res, WaitConditionHandle):
            return res
        raise exception.StackValidationFailed(
            error_message=f"{ref} is not an OS::Heat::WaitConditionHandle of this stack",
            path=["resources", self.name, "properties", "handle"],
        )

    def handle_create(self) -> float:
        """Start waiting: the token is the virtual instant the wait began."""
        self._handle()
        self.resource_id_set(self.physical_resource_name())
        return float(self.context.clock.now())

    def check_create_complete(self, started: float) -> bool:
        """Complete on ``count`` successes; fail on a FAILURE or when the time is up."""
        signals = self._handle().signals()
        failures = [s["reason"] for s in signals if s["status"] == "FAILURE"]
        if failures:
            raise WaitConditionFailure("; ".join(failures))
        successes = sum(1 for s in signals if s["status"] == "SUCCESS")
        if successes >= self.properties["count"]:
            return True
        if self.context.clock.now() - started >= self.properties["timeout"]:
            raise WaitConditionTimeout(f"{successes} of {self.properties['count']} received")
        return False

    def _resolve_attribute(self, name: str) -> Any:
        if name != "data" or self.resource_id is None:
            return None
        try:
            signals = self._handle().signals()
        except exception.StackValidationFailed:
            return None
        data = {s["id"]: s["data"] for s in signals if s["status"] == "SUCCESS"}
        return json.dumps(data, sort_keys=True)
