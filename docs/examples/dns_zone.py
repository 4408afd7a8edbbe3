"""An example resource plug-in: a DNS zone kept by the generic entity service.

It is the running example of the guide "Writing a resource plug-in"; the
project's tests import it and drive every handler, so the code shown in the
guide is known to work.
"""

from __future__ import annotations

from typing import Any

from sdk import attributes, constraints, exception, properties, resource, support
from sdk.i18n import _

#: The entity kind a zone is stored as, and the kind of its backups.
ZONE_KIND = "dns_zone"
BACKUP_KIND = "dns_zone_backup"


# [class]
class DNSZone(resource.Resource):
    """A DNS zone: a domain name with a time-to-live and a contact address.

    Zones take a little while to become ``ACTIVE``. The ``ttl`` can change in
    place; a new ``name`` means a new zone.
    """

    support_status = support.SupportStatus(support.UNSUPPORTED, version="0.1.0")
    default_client_name = "entity"
    entity = "entities"

    # [schema]
    properties_schema = {
        "name": properties.Schema(
            properties.Schema.STRING,
            _("The domain name, ending with a dot."),
            required=True,
            constraints=[
                constraints.AllowedPattern(r"([a-z0-9-]+\.)+"),
                constraints.Length(max=253),
            ],
        ),
        "ttl": properties.Schema(
            properties.Schema.INTEGER,
            _("Seconds resolvers may cache the zone's records."),
            default=3600,
            constraints=[constraints.Range(60, 86400)],
            update_allowed=True,
        ),
        "email": properties.Schema(
            properties.Schema.STRING,
            _("Who is responsible for the zone."),
            required=True,
            update_allowed=True,
        ),
        "masters": properties.Schema(
            properties.Schema.LIST,
            _("Primary servers for a secondary zone."),
            schema=properties.Schema(properties.Schema.STRING),
            immutable=True,
        ),
    }
    # [/schema]

    # [attributes]
    attributes_schema = {
        "serial": attributes.Schema(
            _("The zone's serial number; it grows with every change."),
            type=attributes.Schema.INTEGER,
        ),
        "status": attributes.Schema(
            _("The zone's status in the DNS service."),
            type=attributes.Schema.STRING,
        ),
    }
    # [/attributes]

    # [create]
    def handle_create(self) -> str:
        """Ask for the zone; return its id, the token the check receives."""
        zone = self.client().entities.create(
            ZONE_KIND,
            {"ttl": self.properties["ttl"], "email": self.properties["email"], "serial": 1},
            name=self.properties["name"],
        )
        self.resource_id_set(zone.id)
        return zone.id

    def check_create_complete(self, zone_id: str) -> bool:
        """Done when the zone is ACTIVE; a zone in ERROR fails the create."""
        zone = self.client().entities.get(zone_id)
        if zone.status == "ERROR":
            raise exception.ResourceInError(
                resource_status=zone.status, status_reason="the DNS service gave up"
            )
        return zone.status == "ACTIVE"

    # [/create]

    # [update]
    def handle_update(
        self,
        json_snippet: dict[str, Any],
        tmpl_diff: dict[str, Any],
        prop_diff: dict[str, Any],
    ) -> str | None:
        """Change ttl and email in place; bump the serial so secondaries notice."""
        if not prop_diff:
            return None
        zone = self.client().entities.get(self.resource_id)
        changes = {k: v for k, v in prop_diff.items() if k in ("ttl", "email")}
        changes["serial"] = zone.serial + 1
        self.client().entities.update(self.resource_id, changes)
        return self.resource_id

    def check_update_complete(self, zone_id: str | None) -> bool:
        """Done when the zone is ACTIVE again."""
        if zone_id is None:
            return True
        return self.client().entities.get(zone_id).status == "ACTIVE"

    # [/update]

    # [delete]
    def check_delete_complete(self, zone_id: str | None) -> bool:
        """The default handle_delete asked for deletion; wait until the zone is gone."""
        if zone_id is None:
            return True
        try:
            self.client().entities.get(zone_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
            return True
        return False

    def handle_snapshot_delete(self, state: tuple[str, str]) -> str | None:
        """Deletion policy ``Snapshot``: keep a backup of the zone, then delete it."""
        if self.resource_id is None:
            return None
        zone = self.client().entities.get(self.resource_id)
        backup = self.client().entities.create(
            BACKUP_KIND, {"zone": zone.to_dict()}, name=f"{zone.name}backup"
        )
        self.data_set("backup_id", backup.id)
        return self.handle_delete()

    # [/delete]

    # [snapshot]
    def handle_snapshot(self) -> None:
        """A stack snapshot keeps the zone's current ttl and serial in the resource data."""
        zone = self.client().entities.get(self.resource_id)
        self.data_set("ttl", zone.ttl)
        self.data_set("serial", zone.serial)

    def handle_restore(self, defn: Any, restore_data: dict[str, Any]) -> Any:
        """Restoring a snapshot brings the ttl it recorded back into the definition."""
        saved = restore_data.get("resource_data", {})
        if "ttl" not in saved:
            return defn
        return defn.freeze(properties={**defn.properties, "ttl": saved["ttl"]})

    # [/snapshot]

    # [resolve]
    def _resolve_attribute(self, name: str) -> Any:
        """Read attributes from the zone as the service reports it now."""
        if self.resource_id is None:
            return None
        zone = self.client().entities.get(self.resource_id)
        return getattr(zone, name, None)

    # [/resolve]


# [mapping]
def resource_mapping() -> dict[str, type[resource.Resource]]:
    """Publish the zone under its template type name."""
    return {"Example::DNS::Zone": DNSZone}


# [/mapping]
