"""Cinder's operator routes on the wire: os-services, capabilities, summary, filters."""

from __future__ import annotations

import pytest

openstack = pytest.importorskip("openstack")


def test_disabling_cinder_volume_leaves_new_volumes_in_error(openstack_connection, fake_cloud):
    storage = openstack_connection.block_storage
    services = {s.binary: s for s in storage.services()}
    assert set(services) == {"cinder-scheduler", "cinder-volume", "cinder-backup"}
    volume_service = services["cinder-volume"]
    assert (volume_service.status, volume_service.state) == ("enabled", "up")
    storage.disable_service(volume_service, reason="maintenance")
    shown = storage.find_service("cinder-volume", host=volume_service.host, ignore_missing=False)
    assert (shown.status, shown.disabled_reason) == ("disabled", "maintenance")
    assert fake_cloud.service("block_storage").daemon_enabled("cinder-volume") is False
    broken = storage.create_volume(size=1)
    assert storage.wait_for_status(broken, status="error", wait=600).status == "error"
    storage.enable_service(volume_service)
    fine = storage.create_volume(size=1)
    assert storage.wait_for_status(fine, status="available", wait=600).status == "available"


def test_capabilities_summary_filters_and_limits(openstack_connection):
    storage = openstack_connection.block_storage
    host = next(s.host for s in storage.services() if s.binary == "cinder-volume")
    capabilities = storage.get_capabilities(host)
    assert capabilities.volume_backend_name == "lvmdriver-1"
    with pytest.raises(openstack.exceptions.NotFoundException):
        storage.get_capabilities("elsewhere")
    storage.create_volume(size=2, metadata={"team": "a"})
    storage.create_volume(size=3, metadata={"team": "b"})
    summary = storage.summary(all_projects=True)
    assert (summary.total_count, summary.total_size) == (2, 5)
    assert summary.metadata == {"team": ["a", "b"]}
    filters = {f.resource: f.filters for f in storage.resource_filters()}
    assert "status" in filters["volume"]
    assert "os-services" in {e.alias for e in storage.extensions()}
    absolute = storage.get_limits().absolute
    assert (absolute.total_gigabytes_used, absolute.max_total_backup_gigabytes) == (5, 1000)


def test_a_volume_transfer_is_offered_accepted_or_cancelled(openstack_connection, fake_cloud):
    storage = openstack_connection.block_storage
    volume = storage.wait_for_status(storage.create_volume(size=1), "available", wait=600)
    offer = storage.create_transfer(volume_id=volume.id, name="give")
    assert offer.auth_key and storage.get_volume(volume.id).status == "awaiting-transfer"
    assert [t.id for t in storage.transfers()] == [offer.id]
    storage.delete_transfer(offer.id, ignore_missing=False)
    assert storage.get_volume(volume.id).status == "available"
    offer = storage.create_transfer(volume_id=volume.id)
    wrong = storage.post(f"/volume-transfers/{offer.id}/accept", json={"accept": {"auth_key": "x"}})
    assert wrong.status_code == 400
    storage.accept_transfer(offer.id, offer.auth_key)
    assert storage.get_volume(volume.id).status == "available"
    assert list(storage.transfers()) == []
    assert fake_cloud.service("block_storage").list_transfers() == []
