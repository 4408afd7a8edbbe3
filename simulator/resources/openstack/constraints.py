"""Custom constraints of the OpenStack types: the named entity must exist in the fake cloud.

Each constraint looks the value up (by id or name) through the resource
context's client plug-in, so ``image: no-such-image`` fails validation with
``The Image (no-such-image) could not be found.`` naming the resource and
property. They are published through the entry-point group
``plugsim.constraints`` under Heat's names (``nova.flavor``, ``glance.image``...).
"""

from __future__ import annotations

from typing import Any

from sdk import exception
from sdk.constraints import BaseCustomConstraint
from simulator.resources.openstack._base import compute_id, find_in, neutron_id

__all__ = [
    "BackupConstraint",
    "FlavorConstraint",
    "ImageConstraint",
    "KeypairConstraint",
    "ListenerConstraint",
    "LoadBalancerConstraint",
    "NetworkConstraint",
    "PoolConstraint",
    "PortConstraint",
    "RouterConstraint",
    "SecurityGroupConstraint",
    "SnapshotConstraint",
    "SubnetConstraint",
    "VolumeConstraint",
    "constraint_mapping",
]

_INVALID = (exception.EntityNotFound, exception.NotFound, exception.Conflict, exception.BadRequest)


class _Lookup(BaseCustomConstraint):
    """Base: the value names an entity the constraint's client can find.

    Subclasses define ``find(client, value)``, raising one of the expected
    exceptions when the entity is missing.
    """

    expected_exceptions = _INVALID
    client_name = "compute"

    def validate_with_client(self, client: Any, value: Any) -> None:
        """Check *value* through the context's client plug-in."""
        if not isinstance(value, str) or not value:
            raise exception.BadRequest(f"{value!r} is not a name or id")
        self.find(client.client_plugin(self.client_name).client(), value)


class FlavorConstraint(_Lookup):
    """``nova.flavor``: a compute flavor, by name or id."""

    def find(self, client: Any, value: Any) -> None:
        """Find the flavor."""
        compute_id(client, "flavors", value, "Flavor")


class ImageConstraint(_Lookup):
    """``glance.image``: an image, by name or id."""

    def find(self, client: Any, value: Any) -> None:
        """Find the image."""
        compute_id(client, "images", value, "Image")


class KeypairConstraint(_Lookup):
    """``nova.keypair``: a keypair, by name."""

    def find(self, client: Any, value: Any) -> None:
        """Find the keypair."""
        find_in(client.keypairs.list(), value, "Key")


class _Neutron(_Lookup):
    client_name = "network"
    kind = "network"

    def find(self, client: Any, value: Any) -> None:
        """Find the neutron entity."""
        neutron_id(client, self.kind, value)


class NetworkConstraint(_Neutron):
    """``neutron.network``: a network, by name or id."""

    kind = "network"


class SubnetConstraint(_Neutron):
    """``neutron.subnet``: a subnet, by name or id."""

    kind = "subnet"


class PortConstraint(_Neutron):
    """``neutron.port``: a port, by name or id."""

    kind = "port"


class RouterConstraint(_Neutron):
    """``neutron.router``: a router, by name or id."""

    kind = "router"


class SecurityGroupConstraint(_Neutron):
    """``neutron.security_group``: a security group, by name or id."""

    kind = "security_group"


class _Cinder(_Lookup):
    client_name = "block_storage"
    manager = "volumes"
    label = "Volume"

    def find(self, client: Any, value: Any) -> None:
        """Find the block storage entity."""
        find_in(getattr(client, self.manager).list(), value, self.label)


class VolumeConstraint(_Cinder):
    """``cinder.volume``: a volume, by name or id."""


class SnapshotConstraint(_Cinder):
    """``cinder.snapshot``: a volume snapshot, by name or id."""

    manager = "volume_snapshots"
    label = "VolumeSnapshot"


class BackupConstraint(_Cinder):
    """``cinder.backup``: a volume backup, by name or id."""

    manager = "backups"
    label = "Backup"


class _OctaviaLookup(_Lookup):
    """An Octavia object (kept in the entity service) named by id or name."""

    client_name = "entity"
    kind = ""
    label = ""

    def find(self, client: Any, value: Any) -> None:
        """Find the object among the entities of its kind."""
        find_in([e.to_dict() for e in client.entities.list(self.kind)], value, self.label)


class LoadBalancerConstraint(_OctaviaLookup):
    """``octavia.loadbalancer``."""

    kind = "octavia_loadbalancer"
    label = "Load Balancer"


class ListenerConstraint(_OctaviaLookup):
    """``octavia.listener``."""

    kind = "octavia_listener"
    label = "Listener"


class PoolConstraint(_OctaviaLookup):
    """``octavia.pool``."""

    kind = "octavia_pool"
    label = "Pool"


def constraint_mapping() -> dict[str, type[BaseCustomConstraint]]:
    """Return the constraints by their Heat names."""
    return {
        "cinder.backup": BackupConstraint,
        "cinder.snapshot": SnapshotConstraint,
        "cinder.volume": VolumeConstraint,
        "glance.image": ImageConstraint,
        "neutron.network": NetworkConstraint,
        "neutron.port": PortConstraint,
        "neutron.router": RouterConstraint,
        "neutron.security_group": SecurityGroupConstraint,
        "neutron.subnet": SubnetConstraint,
        "nova.flavor": FlavorConstraint,
        "nova.keypair": KeypairConstraint,
        "octavia.listener": ListenerConstraint,
        "octavia.loadbalancer": LoadBalancerConstraint,
        "octavia.pool": PoolConstraint,
    }
