"""Software configuration types: ``SoftwareConfig``, ``StructuredConfig``, ``CloudConfig``,
``MultipartMime``.

Heat keeps software configs in its own database; plugsim keeps them as
entities of kind ``software_config`` in the fake cloud's generic entity
service (client ``entity``), so a config created by one resource can be read
by another (``MultipartMime`` reads the parts it is given by id) and a config
left behind shows up as a leak. Configs never change: any property change
replaces the resource, as in Heat.
"""

from __future__ import annotations

import email.mime.multipart
import email.mime.text
import hashlib
from typing import Any

import yaml

from sdk import attributes, constraints, properties, support
from sdk.resource import Resource

__all__ = ["CloudConfig", "MultipartMime", "SoftwareConfig", "StructuredConfig"]

SINCE = "0.1.0"
KIND = "software_config"

_IO_SCHEMA = {
    "name": properties.Schema(properties.Schema.STRING, "Name of the value.", required=True),
    "description": properties.Schema(properties.Schema.STRING, "What the value means."),
    "type": properties.Schema(
        properties.Schema.STRING,
        "Type of the value.",
        default="String",
        constraints=[
            constraints.AllowedValues(["String", "Number", "CommaDelimitedList", "Json", "Boolean"])
        ],
    ),
    "default": properties.Schema(properties.Schema.ANY, "Default value."),
}


class SoftwareConfig(Resource):  # plugsim: ignore[PS301] - see the package
    """``OS::Heat::SoftwareConfig``: a piece of configuration (script, manifest...) to deploy.

    ``get_resource`` gives the config's id; the ``config`` attribute its text.
    """

    support_status = support.SupportStatus(version=SINCE)
    default_client_name = "entity"
    entity = "entities"

    properties_schema: dict[str, properties.Schema] = {
        "group": properties.Schema(
            properties.Schema.STRING,
            "The tool that applies the config (script, puppet, ansible, ungrouped...).",
            default="Heat::Ungrouped",
        ),
        "config": properties.Schema(
            properties.Schema.STRING, "The configuration text the group's tool runs."
        ),
        "options": properties.Schema(properties.Schema.MAP, "Options for the group's tool."),
        "inputs": properties.Schema(
            properties.Schema.LIST, "Inputs the config expects.", schema=_IO_SCHEMA
        ),
        "outputs": properties.Schema(
            properties.Schema.LIST,
            "Outputs the config produces.",
            schema={
                **{k: v for k, v in _IO_SCHEMA.items() if k != "default"},
                "error_output": properties.Schema(
                    properties.Schema.BOOLEAN,
                    "A value for this output means the deployment failed.",
                    default=False,
                ),
            },
        ),
    }
    attributes_schema = {
        "config": attributes.Schema(
            "The configuration text (for StructuredConfig: the map as text).",
            type=attributes.Schema.STRING,
        ),
    }

    def config_value(self) -> Any:
        """Return the config as stored (text here; a map for StructuredConfig)."""
        return self.properties["config"] or ""

    def handle_create(self) -> str:
        """Store the config as a ``software_config`` entity; its id is the resource id."""
        body = {
            "group": self.properties["group"],
            "config": self.config_value(),
            "options": self.properties["options"] or {},
            "inputs": self.properties["inputs"] or [],
            "outputs": self.properties["outputs"] or [],
        }
        created = self.client().entities.create(KIND, body, name=self.physical_resource_name())
        self.resource_id_set(created.id)
        return created.id

    def check_create_complete(self, config_id: str) -> bool:
        """Done when the stored config is ACTIVE."""
        return self.client().entities.get(config_id).status == "ACTIVE"

    def check_delete_complete(self, config_id: str | None) -> bool:
        """Done when the stored config is gone."""
        if not config_id:
            return True
        try:
            self.client().entities.get(config_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
            return True
        return False

    def _resolve_attribute(self, name: str) -> Any:
        if name != "config" or self.resource_id is None:
            return None
        config = self.client().entities.get(self.resource_id).config
        if isinstance(config, dict | list):
            return yaml.safe_dump(config, default_flow_style=False, sort_keys=True)
        return config


class StructuredConfig(SoftwareConfig):
    """``OS::Heat::StructuredConfig``: a config that is a map (for structured tools)."""

    properties_schema = {
        **SoftwareConfig.properties_schema,
        "config": properties.Schema(properties.Schema.MAP, "The configuration map."),
    }

    def config_value(self) -> Any:
        """Return the config map."""
        return self.properties["config"] or {}


class CloudConfig(SoftwareConfig):
    """``OS::Heat::CloudConfig``: a cloud-init ``#cloud-config`` document from a map."""

    properties_schema = {
        "cloud_config": properties.Schema(
            properties.Schema.MAP, "The cloud-config data (users, packages, runcmd...)."
        ),
    }

    def config_value(self) -> str:
        """Return the ``#cloud-config`` text."""
        data = self.properties["cloud_config"] or {}
        return "#cloud-config\n" + yaml.safe_dump(data, default_flow_style=False, sort_keys=True)

    def handle_create(self) -> str:
        """Store the rendered cloud-config text."""
        created = self.client().entities.create(
            KIND,
            {"group": "Heat::Ungrouped", "config": self.config_value(), "options": {}},
            name=self.physical_resource_name(),
        )
        self.resource_id_set(created.id)
        return created.id


class MultipartMime(SoftwareConfig):
    """``OS::Heat::MultipartMime``: several configs joined into one multipart MIME message.

    Each part's ``config`` is the id of another software config (its text is
    read from the fake cloud) or literal text. The boundary is derived from
    the stack id and the resource name, so the message is reproducible.
    """

    properties_schema = {
        "parts": properties.Schema(
            properties.Schema.LIST,
            "The parts of the message.",
            default=[],
            schema={
                "config": properties.Schema(
                    properties.Schema.STRING,
                    "A software config id, or the text of the part.",
                    required=True,
                ),
                "filename": properties.Schema(
                    properties.Schema.STRING, "The file name of the part."
                ),
                "type": properties.Schema(
                    properties.Schema.STRING,
                    "text (the part is text) or multipart (it is itself a MIME message).",
                    default="text",
                    constraints=[constraints.AllowedValues(["text", "multipart"])],
                ),
                "subtype": properties.Schema(
                    properties.Schema.STRING, "The MIME subtype of a text part.", default="plain"
                ),
            },
        ),
        "group": properties.Schema(
            properties.Schema.STRING,
            "The tool that applies the message.",
            default="Heat::Ungrouped",
        ),
    }

    def _part_text(self, ref: str) -> str:
        try:
            stored = self.client().entities.get(ref)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
            return ref
        config = getattr(stored, "config", "")
        if isinstance(config, dict | list):
            return yaml.safe_dump(config, default_flow_style=False, sort_keys=True)
        return str(config)

    def config_value(self) -> str:
        """Return the multipart message as text."""
        seed = f"{self.stack.id}/{self.name}".encode()
        boundary = "===============" + hashlib.sha256(seed).hexdigest()[:19] + "=="
        message = email.mime.multipart.MIMEMultipart(boundary=boundary)
        for part in self.properties["parts"] or []:
            text = self._part_text(part["config"])
            if part["type"] == "multipart":
                sub = email.message_from_string(text)
            else:
                sub = email.mime.text.MIMEText(text, part["subtype"] or "plain", "utf-8")
            if part["filename"]:
                sub.add_header("Content-Disposition", "attachment", filename=part["filename"])
            message.attach(sub)
        return message.as_string()

    def handle_create(self) -> str:
        """Build the message and store it as a config."""
        created = self.client().entities.create(
            KIND,
            {"group": self.properties["group"], "config": self.config_value(), "options": {}},
            name=self.physical_resource_name(),
        )
        self.resource_id_set(created.id)
        return created.id
