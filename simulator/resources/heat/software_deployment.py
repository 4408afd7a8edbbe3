"""``OS::Heat::SoftwareDeployment`` and ``OS::Heat::StructuredDeployment``.

A deployment hands a software config (``OS::Heat::SoftwareConfig`` and
friends, stored in the fake cloud's ``entity`` service) with its input
values to the config agent of a fake server (``servers.deploy`` of the
compute service) and completes when the agent reports. The agent runs after
the server has booted; its outcome is set by the input values
``plugsim_status_code`` (non-zero fails the deployment), ``plugsim_stderr``
and ``plugsim_outputs`` (values of the config's declared outputs), or by the
server's metadata ``plugsim_agent: fail`` / ``silent``. ``NO_SIGNAL``
deployments complete as soon as they are handed over, as in Heat.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from sdk import attributes, constraints, exception, properties, support
from sdk.resource import Resource

__all__ = ["DeploymentFailed", "SoftwareDeployment", "StructuredDeployment", "substitute_inputs"]

ACTIONS = ("CREATE", "UPDATE", "DELETE", "SUSPEND", "RESUME")
TRANSPORTS = ("CFN_SIGNAL", "TEMP_URL_SIGNAL", "HEAT_SIGNAL", "NO_SIGNAL", "ZAQAR_SIGNAL")
_OUTPUTS = "outputs"


class DeploymentFailed(exception.PlugsimError):
    """The config agent reported a failed deployment."""


def substitute_inputs(value: Any, key: str, inputs: Mapping[str, Any]) -> Any:
    """Replace every ``{key: name}`` map in *value* by ``inputs[name]`` (None when absent)."""
    if isinstance(value, Mapping):
        if len(value) == 1 and key in value:
            return inputs.get(str(value[key]))
        return {k: substitute_inputs(v, key, inputs) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute_inputs(v, key, inputs) for v in value]
    return value


class SoftwareDeployment(Resource):  # plugsim: ignore[PS301] - see the package
    """``OS::Heat::SoftwareDeployment``: runs a config on a server through its config agent.

    Attributes ``deploy_stdout``, ``deploy_stderr``, ``deploy_status_code``
    and, by name, every output the config declares.
    """

    support_status = support.SupportStatus(version="0.1.0")
    default_client_name = "compute"
    lint_properties: ClassVar[dict[str, Any]] = {
        "config": {"get_resource": "config"},
        "server": {"get_resource": "server"},
    }
    lint_companions: ClassVar[dict[str, Any]] = {
        "config": {"type": "OS::Heat::SoftwareConfig", "properties": {"config": "echo hello"}},
        "server": {
            "type": "OS::Nova::Server",
            "properties": {
                "image": "cirros",
                "flavor": "m1.tiny",
                "user_data_format": "SOFTWARE_CONFIG",
            },
        },
    }

    properties_schema = {
        "config": properties.Schema(
            properties.Schema.STRING,
            "The software config (its id, get_resource of it) to deploy.",
            update_allowed=True,
        ),
        "server": properties.Schema(
            properties.Schema.STRING,
            "The server (its id) to deploy to.",
            required=True,
        ),
        "input_values": properties.Schema(
            properties.Schema.MAP,
            "Values of the config's inputs.",
            default={},
            update_allowed=True,
        ),
        "actions": properties.Schema(  # plugsim: ignore[PS153] - later actions
            properties.Schema.LIST,
            "The stack actions that run the deployment.",
            default=["CREATE", "UPDATE"],
            constraints=[constraints.AllowedValues(list(ACTIONS))],
            update_allowed=True,
        ),
        "name": properties.Schema(
            properties.Schema.STRING, "The deployment's name.", update_allowed=True
        ),
        "signal_transport": properties.Schema(
            properties.Schema.STRING,
            "How the agent reports; NO_SIGNAL completes without waiting for it.",
            default="CFN_SIGNAL",
            constraints=[constraints.AllowedValues(list(TRANSPORTS))],
        ),
    }
    attributes_schema = {
        "deploy_stdout": attributes.Schema("What the config wrote to stdout."),
        "deploy_stderr": attributes.Schema("What the config wrote to stderr."),
        "deploy_status_code": attributes.Schema(
            "The config's exit code.", type=attributes.Schema.INTEGER
        ),
    }

    # -- talking to the agent -------------------------------------------------------

    def _service(self) -> Any:
        return self.client().servers.service

    def _config(self, props: Mapping[str, Any]) -> dict[str, Any]:
        ref = props.get("config")
        stored: dict[str, Any] = {"group": "Heat::Ungrouped", "config": "", "outputs": []}
        if ref:
            found = self.client("entity").entities.get(ref)
            stored = found if isinstance(found, dict) else found.to_dict()
        inputs = {
            str(i.get("name")): i.get("default")
            for i in stored.get("inputs") or []
            if isinstance(i, Mapping)
        }
        inputs.update(dict(props.get("input_values") or {}))
        return {
            "name": props.get("name") or stored.get("name"),  # the deployment's name wins
            "group": stored.get("group"),
            "config": self._config_body(stored.get("config"), inputs, props),
            "outputs": list(stored.get("outputs") or []),
            "inputs": inputs,
        }

    def _config_body(self, config: Any, inputs: Mapping[str, Any], props: Mapping[str, Any]) -> Any:
        return config

    def _deploy(self, action: str, props: Mapping[str, Any]) -> str | None:
        if action not in (props.get("actions") or []):
            return None
        config = self._config(props)
        config["inputs"].update(
            deploy_server_id=props["server"],
            deploy_action=action,
            deploy_stack_id=self.stack.id,
            deploy_resource_name=self.name,
            deploy_signal_transport=props.get("signal_transport"),
        )
        self._service().deploy(str(props["server"]), str(self.resource_id), action, config)
        if props.get("signal_transport") == "NO_SIGNAL":
            return None
        return action

    def _check(self, action: str | None) -> bool:
        if action is None:
            return True
        status = self._service().deployment_status(
            str(self.properties["server"]), str(self.resource_id)
        )
        if status["status"] == "IN_PROGRESS":
            return False
        self.data_set(_OUTPUTS, json.dumps(status["outputs"], sort_keys=True))
        self.attributes.reset_resolved_values()
        if status["status"] == "FAILED":
            raise DeploymentFailed(
                f"Deployment to server failed: deploy_status_code : {status['status_reason']}"
            )
        return True

    def _props(self) -> dict[str, Any]:
        return {k: self.properties[k] for k in self.properties_schema}

    # -- actions --------------------------------------------------------------------

    def handle_create(self) -> str | None:
        """Hand the config to the server's agent (when CREATE is one of ``actions``)."""
        self.resource_id_set(self.physical_resource_name())
        return self._deploy("CREATE", self._props())

    def check_create_complete(self, action: str | None) -> bool:
        """Complete when the agent reported success; its failure fails the create."""
        return self._check(action)

    def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> str | None:
        """Deploy again with the new config / input values (when UPDATE is in ``actions``)."""
        props = self._props()
        for key, value in (prop_diff or {}).items():
            props[key] = value if value is not None else self.properties_schema[key].default
        if not prop_diff:
            return None
        return self._deploy("UPDATE", props)

    def check_update_complete(self, action: str | None) -> bool:
        """Complete when the agent reported the update."""
        return self._check(action)

    def handle_delete(self) -> str | None:
        """Run the DELETE deployment if asked for, then forget the deployment."""
        if self.resource_id is None:
            return None
        try:
            return self._deploy("DELETE", self._props())
        except Exception as ex:  # the server is gone: nothing left to run on
            self.client_plugin().ignore_not_found(ex)
            return None

    def check_delete_complete(self, action: str | None) -> bool:
        """Complete when the DELETE deployment ran; the deployment is then forgotten."""
        if action is not None and not self._check(action):
            return False
        if self.resource_id is not None:
            self._service().undeploy(str(self.properties["server"]), str(self.resource_id))
        return True

    def handle_suspend(self) -> str | None:
        """Run the SUSPEND deployment when asked for."""
        return self._deploy("SUSPEND", self._props())

    def check_suspend_complete(self, action: str | None) -> bool:
        """Complete when the agent reported."""
        return self._check(action)

    def handle_resume(self) -> str | None:
        """Run the RESUME deployment when asked for."""
        return self._deploy("RESUME", self._props())

    def check_resume_complete(self, action: str | None) -> bool:
        """Complete when the agent reported."""
        return self._check(action)

    # -- attributes -----------------------------------------------------------------

    def _outputs(self) -> dict[str, Any]:
        raw = self.data().get(_OUTPUTS)
        return json.loads(raw) if isinstance(raw, str) else {}

    def _resolve_attribute(self, name: str) -> Any:
        return self._outputs().get(name)

    def get_attribute(self, key: str, *path: Any) -> Any:
        """Declared attributes, or any output of the config by name."""
        if key in self.attributes:
            return super().get_attribute(key, *path)
        outputs = self._outputs()
        if key not in outputs:
            raise exception.InvalidTemplateAttribute(resource=self.name, key=key)
        value = outputs[key]
        for part in path:
            value = value[part] if value is not None else None
        return value


# PS153: its inherited ``actions`` take effect at later actions (see SoftwareDeployment)
class StructuredDeployment(SoftwareDeployment):  # plugsim: ignore[PS301, PS153] - see the package
    """``OS::Heat::StructuredDeployment``: a deployment of a structured (map) config.

    Every ``{<input_key>: name}`` in the config is replaced by that input's
    value before the agent gets it; with ``input_values_validate: STRICT`` a
    name without a value fails the deployment.
    """

    lint_companions: ClassVar[dict[str, Any]] = {
        **SoftwareDeployment.lint_companions,
        "config": {"type": "OS::Heat::StructuredConfig", "properties": {"config": {"a": 1}}},
    }

    properties_schema = {
        **SoftwareDeployment.properties_schema,
        "input_key": properties.Schema(
            properties.Schema.STRING,
            "The key of the maps replaced by input values.",
            default="get_input",
        ),
        "input_values_validate": properties.Schema(
            properties.Schema.STRING,
            "STRICT: every referenced input must have a value.",
            default="LAX",
            constraints=[constraints.AllowedValues(["LAX", "STRICT"])],
        ),
    }

    def _config_body(self, config: Any, inputs: Mapping[str, Any], props: Mapping[str, Any]) -> Any:
        key = str(props.get("input_key") or "get_input")
        if props.get("input_values_validate") == "STRICT":
            missing = sorted(_referenced(config, key) - set(inputs))
            if missing:
                raise exception.StackValidationFailed(
                    error_message=f"Input values for {', '.join(missing)} are missing",
                    path=["resources", self.name, "properties", "input_values"],
                )
        return substitute_inputs(config, key, inputs)


def _referenced(value: Any, key: str) -> set[str]:
    if isinstance(value, Mapping):
        if len(value) == 1 and key in value:
            return {str(value[key])}
        return set().union(*(_referenced(v, key) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_referenced(v, key) for v in value)) if value else set()
    return set()
