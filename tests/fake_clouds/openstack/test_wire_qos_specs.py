"""Cinder's QoS specs and volume type encryption on the wire, with python-cinderclient."""

from __future__ import annotations

import pytest

pytest.importorskip("cinderclient")


def test_cinderclient_qos_specs_and_encryption(session, world):
    from cinderclient import client as cinder_client
    from cinderclient import exceptions

    cinder = cinder_client.Client("3", session=session)
    qos = cinder.qos_specs.create("gold", {"read_iops_sec": "100"})
    assert (qos.consumer, qos.specs) == ("back-end", {"read_iops_sec": "100"})
    with pytest.raises(exceptions.ClientException) as taken:
        cinder.qos_specs.create("gold", {})
    assert taken.value.code == 409
    vtype = cinder.volume_types.create("fast")
    cinder.qos_specs.associate(qos, vtype.id)
    assert [a.id for a in cinder.qos_specs.get_associations(qos)] == [vtype.id]
    assert world.client("cinder").volume_types.get(vtype.id).qos_specs_id == qos.id
    with pytest.raises(exceptions.BadRequest):
        cinder.qos_specs.delete(qos)
    cinder.qos_specs.set_keys(qos.id, {"write_iops_sec": "50"})
    cinder.qos_specs.unset_keys(qos.id, ["read_iops_sec"])
    assert cinder.qos_specs.get(qos).specs == {"write_iops_sec": "50"}
    made = cinder.volume_encryption_types.create(
        vtype, {"provider": "luks", "control_location": "front-end", "key_size": 256}
    )
    assert (made.provider, made.key_size) == ("luks", 256)
    cinder.volume_encryption_types.update(vtype, {"control_location": "back-end"})
    assert cinder.volume_encryption_types.get(vtype).control_location == "back-end"
    cinder.volume_encryption_types.delete(vtype)
    cinder.qos_specs.disassociate_all(qos)
    cinder.qos_specs.delete(qos)
    cinder.volume_types.delete(vtype)
    assert world.leaks() == []
