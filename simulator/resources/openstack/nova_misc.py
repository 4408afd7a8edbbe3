"""``OS::Nova::KeyPair``, ``OS::Nova::Flavor`` and ``OS::Nova::ServerGroup``.

The fake compute service keeps keypairs itself. It has no API to create
flavors or server groups, so those two are kept as entities of kinds
``nova_flavor`` and ``nova_server_group`` in the generic entity service
(client ``entity``): they have a lifecycle, show up as leaks and can be read
back, but the fake compute does not boot servers with such a flavor.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sdk import attributes, constraints, properties, support
from sdk.resource import Resource
from simulator.resources.openstack._base import SINCE, gone, status_done

__all__ = ["Flavor", "KeyPair", "ServerGroup"]


class KeyPair(Resource):  # plugsim: ignore[PS301] - see the package
    """``OS::Nova::KeyPair``: an SSH keypair, imported or generated.

    The resource id is the keypair name. A generated private key is kept
    (``private_key`` attribute) only with ``save_private_key: true``.
    """

    support_status = support.SupportStatus(version=SINCE)
    default_client_name = "compute"
    entity = "keypairs"
    properties_schema = {
        "name": properties.Schema(
            properties.Schema.STRING,
            "Name of the keypair.",
            required=True,
            constraints=[constraints.Length(min=1, max=255)],
        ),
        "public_key": properties.Schema(
            properties.Schema.STRING,
            "Public key to import (default: generate one).",
            # nova refuses anything but an OpenSSH public key line: say so before asking it
            # (a key file read with get_file ends in a newline, which nova takes)
            constraints=[constraints.AllowedPattern(r"(ssh-|ecdsa-)\S+ \S+[\s\S]*")],
        ),
        "save_private_key": properties.Schema(
            properties.Schema.BOOLEAN, "Keep a generated private key.", default=False
        ),
    }
    attributes_schema = {
        "public_key": attributes.Schema("The public key.", type=attributes.Schema.STRING),
        "private_key": attributes.Schema(
            "The generated private key (when saved).", type=attributes.Schema.STRING
        ),
    }

    def handle_create(self) -> None:
        """Create or import the keypair."""
        created = self.client().keypairs.create(
            self.properties["name"], self.properties["public_key"] or None
        )
        self.resource_id_set(created.id)
        private = created.to_dict().get("private_key")
        if private and self.properties["save_private_key"]:
            self.data_set("private_key", private)

    def _resolve_attribute(self, name: str) -> Any:
        if name == "private_key":
            return self.data().get("private_key", "")
        if name == "public_key" and self.resource_id:
            return self.client().keypairs.get(self.resource_id).public_key
        return None


class _EntityBacked(Resource):
    """A type kept in the generic entity service under :attr:`kind`."""

    support_status = support.SupportStatus(version=SINCE)
    default_client_name = "entity"
    entity = "entities"
    kind: ClassVar[str] = ""

    def body(self) -> dict[str, Any]:
        """Return the entity's attributes."""
        return {k: self.properties[k] for k in self.properties_schema if k != "name"}

    def handle_create(self) -> str:
        """Create the entity."""
        name = self.properties["name"] or self.physical_resource_name()
        created = self.client().entities.create(self.kind, self.body(), name=name)
        self.resource_id_set(created.id)
        return created.id

    def check_create_complete(self, entity_id: str) -> bool:
        """Done when the entity is ACTIVE."""
        status = self.client().entities.get(entity_id).status
        return status_done(f"{self.kind} {entity_id}", status, ["ACTIVE"], pending=["CREATING"])

    def check_delete_complete(self, entity_id: str | None) -> bool:
        """Done when the entity is gone."""
        if entity_id is None:
            return True
        return gone(self, "entity", lambda: self.client().entities.get(entity_id))

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        return self.client().entities.get(self.resource_id).to_dict().get(name)


class Flavor(_EntityBacked):
    """``OS::Nova::Flavor``: a flavor definition (kept in the entity service, see the module)."""

    kind = "nova_flavor"
    properties_schema = {
        "name": properties.Schema(properties.Schema.STRING, "Flavor name."),
        "ram": properties.Schema(
            properties.Schema.INTEGER,
            "Memory in MB.",
            required=True,
            constraints=[constraints.Range(min=1)],
        ),
        "vcpus": properties.Schema(
            properties.Schema.INTEGER,
            "Virtual CPUs.",
            required=True,
            constraints=[constraints.Range(min=1)],
        ),
        "disk": properties.Schema(
            properties.Schema.INTEGER,
            "Root disk in GiB.",
            default=0,
            constraints=[constraints.Range(min=0)],
        ),
        "swap": properties.Schema(
            properties.Schema.INTEGER,
            "Swap in MB.",
            default=0,
            constraints=[constraints.Range(min=0)],
        ),
        "ephemeral": properties.Schema(
            properties.Schema.INTEGER,
            "Ephemeral disk in GiB.",
            default=0,
            constraints=[constraints.Range(min=0)],
        ),
        "rxtx_factor": properties.Schema(
            properties.Schema.NUMBER, "Network bandwidth factor.", default=1.0
        ),
        "is_public": properties.Schema(
            properties.Schema.BOOLEAN, "Visible to every project.", default=True
        ),
        "extra_specs": properties.Schema(properties.Schema.MAP, "Extra specs.", default={}),
    }
    attributes_schema = {
        "is_public": attributes.Schema("Whether it is public.", type=attributes.Schema.BOOLEAN),
        "extra_specs": attributes.Schema("Extra specs.", type=attributes.Schema.MAP),
    }


class ServerGroup(_EntityBacked):
    """``OS::Nova::ServerGroup``: a server group with a placement policy (kept as an entity)."""

    kind = "nova_server_group"
    properties_schema = {
        "name": properties.Schema(properties.Schema.STRING, "Group name."),
        "policies": properties.Schema(
            properties.Schema.LIST,
            "Placement policies.",
            default=["anti-affinity"],
            constraints=[
                constraints.AllowedValues(
                    ["affinity", "anti-affinity", "soft-affinity", "soft-anti-affinity"]
                )
            ],
        ),
    }
    attributes_schema = {
        "policies": attributes.Schema("Placement policies.", type=attributes.Schema.LIST),
    }
