"""The cinder-like block storage client: ``volumes``, ``volume_snapshots``, ``backups``,
``restores``, ``quotas`` and the volume type managers."""

from __future__ import annotations

from typing import Any

from fake_clouds.clients.quotas import BlockStorageQuotaSetManager
from fake_clouds.clients.volume_type_extras import QoSSpecsManager, VolumeEncryptionTypeManager
from fake_clouds.clients.volume_types import VolumeTypeAccessManager, VolumeTypeManager
from fake_clouds.core.client_base import ClientObject, Manager, id_of


class Volume(ClientObject):
    """A volume (``status``, ``size``, ``attachments`` ...)."""


class Snapshot(ClientObject):
    """A volume snapshot."""


class Backup(ClientObject):
    """A volume backup."""


class Restore(ClientObject):
    """The result of a backup restore (``backup_id``, ``volume_id``)."""


class VolumeManager(Manager):
    """``client.volumes``."""

    resource_class = Volume
    # create, get and list keep the service's Entity.view() as is: a fresh copy for this call

    def create(self, size: int | None = None, **kwargs: Any) -> Volume:
        """Create a volume (``creating`` -> ``available``)."""
        return self._wrap(self.service.create_volume(size, **kwargs), owned=True)  # type: ignore[return-value]

    def get(self, volume: Any) -> Volume:
        """Return one volume."""
        return self._wrap(self.service.get_volume(id_of(volume)), owned=True)  # type: ignore[return-value]

    def list(self, search_opts: dict[str, Any] | None = None, **filters: Any) -> list[Volume]:
        """Return volumes, optionally filtered by field values."""
        return self._wrap_all(
            self.service.list_volumes(**{**(search_opts or {}), **filters}), owned=True
        )  # type: ignore[return-value]

    def update(self, volume: Any, **kwargs: Any) -> Volume:
        """Change name, description or metadata."""
        return self._wrap(self.service.update_volume(id_of(volume), **kwargs))  # type: ignore[return-value]

    def delete(self, volume: Any) -> None:
        """Delete a volume (Conflict when attached)."""
        self.service.delete_volume(id_of(volume))

    def extend(self, volume: Any, new_size: int) -> None:
        """Grow a volume to *new_size* GiB."""
        self.service.extend_volume(id_of(volume), new_size)

    def attach(self, volume: Any, instance_uuid: Any, mountpoint: str | None = None) -> None:
        """Attach to a server."""
        self.service.attach_volume(id_of(volume), id_of(instance_uuid), mountpoint)

    def detach(self, volume: Any, server_id: Any = None) -> None:
        """Detach from its server."""
        self.service.detach_volume(id_of(volume), id_of(server_id) if server_id else None)


class SnapshotManager(Manager):
    """``client.volume_snapshots``."""

    resource_class = Snapshot

    def create(
        self, volume_id: Any, force: bool = False, name: str | None = None, **kwargs: Any
    ) -> Snapshot:
        """Snapshot a volume."""
        return self._wrap(
            self.service.create_snapshot(id_of(volume_id), name=name, force=force, **kwargs)
        )  # type: ignore[return-value]

    def get(self, snapshot: Any) -> Snapshot:
        """Return one snapshot."""
        return self._wrap(self.service.get_snapshot(id_of(snapshot)))  # type: ignore[return-value]

    def list(self, search_opts: dict[str, Any] | None = None) -> list[Snapshot]:
        """Return snapshots."""
        return self._wrap_all(self.service.list_snapshots(**(search_opts or {})))  # type: ignore[return-value]

    def delete(self, snapshot: Any) -> None:
        """Delete a snapshot."""
        self.service.delete_snapshot(id_of(snapshot))


class BackupManager(Manager):
    """``client.backups``."""

    resource_class = Backup

    def create(self, volume_id: Any, name: str | None = None, **kwargs: Any) -> Backup:
        """Back a volume up."""
        return self._wrap(self.service.create_backup(id_of(volume_id), name=name, **kwargs))  # type: ignore[return-value]

    def get(self, backup: Any) -> Backup:
        """Return one backup."""
        return self._wrap(self.service.get_backup(id_of(backup)))  # type: ignore[return-value]

    def list(self, search_opts: dict[str, Any] | None = None) -> list[Backup]:
        """Return backups."""
        return self._wrap_all(self.service.list_backups(**(search_opts or {})))  # type: ignore[return-value]

    def delete(self, backup: Any) -> None:
        """Delete a backup."""
        self.service.delete_backup(id_of(backup))


class RestoreManager(Manager):
    """``client.restores``."""

    resource_class = Restore

    def restore(self, backup_id: Any, volume_id: Any = None, name: str | None = None) -> Restore:
        """Restore a backup into a volume (a new one when *volume_id* is None)."""
        info = self.service.restore_backup(
            id_of(backup_id), id_of(volume_id) if volume_id else None, name
        )
        return self._wrap({"id": info["volume_id"], **info})  # type: ignore[return-value]


class BlockStorageClient:
    """A cinder-like client bound to one fake block storage service."""

    def __init__(self, service: Any) -> None:
        self.volumes = VolumeManager(service)
        self.volume_snapshots = SnapshotManager(service)
        self.backups = BackupManager(service)
        self.restores = RestoreManager(service)
        self.volume_types = VolumeTypeManager(service)
        self.volume_type_access = VolumeTypeAccessManager(service, self.volume_types)
        self.qos_specs = QoSSpecsManager(service, self.volume_types)
        self.volume_encryption_types = VolumeEncryptionTypeManager(service, self.volume_types)
        self.quotas = BlockStorageQuotaSetManager(service)
