{%- set svc = cookiecutter.service -%}
{%- set cls = cookiecutter.__class_name -%}
{%- set upd = cookiecutter.with_update -%}
"""The ``{{ cookiecutter.resource_type }}`` resource type, kept by the fake ``{{ svc }}`` service.

plugsim finds this module through the ``plugsim.resources`` entry point of the
project's ``pyproject.toml``; :func:`resource_mapping` publishes the type.
"""

from __future__ import annotations

from typing import Any

from sdk import attributes, constraints, {{ '' if svc == 'object_storage' else 'exception, ' }}properties, resource, support
from sdk.i18n import _
{%- if svc == "entity" %}

#: The entity kind the fake entity service stores things as.
KIND = "{{ cookiecutter.package_name }}_thing"
{%- endif %}


class {{ cls }}(resource.Resource):
    """A {{ cls }} of the {{ svc | replace('_', ' ') }} service.

    {{ {"entity": "The thing is an entity of its own kind; it is ready once ``ACTIVE``.",
        "compute": "The thing is a server booted from an image; it is ready once ``ACTIVE``.",
        "block_storage": "The thing is a volume; it is ready once ``available``.",
        "network": "The thing is a network; it is ready once ``ACTIVE``.",
        "object_storage": "The thing is a container named after the ``name`` property."}[svc] }}
    {{ "Update-allowed properties change in place; the others replace it." if upd
       else "Any change of a property replaces it." }}
    """

    support_status = support.SupportStatus(support.{{ cookiecutter.support_status }}, version="0.1.0")
    default_client_name = "{{ svc }}"
{%- if svc == "entity" %}
    entity = "entities"
{%- elif svc == "compute" %}
    entity = "servers"
{%- elif svc == "block_storage" %}
    entity = "volumes"
{%- endif %}

    properties_schema = {
{%- if svc != "object_storage" %}
        "name": properties.Schema(
            properties.Schema.STRING,
            _("The name the service shows."),
            required=True,
            constraints=[
                constraints.Length(1, 63),
                constraints.AllowedPattern(r"[a-z][a-z0-9-]*"),
            ],
            update_allowed={{ upd }},
        ),
{%- endif %}
{%- if svc == "entity" or svc == "block_storage" %}
        "size": properties.Schema(
            properties.Schema.INTEGER,
            _("Size in GiB; a new size means a new {{ 'volume' if svc == 'block_storage' else 'thing' }}."),
            default=1,
            constraints=[constraints.Range(1, 100)],
        ),
        "zone": properties.Schema(
            properties.Schema.STRING,
            _("Availability zone; fixed for the life of the resource."),
            default="zone-a",
            constraints=[constraints.AllowedValues(["zone-a", "zone-b"])],
            immutable=True,
        ),
{%- elif svc == "compute" %}
        "flavor": properties.Schema(
            properties.Schema.STRING,
            _("Flavor of the server; a new flavor means a new server."),
            default="m1.tiny",
            constraints=[constraints.AllowedValues(["m1.tiny", "m1.small", "m1.medium"])],
        ),
        "image": properties.Schema(
            properties.Schema.STRING,
            _("Image the server boots; fixed for the life of the resource."),
            default="cirros",
            constraints=[constraints.AllowedValues(["cirros", "fedora", "ubuntu"])],
            immutable=True,
        ),
{%- elif svc == "network" %}
        "mtu": properties.Schema(
            properties.Schema.INTEGER,
            _("Largest packet size; a new MTU means a new network."),
            default=1500,
            constraints=[constraints.Range(1280, 9000)],
        ),
        "shared": properties.Schema(
            properties.Schema.BOOLEAN,
            _("Whether other projects may use the network; fixed once created."),
            default=False,
            immutable=True,
        ),
{%- else %}
        "name": properties.Schema(
            properties.Schema.STRING,
            _("The container name, also its id; a new name means a new container."),
            required=True,
            constraints=[
                constraints.Length(1, 63),
                constraints.AllowedPattern(r"[a-z][a-z0-9-]*"),
            ],
        ),
        "metadata": properties.Schema(
            properties.Schema.MAP,
            _("Metadata headers of the container (X-Container-Meta-<key>)."),
            default={},
            update_allowed={{ upd }},
        ),
        "read_acl": properties.Schema(
            properties.Schema.STRING,
            _("Who may read the container (X-Container-Read); fixed once created."),
            default=".r:*",
            immutable=True,
        ),
{%- endif %}
    }

    attributes_schema = {
{%- if svc == "object_storage" %}
        "object_count": attributes.Schema(
            _("How many objects the container holds."), type=attributes.Schema.INTEGER
        ),
        "bytes_used": attributes.Schema(
            _("Bytes stored in the container."), type=attributes.Schema.INTEGER
        ),
{%- else %}
        "status": attributes.Schema(
            _("The status the service reports."), type=attributes.Schema.STRING
        ),
{%- endif %}
{%- if svc == "entity" or svc == "block_storage" %}
        "size": attributes.Schema(_("Size in GiB."), type=attributes.Schema.INTEGER),
{%- elif svc == "compute" %}
        "flavor": attributes.Schema(
            _("Name of the server's flavor."), type=attributes.Schema.STRING
        ),
{%- elif svc == "network" %}
        "mtu": attributes.Schema(_("The network's MTU."), type=attributes.Schema.INTEGER),
{%- endif %}
    }

    # --- talking to the service ------------------------------------------------------

    def _fetch(self, thing_id: str) -> dict[str, Any]:
        """The thing as the service reports it now (NotFound when it is gone)."""
{%- if svc == "network" %}
        return self.client().show_network(thing_id)["network"]
{%- elif svc == "object_storage" %}
        return self.client().head_container(thing_id)
{%- else %}
        return getattr(self.client(), self.entity).get(thing_id).to_dict()
{%- endif %}

    def _ready(self, info: dict[str, Any]) -> bool:
        """Whether the thing finished its last transition; ResourceInError in error."""
{%- if svc == "object_storage" %}
        return bool(info)
{%- else %}
        status = info.get("status")
        if status == "{{ 'error' if svc == 'block_storage' else 'ERROR' }}":
            raise exception.ResourceInError(
                resource_status=status, status_reason="the {{ svc }} service gave up"
            )
        return status == "{{ 'available' if svc == 'block_storage' else 'ACTIVE' }}"
{%- endif %}

    def _gone(self, thing_id: str | None) -> bool:
        """True once the service no longer knows *thing_id*."""
        if thing_id is None:
            return True
        try:
            self._fetch(thing_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
            return True
        return False

    # --- create and delete -----------------------------------------------------------

    def handle_create(self) -> str:
        """Ask the service for the thing; return its id, the token the check polls."""
        client = self.client()
{%- if svc == "entity" %}
        thing = client.entities.create(
            KIND,
            {"size": self.properties["size"], "zone": self.properties["zone"]},
            name=self.properties["name"],
        )
        thing_id = thing.id
{%- elif svc == "compute" %}
        server = client.servers.create(
            self.properties["name"], self.properties["image"], self.properties["flavor"]
        )
        thing_id = server.id
{%- elif svc == "block_storage" %}
        volume = client.volumes.create(
            self.properties["size"],
            name=self.properties["name"],
            availability_zone=self.properties["zone"],
        )
        thing_id = volume.id
{%- elif svc == "network" %}
        body = {
            "name": self.properties["name"],
            "mtu": self.properties["mtu"],
            "shared": self.properties["shared"],
        }
        thing_id = client.create_network({"network": body})["network"]["id"]
{%- else %}
        thing_id = self.properties["name"]
        client.put_container(thing_id, self._headers())
{%- endif %}
        self.resource_id_set(thing_id)
        return thing_id

    def check_create_complete(self, thing_id: str) -> bool:
        """Done when the thing is ready; a thing not visible yet is not ready."""
        try:
            info = self._fetch(thing_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
            return False
        return self._ready(info)
{%- if svc == "block_storage" %}

    def handle_delete(self) -> str | None:
        """Ask for deletion; a volume still busy is deleted by the check once it settles."""
        if self.resource_id is None:
            return None
        try:
            self.client().volumes.delete(self.resource_id)
        except Exception as ex:
            plugin = self.client_plugin()
            if plugin.is_not_found(ex):
                return None
            if not plugin.is_conflict(ex):
                raise
        return self.resource_id
{%- elif svc == "network" %}

    def handle_delete(self) -> str | None:
        """Delete the network; a network already gone is fine."""
        if self.resource_id is None:
            return None
        try:
            self.client().delete_network(self.resource_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
            return None
        return self.resource_id
{%- elif svc == "object_storage" %}

    def _headers(self) -> dict[str, str]:
        """The container headers the properties ask for."""
        headers = {"X-Container-Read": self.properties["read_acl"]}
        for key, value in sorted((self.properties["metadata"] or {}).items()):
            headers[f"X-Container-Meta-{key}"] = str(value)
        return headers

    def handle_delete(self) -> str | None:
        """Delete the container; a container already gone is fine."""
        if self.resource_id is None:
            return None
        try:
            self.client().delete_container(self.resource_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
            return None
        return self.resource_id
{%- endif %}

    def check_delete_complete(self, thing_id: str | None) -> bool:
        """The delete handler asked for deletion; done once the thing is gone."""
{%- if svc == "block_storage" %}
        if thing_id is None:
            return True
        try:
            if self._fetch(thing_id)["status"] in ("available", "error"):
                self.client().volumes.delete(thing_id)  # it was busy when the handler asked
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
            return True
        return False
{%- else %}
        return self._gone(thing_id)
{%- endif %}

    def handle_check(self) -> None:
        """Check that the thing still exists (NotFound fails the check)."""
        self._fetch(self.resource_id)
{%- if upd %}

    # --- update ----------------------------------------------------------------------

    def handle_update(
        self,
        json_snippet: dict[str, Any],
        tmpl_diff: dict[str, Any],
        prop_diff: dict[str, Any],
    ) -> str | None:
        """Apply the update-allowed changes in place; return the id the check polls."""
        if not prop_diff:
            return None
{%- if svc == "entity" %}
        self.client().entities.update(self.resource_id, name=prop_diff["name"])
{%- elif svc == "compute" %}
        self.client().servers.update(self.resource_id, name=prop_diff["name"])
{%- elif svc == "block_storage" %}
        self.client().volumes.update(self.resource_id, name=prop_diff["name"])
{%- elif svc == "network" %}
        self.client().update_network(self.resource_id, {"network": {"name": prop_diff["name"]}})
{%- else %}
        metadata = prop_diff["metadata"] or {}
        headers = {f"X-Container-Meta-{k}": str(v) for k, v in sorted(metadata.items())}
        self.client().post_container(self.resource_id, headers)
{%- endif %}
        return self.resource_id

    def check_update_complete(self, thing_id: str | None) -> bool:
        """Done when the thing is ready again."""
        if thing_id is None:
            return True
        return self._ready(self._fetch(thing_id))
{%- endif %}
{%- if cookiecutter.with_suspend_resume %}

    # --- suspend and resume ----------------------------------------------------------

    def handle_suspend(self) -> str:
        """Suspend the server; return its id for the check."""
        self.client().servers.suspend(self.resource_id)
        return self.resource_id

    def check_suspend_complete(self, thing_id: str) -> bool:
        """Done when the server is SUSPENDED."""
        return self._fetch(thing_id)["status"] == "SUSPENDED"

    def handle_resume(self) -> str:
        """Resume the server; return its id for the check."""
        self.client().servers.resume(self.resource_id)
        return self.resource_id

    def check_resume_complete(self, thing_id: str) -> bool:
        """Done when the server is ACTIVE again."""
        return self._ready(self._fetch(thing_id))
{%- endif %}
{%- if cookiecutter.with_snapshot %}

    # --- snapshot and restore --------------------------------------------------------

    def handle_snapshot(self) -> None:
        """A stack snapshot records the name the service shows in the resource data."""
        info = self._fetch(self.resource_id)
        self.data_set("name", info.get("name", self.resource_id))

    def handle_restore(self, defn: Any, restore_data: dict[str, Any]) -> Any:
        """Restoring a snapshot brings the recorded name back into the definition."""
        saved = restore_data.get("resource_data", {})
        if "name" not in saved:
            return defn
        return defn.freeze(properties={**defn.properties, "name": saved["name"]})
{%- endif %}

    # --- attributes ------------------------------------------------------------------

    def _resolve_attribute(self, name: str) -> Any:
        """Read an attribute from the thing as the service reports it now."""
        if self.resource_id is None:
            return None
        info = self._fetch(self.resource_id)
{%- if svc == "object_storage" %}
        header = {
            "object_count": "x-container-object-count",
            "bytes_used": "x-container-bytes-used",
        }
        return int(info[header[name]])
{%- elif svc == "compute" %}
        if name == "flavor":
            return info["flavor"]["original_name"]
        return info.get(name)
{%- else %}
        return info.get(name)
{%- endif %}
{%- if svc == "network" or svc == "object_storage" %}

    def _show_resource(self) -> dict[str, Any]:
        """The ``show`` attribute: everything the service reports."""
        return self._fetch(self.resource_id)
{%- endif %}


def resource_mapping() -> dict[str, type[resource.Resource]]:
    """Publish the resource type under its template type name."""
    return {"{{ cookiecutter.resource_type }}": {{ cls }}}
