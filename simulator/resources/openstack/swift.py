"""``OS::Swift::Container`` on the fake object storage service."""

from __future__ import annotations

from typing import Any, ClassVar

from sdk import attributes, properties, support
from simulator.resources.openstack._base import SINCE, Translated, hidden

__all__ = ["Container"]


class Container(Translated):  # plugsim: ignore[PS301] - see the package
    """``OS::Swift::Container``: an object storage container.

    The resource id is the container name. With ``PurgeOnDelete`` the
    objects in it are deleted first; otherwise deleting a non-empty container
    fails (after the usual conflict retries), as in swift. ``purge_on_delete``,
    plugsim's first spelling, is hidden and translated to Heat's.
    """

    support_status = support.SupportStatus(version=SINCE)
    default_client_name = "object_storage"
    translations: ClassVar[dict[str, str]] = {"purge_on_delete": "PurgeOnDelete"}
    properties_schema = {
        "name": properties.Schema(
            properties.Schema.STRING, "Container name (default: derived from the stack)."
        ),
        "X-Container-Read": properties.Schema(
            properties.Schema.STRING, "Read ACL of the container."
        ),
        "X-Container-Write": properties.Schema(
            properties.Schema.STRING, "Write ACL of the container."
        ),
        "X-Container-Meta": properties.Schema(
            properties.Schema.MAP, "Metadata of the container.", default={}
        ),
        "PurgeOnDelete": properties.Schema(
            properties.Schema.BOOLEAN, "Delete the objects with the container.", default=False
        ),
        "purge_on_delete": hidden(
            properties.Schema(properties.Schema.BOOLEAN), "PurgeOnDelete", since=SINCE
        ),
    }
    attributes_schema = {
        "DomainName": attributes.Schema(
            "Host of the container URL.", type=attributes.Schema.STRING
        ),
        "WebsiteURL": attributes.Schema("URL of the container.", type=attributes.Schema.STRING),
        "RootURL": attributes.Schema("Parent URL of the container.", type=attributes.Schema.STRING),
        "ObjectCount": attributes.Schema("Number of objects.", type=attributes.Schema.INTEGER),
        "BytesUsed": attributes.Schema("Bytes stored.", type=attributes.Schema.INTEGER),
        "HeadContainer": attributes.Schema("The container's headers.", type=attributes.Schema.MAP),
    }

    HOST = "swift.plugsim.local"

    def handle_create(self) -> None:
        """Create the container with its headers."""
        name = self.properties["name"] or self.physical_resource_name()
        headers = {}
        for key in ("X-Container-Read", "X-Container-Write"):
            if self.properties[key]:
                headers[key] = self.properties[key]
        for key, value in sorted((self.properties["X-Container-Meta"] or {}).items()):
            headers[f"X-Container-Meta-{key}"] = str(value)
        self.client().put_container(name, headers or None)
        self.resource_id_set(name)

    def handle_delete(self) -> None:
        """Delete the container (and its objects with PurgeOnDelete)."""
        if self.resource_id is None:
            return
        swift = self.client()
        try:
            if self.properties["PurgeOnDelete"]:
                for obj in swift.get_container(self.resource_id)[1]:
                    swift.delete_object(self.resource_id, obj["name"])
            swift.delete_container(self.resource_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)

    def _show_resource(self) -> dict[str, Any]:
        return self.client().head_container(self.resource_id)

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        root = f"http://{self.HOST}/v1/AUTH_plugsim"
        if name == "DomainName":
            return self.HOST
        if name == "RootURL":
            return root
        if name == "WebsiteURL":
            return f"{root}/{self.resource_id}"
        headers = self.client().head_container(self.resource_id)
        if name == "ObjectCount":
            return int(headers["x-container-object-count"])
        if name == "BytesUsed":
            return int(headers["x-container-bytes-used"])
        if name == "HeadContainer":
            return headers
        return None
