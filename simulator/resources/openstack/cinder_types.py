"""``OS::Cinder::VolumeType`` and ``OS::Cinder::EncryptedVolumeType`` on the fake block storage.

A volume type carries ``metadata`` as its extra specs (set and unset on
update, as Heat 27's plug-in does); a private one (``is_public: false``) is
opened to the ``projects`` listed. An encrypted volume type is the encryption
spec of a volume type: its resource id is that type's id, and deleting it takes
the spec off the type (cinder refuses while volumes of the type exist).
"""

from __future__ import annotations

from typing import Any, ClassVar

from sdk import constraints, properties, support
from sdk.resource import Resource
from simulator.resources.openstack._base import SINCE, find_in

__all__ = ["EncryptedVolumeType", "VolumeType"]


class VolumeType(Resource):  # plugsim: ignore[PS301] - see the package
    """``OS::Cinder::VolumeType``: a volume type with extra specs."""

    support_status = support.SupportStatus(version=SINCE)
    default_client_name = "block_storage"
    entity = "volume_types"
    lint_properties: ClassVar[dict[str, Any]] = {"name": "gold"}
    properties_schema = {
        "name": properties.Schema(
            properties.Schema.STRING, "Name of the type.", required=True, update_allowed=True
        ),
        "metadata": properties.Schema(  # plugsim: ignore[PS150] - cinder takes string values only
            properties.Schema.MAP, "Extra specs (key/value).", default={}, update_allowed=True
        ),
        "is_public": properties.Schema(
            properties.Schema.BOOLEAN,
            "Visible to every project.",
            default=True,
            update_allowed=True,
        ),
        "description": properties.Schema(
            properties.Schema.STRING, "Description.", update_allowed=True
        ),
        "projects": properties.Schema(
            properties.Schema.LIST,
            "Projects a private type is open to.",
            default=[],
            update_allowed=True,
        ),
    }

    def handle_create(self) -> None:
        """Create the type, set its extra specs, open it to the projects."""
        cinder = self.client()
        vtype = cinder.volume_types.create(
            self.properties["name"],
            description=self.properties["description"],
            is_public=self.properties["is_public"],
        )
        self.resource_id_set(vtype.id)
        if self.properties["metadata"]:
            vtype.set_keys(self.properties["metadata"])
        for project in self.properties["projects"] or []:
            cinder.volume_type_access.add_project_access(vtype.id, project)

    def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Rename, redescribe, publish; replace the extra specs that changed; open or close
        the type to the projects added to or dropped from ``projects``."""
        diff = dict(prop_diff or {})
        cinder = self.client()
        fields = {k: diff[k] for k in ("name", "description", "is_public") if k in diff}
        if fields:
            cinder.volume_types.update(self.resource_id, **fields)
        if "metadata" in diff:
            vtype = cinder.volume_types.get(self.resource_id)
            old = dict(self.properties["metadata"] or {})
            new = dict(diff["metadata"] or {})
            dropped = sorted(k for k in old if k not in new)
            if dropped:
                vtype.unset_keys(dropped)
            if new:
                vtype.set_keys(new)
        if "projects" in diff:
            old_projects = set(self.properties["projects"] or [])
            new_projects = set(diff["projects"] or [])
            for project in sorted(old_projects - new_projects):
                cinder.volume_type_access.remove_project_access(self.resource_id, project)
            for project in sorted(new_projects - old_projects):
                cinder.volume_type_access.add_project_access(self.resource_id, project)

    def _resolve_attribute(self, name: str) -> Any:
        return None


class EncryptedVolumeType(Resource):  # plugsim: ignore[PS301] - see the package
    """``OS::Cinder::EncryptedVolumeType``: the encryption spec of a volume type."""

    support_status = support.SupportStatus(version=SINCE)
    default_client_name = "block_storage"
    lint_properties: ClassVar[dict[str, Any]] = {
        "volume_type": {"get_resource": "vtype"},
        "provider": "luks",
    }
    lint_companions: ClassVar[dict[str, Any]] = {
        "vtype": {"type": "OS::Cinder::VolumeType", "properties": {"name": "LUKS"}}
    }
    properties_schema = {
        "provider": properties.Schema(
            properties.Schema.STRING,
            "The encryptor's class (or its short name, luks / plain).",
            required=True,
            update_allowed=True,
        ),
        "cipher": properties.Schema(
            properties.Schema.STRING,
            "Encryption algorithm.",
            update_allowed=True,
            constraints=[constraints.AllowedValues(["aes-xts-plain64", "aes-cbc-essiv"])],
        ),
        "key_size": properties.Schema(
            properties.Schema.INTEGER,
            "Key size in bits.",
            update_allowed=True,
            constraints=[constraints.AllowedValues([128, 256, 512])],
        ),
        "control_location": properties.Schema(
            properties.Schema.STRING,
            "Where the encryption happens.",
            default="front-end",
            update_allowed=True,
            constraints=[constraints.AllowedValues(["front-end", "back-end"])],
        ),
        "volume_type": properties.Schema(
            properties.Schema.STRING, "Name or id of the volume type.", required=True
        ),
    }

    def _specs(self, values: dict[str, Any]) -> dict[str, Any]:
        keys = ("provider", "cipher", "key_size", "control_location")
        return {k: values[k] for k in keys if values.get(k) is not None}

    def handle_create(self) -> None:
        """Give the volume type its encryption spec."""
        cinder = self.client()
        vtype = find_in(cinder.volume_types.list(), self.properties["volume_type"], "VolumeType")
        cinder.volume_encryption_types.create(vtype.id, self._specs(dict(self.properties)))
        self.resource_id_set(vtype.id)

    def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Change the spec's fields."""
        if prop_diff:
            self.client().volume_encryption_types.update(self.resource_id, self._specs(prop_diff))

    def handle_delete(self) -> None:
        """Take the spec off the type (a type already gone is fine)."""
        if self.resource_id is None:
            return
        try:
            self.client().volume_encryption_types.delete(self.resource_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)

    def _show_resource(self) -> dict[str, Any] | None:
        found = self.client().volume_encryption_types.get(self.resource_id)
        return found if isinstance(found, dict) else found.to_dict()

    def _resolve_attribute(self, name: str) -> Any:
        return None
