"""The nova-like compute client: ``servers``, ``flavors``, ``flavor_access``, ``images``,
``keypairs``, ``volumes``, ``server_groups``, ``aggregates``, ``hosts``, ``quotas``.

Every manager method takes ids or objects with ``.id``; ``get``/``create``
return :class:`~fake_clouds.core.client_base.ClientObject` instances.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.clients.aggregates import AggregateManager, HostManager
from fake_clouds.clients.quotas import ComputeQuotaSetManager
from fake_clouds.clients.server_groups import ServerGroupManager
from fake_clouds.core.client_base import ClientObject, Manager, id_of
from sdk import exception


class Server(ClientObject):
    """A server as nova returns it (``status``, ``addresses``, ``flavor`` ...)."""

    @property
    def networks(self) -> dict[str, list[str]]:
        """Addresses by network name (nova's convenience view)."""
        return {net: [a["addr"] for a in addrs] for net, addrs in sorted(self.addresses.items())}


class Flavor(ClientObject):
    """A flavor (``vcpus``, ``ram``, ``disk``) with novaclient's extra-spec methods."""

    def get_keys(self) -> dict[str, str]:
        """The flavor's extra specs, read from the service now."""
        return dict(self.manager.service.get_flavor(self.id)["extra_specs"])

    def set_keys(self, metadata: dict[str, Any]) -> dict[str, str]:
        """Merge *metadata* into the extra specs; return them all."""
        return dict(self.manager.service.set_flavor_extra_specs(self.id, metadata))

    def unset_keys(self, keys: Any) -> None:
        """Remove each of *keys* from the extra specs."""
        for key in list(keys):
            self.manager.service.delete_flavor_extra_spec(self.id, key)


class Image(ClientObject):
    """An image (``status`` queued/saving/active)."""


class Keypair(ClientObject):
    """A keypair; its id is its name."""


class ServerManager(Manager):
    """``client.servers``."""

    resource_class = Server
    # create, get and list keep the service's Entity.view() as is: a fresh copy for this call

    def create(self, name: str, image: Any, flavor: Any, **kwargs: Any) -> Server:
        """Boot a server (BUILD, later ACTIVE)."""
        return self._wrap(
            self.service.create_server(name, id_of(image), id_of(flavor), **kwargs), owned=True
        )  # type: ignore[return-value]

    def get(self, server: Any) -> Server:
        """Return one server."""
        return self._wrap(self.service.get_server(id_of(server)), owned=True)  # type: ignore[return-value]

    def list(self, search_opts: dict[str, Any] | None = None, **filters: Any) -> list[Server]:
        """Return servers, optionally filtered by field values."""
        return self._wrap_all(
            self.service.list_servers(**{**(search_opts or {}), **filters}), owned=True
        )  # type: ignore[return-value]

    def update(
        self, server: Any, name: str | None = None, description: str | None = None
    ) -> Server:
        """Rename a server or set its description."""
        return self._wrap(self.service.update_server(id_of(server), name, description))  # type: ignore[return-value]

    def set_meta(self, server: Any, metadata: dict[str, str]) -> Server:
        """Merge metadata into the server's."""
        return self._wrap(self.service.set_server_metadata(id_of(server), metadata))  # type: ignore[return-value]

    def delete_meta(self, server: Any, keys: list[str]) -> Server:
        """Remove metadata *keys* from the server's."""
        return self._wrap(self.service.delete_server_metadata(id_of(server), list(keys)))  # type: ignore[return-value]

    def delete(self, server: Any) -> None:
        """Start deleting a server."""
        self.service.delete_server(id_of(server))

    def suspend(self, server: Any) -> None:
        """Suspend an ACTIVE server."""
        self.service.suspend_server(id_of(server))

    def resume(self, server: Any) -> None:
        """Resume a SUSPENDED server."""
        self.service.resume_server(id_of(server))

    def change_password(self, server: Any, password: str) -> None:
        """Set an ACTIVE server's administrator password."""
        self.service.change_password(id_of(server), password)

    def stop(self, server: Any) -> None:
        """Power a server off."""
        self.service.stop_server(id_of(server))

    def start(self, server: Any) -> None:
        """Power a server on."""
        self.service.start_server(id_of(server))

    def reboot(self, server: Any, reboot_type: str = "SOFT") -> None:
        """Reboot (``SOFT`` or ``HARD``)."""
        self.service.reboot_server(id_of(server), reboot_type)

    def resize(self, server: Any, flavor: Any) -> None:
        """Resize to another flavor (ends in VERIFY_RESIZE)."""
        self.service.resize_server(id_of(server), id_of(flavor))

    def confirm_resize(self, server: Any) -> None:
        """Confirm a resize."""
        self.service.confirm_resize(id_of(server))

    def revert_resize(self, server: Any) -> None:
        """Revert a resize."""
        self.service.revert_resize(id_of(server))

    def rebuild(self, server: Any, image: Any, name: str | None = None) -> Server:
        """Rebuild from an image."""
        return self._wrap(self.service.rebuild_server(id_of(server), id_of(image), name))  # type: ignore[return-value]

    def interface_list(self, server: Any) -> list[ClientObject]:
        """The server's interfaces (``port_id``, ``net_id``, ``fixed_ips``, ``mac_addr``)."""
        return [ClientObject(self, i) for i in self.service.list_interfaces(id_of(server))]

    def interface_attach(
        self, server: Any, port_id: Any, net_id: Any, fixed_ip: str | None = None
    ) -> ClientObject:
        """Plug an existing port, or a new port on a network, into the server."""
        found = self.service.attach_interface(
            id_of(server),
            port_id=id_of(port_id) if port_id else None,
            net_id=id_of(net_id) if net_id else None,
            fixed_ip=fixed_ip,
        )
        return ClientObject(self, found)

    def interface_detach(self, server: Any, port_id: Any) -> None:
        """Unplug a port from the server."""
        self.service.detach_interface(id_of(server), id_of(port_id))

    def create_image(
        self, server: Any, image_name: str, metadata: dict[str, Any] | None = None
    ) -> str:
        """Snapshot a server; return the new image's id."""
        return self.service.create_image(id_of(server), image_name, metadata)["id"]


class FlavorManager(Manager):
    """``client.flavors``."""

    resource_class = Flavor

    def get(self, flavor: Any) -> Flavor:
        """Return one flavor."""
        return self._wrap(self.service.get_flavor(id_of(flavor)))  # type: ignore[return-value]

    def list(self) -> list[Flavor]:
        """Return every flavor."""
        return self._wrap_all(self.service.list_flavors())  # type: ignore[return-value]

    def create(
        self,
        name: str,
        ram: int,
        vcpus: int,
        disk: int,
        flavorid: Any = "auto",
        ephemeral: int = 0,
        swap: int = 0,
        rxtx_factor: float = 1.0,
        is_public: bool = True,
        description: str | None = None,
    ) -> Flavor:
        """Create a flavor from novaclient's arguments (``flavorid='auto'``: the cloud picks)."""
        flavor_id = None if flavorid in (None, "auto") else str(flavorid)
        info = self.service.create_flavor(
            name,
            vcpus,
            ram,
            disk,
            flavor_id=flavor_id,
            ephemeral=ephemeral,
            swap=swap,
            rxtx_factor=rxtx_factor,
            is_public=is_public,
            description=description,
        )
        return self._wrap(info)  # type: ignore[return-value]

    def update(self, flavor: Any, description: str | None = None) -> Flavor:
        """Change a flavor's description (nova's only mutable field)."""
        return self._wrap(self.service.update_flavor(id_of(flavor), description))  # type: ignore[return-value]

    def delete(self, flavor: Any) -> None:
        """Delete a flavor."""
        self.service.delete_flavor(id_of(flavor))


class FlavorAccess(ClientObject):
    """One project's access to a private flavor (``flavor_id``, ``tenant_id``)."""


class FlavorAccessManager(Manager):
    """``client.flavor_access``: which projects may use a private flavor."""

    resource_class = FlavorAccess

    def _entries(self, flavor_id: str, projects: list[str]) -> list[FlavorAccess]:
        entries = [{"flavor_id": flavor_id, "tenant_id": p} for p in projects]
        return self._wrap_all(entries)  # type: ignore[return-value]

    def list(self, flavor: Any) -> list[FlavorAccess]:
        """The projects given access to *flavor* (404 for a public flavor)."""
        return self._entries(id_of(flavor), self.service.list_flavor_access(id_of(flavor)))

    def add_tenant_access(self, flavor: Any, tenant: str) -> list[FlavorAccess]:
        """Give *tenant* access to a private *flavor*; return the access list."""
        return self._entries(id_of(flavor), self.service.add_flavor_access(id_of(flavor), tenant))

    def remove_tenant_access(self, flavor: Any, tenant: str) -> list[FlavorAccess]:
        """Take *tenant*'s access to *flavor* away; return the access list."""
        projects = self.service.remove_flavor_access(id_of(flavor), tenant)
        return self._entries(id_of(flavor), projects)


class ImageManager(Manager):
    """``client.images`` (nova's image proxy, plus delete)."""

    resource_class = Image

    def get(self, image: Any) -> Image:
        """Return one image."""
        return self._wrap(self.service.get_image(id_of(image)))  # type: ignore[return-value]

    def list(self) -> list[Image]:
        """Return every image."""
        return self._wrap_all(self.service.list_images())  # type: ignore[return-value]

    def delete(self, image: Any) -> None:
        """Delete an image."""
        self.service.delete_image(id_of(image))


class KeypairManager(Manager):
    """``client.keypairs``."""

    resource_class = Keypair

    def create(
        self,
        name: str,
        public_key: str | None = None,
        key_type: str = "ssh",
        user_id: str | None = None,
    ) -> Keypair:
        """Create or import a keypair (novaclient's ``key_type``, microversion 2.2, and
        ``user_id``, 2.10, are taken; nova's schema allows the types ``ssh`` and ``x509``)."""
        if key_type not in ("ssh", "x509"):
            raise exception.BadRequest(
                f"Invalid input for field/attribute type. Value: {key_type}. "
                f"{key_type!r} is not one of ['ssh', 'x509']"
            )
        return self._wrap(self.service.create_keypair(name, public_key))  # type: ignore[return-value]

    def get(self, keypair: Any) -> Keypair:
        """Return one keypair."""
        return self._wrap(self.service.get_keypair(id_of(keypair)))  # type: ignore[return-value]

    def list(self) -> list[Keypair]:
        """Return every keypair."""
        return self._wrap_all(self.service.list_keypairs())  # type: ignore[return-value]

    def delete(self, keypair: Any) -> None:
        """Delete a keypair."""
        self.service.delete_keypair(id_of(keypair))


class ServerVolumeManager(Manager):
    """``client.volumes``: attach block-storage volumes to servers (nova's API)."""

    def create_server_volume(
        self, server_id: Any, volume_id: Any, device: str | None = None
    ) -> ClientObject:
        """Attach a volume to a server; return the attachment."""
        storage = self.service.world.service("block_storage")
        info = storage.attach_volume(id_of(volume_id), id_of(server_id), device)
        return self._wrap(
            info["attachments"][-1] | {"id": info["attachments"][-1]["attachment_id"]}
        )

    def delete_server_volume(self, server_id: Any, volume_id: Any) -> None:
        """Detach a volume from a server."""
        storage = self.service.world.service("block_storage")
        storage.detach_volume(id_of(volume_id), id_of(server_id))

    def get_server_volumes(self, server_id: Any) -> list[ClientObject]:
        """Return the attachments of a server."""
        server = self.service.get_server(id_of(server_id))
        return [
            self._wrap({"id": v["id"], "volumeId": v["id"], "serverId": server["id"]})
            for v in server["os-extended-volumes:volumes_attached"]
        ]


class ComputeClient:
    """A nova-like client bound to one fake compute service."""

    def __init__(self, service: Any) -> None:
        self.servers = ServerManager(service)
        self.flavors = FlavorManager(service)
        self.flavor_access = FlavorAccessManager(service)
        self.server_groups = ServerGroupManager(service)
        self.images = ImageManager(service)
        self.keypairs = KeypairManager(service)
        self.volumes = ServerVolumeManager(service)
        self.aggregates = AggregateManager(service)
        self.hosts = HostManager(service)
        self.quotas = ComputeQuotaSetManager(service)
