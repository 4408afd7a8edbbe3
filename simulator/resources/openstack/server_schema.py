"""The nested property schemas of ``OS::Nova::Server``: its networks and block device mappings.

(Kept apart from :mod:`simulator.resources.openstack.server` for size; the hidden names
``networks[].uuid`` and ``block_device_mapping_v2[].image_id`` are translated by the server.)
"""

from __future__ import annotations

from sdk import constraints, properties
from simulator.resources.openstack._base import hidden

__all__ = ["BDM_SCHEMA", "BDM_V2_SCHEMA", "FORMATS", "NETWORK_SCHEMA", "TRANSPORTS"]

#: One entry of ``networks``.
NETWORK_SCHEMA = {
    "network": properties.Schema(
        properties.Schema.STRING,
        "Name or id of a network to plug into (a port is created on it).",
        constraints=[constraints.CustomConstraint("neutron.network")],
    ),
    "port": properties.Schema(
        properties.Schema.STRING,
        "Id or name of an existing port to plug in.",
        constraints=[constraints.CustomConstraint("neutron.port")],
    ),
    "fixed_ip": properties.Schema(
        properties.Schema.STRING, "The fixed IP address to ask for on the network."
    ),
    "subnet": properties.Schema(
        properties.Schema.STRING,
        "Name or id of a subnet to plug into: a port is made on it (on its network when no "
        "network is given), and deleted with the server.",
        constraints=[constraints.CustomConstraint("neutron.subnet")],
    ),
    "uuid": hidden(
        properties.Schema(
            properties.Schema.STRING, constraints=[constraints.CustomConstraint("neutron.network")]
        ),
        "network",
    ),
}

#: One entry of ``block_device_mapping``.
BDM_SCHEMA = {
    "device_name": properties.Schema(
        properties.Schema.STRING, "Device name of the volume in the server (e.g. vdb)."
    ),
    "volume_id": properties.Schema(
        properties.Schema.STRING,
        "Id or name of the volume to attach.",
        required=True,
        constraints=[constraints.CustomConstraint("cinder.volume")],
    ),
    "delete_on_termination": properties.Schema(
        properties.Schema.BOOLEAN,
        "Delete the volume when the server is deleted.",
        default=False,
    ),
}

#: One entry of ``block_device_mapping_v2``.
BDM_V2_SCHEMA = {
    **{k: v for k, v in BDM_SCHEMA.items() if k != "volume_id"},
    "volume_id": properties.Schema(
        properties.Schema.STRING,
        "Id or name of the volume to attach.",
        constraints=[constraints.CustomConstraint("cinder.volume")],
    ),
    "boot_index": properties.Schema(properties.Schema.INTEGER, "Boot order (0 is the boot disk)."),
    "device_type": properties.Schema(
        properties.Schema.STRING,
        "disk or cdrom.",
        constraints=[constraints.AllowedValues(["disk", "cdrom"])],
    ),
    "disk_bus": properties.Schema(properties.Schema.STRING, "The bus of the device (virtio...)."),
    "image": properties.Schema(
        properties.Schema.STRING,
        "Name or id of an image to boot from (the server's image when it has no image).",
        constraints=[constraints.CustomConstraint("glance.image")],
    ),
    "image_id": hidden(
        properties.Schema(
            properties.Schema.STRING, constraints=[constraints.CustomConstraint("glance.image")]
        ),
        "image",
    ),
}

#: The values of ``user_data_format``.
FORMATS = ("HEAT_CFNTOOLS", "RAW", "SOFTWARE_CONFIG")
#: The values of ``software_config_transport``.
TRANSPORTS = ("POLL_SERVER_CFN", "POLL_SERVER_HEAT", "POLL_TEMP_URL", "ZAQAR_MESSAGE")
