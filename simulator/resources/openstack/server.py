"""``OS::Nova::Server`` on the fake compute service.

Create boots the server (BUILD -> ACTIVE, polled), then attaches the volumes
of ``block_device_mapping`` / ``block_device_mapping_v2``. Updates: ``name``
and ``metadata`` change in place, ``flavor`` resizes (and confirms the
resize), ``image`` rebuilds, unless their update policy is REPLACE; a
``user_data`` change replaces the server unless ``user_data_update_policy`` is
IGNORE; ``networks`` attaches and detaches interfaces as Heat does (see
:mod:`.server_networks`); the policies themselves change in place; any other
change replaces the server.
Suspend/resume, stack snapshots (an image of the server; a restore rebuilds
the server from that image, as Heat's does) and the ``Snapshot`` deletion
policy (an image is kept, the server is deleted) are supported.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from sdk import attributes, constraints, exception, properties, support
from simulator.resources.openstack import neutron_order
from simulator.resources.openstack._base import (
    SINCE,
    Translated,
    gone,
    hidden,
    neutron_id,
    prop_path,
    status_done,
)
from simulator.resources.openstack.server_attributes import ServerAttributes
from simulator.resources.openstack.server_networks import NetworkUpdates
from simulator.resources.openstack.server_schema import (
    BDM_SCHEMA,
    BDM_V2_SCHEMA,
    FORMATS,
    NETWORK_SCHEMA,
    TRANSPORTS,
)

__all__ = ["Server"]

_UUID = re.compile(
    r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}"
)


class Server(
    ServerAttributes, NetworkUpdates, Translated
):  # plugsim: ignore[PS301] - see the package
    """``OS::Nova::Server``: a compute instance.

    ``get_resource`` gives the server id. ``user_data`` is handed to the
    server as given, except that with ``user_data_format`` ``RAW`` or
    ``SOFTWARE_CONFIG`` an id of a stored software config (``get_resource`` of
    an ``OS::Heat::SoftwareConfig`` or ``MultipartMime``) stands for the config's
    text, as in Heat.
    """

    implicit_requirements = classmethod(neutron_order.server)

    #: The property map ``plugsim lint`` creates this type with (default-world entities).
    lint_properties: ClassVar[dict[str, Any]] = {"image": "cirros", "flavor": "m1.tiny"}
    support_status = support.SupportStatus(version=SINCE)
    default_client_name = "compute"
    entity = "servers"
    ignored = ("admin_user",)
    item_translations: ClassVar[dict[str, dict[str, str]]] = {
        "networks": {"uuid": "network"},
        "block_device_mapping_v2": {"image_id": "image"},
    }

    properties_schema = {
        "name": properties.Schema(
            properties.Schema.STRING,
            "Server name (default: a name derived from the stack and resource).",
            update_allowed=True,
        ),
        "image": properties.Schema(
            properties.Schema.STRING,
            "Name or id of the image to boot; changing it rebuilds the server.",
            update_allowed=True,
            constraints=[constraints.CustomConstraint("glance.image")],
        ),
        "flavor": properties.Schema(
            properties.Schema.STRING,
            "Name or id of the flavor; changing it resizes the server.",
            required=True,
            update_allowed=True,
            constraints=[constraints.CustomConstraint("nova.flavor")],
        ),
        "key_name": properties.Schema(
            properties.Schema.STRING,
            "Name of the keypair to inject.",
            constraints=[constraints.CustomConstraint("nova.keypair")],
        ),
        "networks": properties.Schema(
            properties.Schema.LIST,
            "Networks to plug into: each entry gives a network (with an optional fixed_ip) "
            "or a port; changes attach and detach interfaces, keeping the ones still described.",
            schema=NETWORK_SCHEMA,
            update_allowed=True,
        ),
        "security_groups": properties.Schema(
            properties.Schema.LIST, "Names of the security groups of the server.", default=[]
        ),
        "user_data": properties.Schema(
            properties.Schema.STRING,
            "Data handed to the server at boot; a change replaces the server unless "
            "user_data_update_policy is IGNORE.",
            default="",
            update_allowed=True,
        ),
        "user_data_format": properties.Schema(
            properties.Schema.STRING,
            "How user_data is meant to be read (kept verbatim either way).",
            default="HEAT_CFNTOOLS",
            constraints=[constraints.AllowedValues(list(FORMATS))],
        ),
        "metadata": properties.Schema(
            properties.Schema.MAP,
            "Key/value metadata of the server; changes in place.",
            default={},
            update_allowed=True,
        ),
        "block_device_mapping": properties.Schema(
            properties.Schema.LIST,
            "Volumes to attach to the server.",
            schema=BDM_SCHEMA,
        ),
        "block_device_mapping_v2": properties.Schema(
            properties.Schema.LIST,
            "Volumes to attach to the server (v2 format; entries without a volume_id are ignored).",
            schema=BDM_V2_SCHEMA,
        ),
        "config_drive": properties.Schema(
            properties.Schema.BOOLEAN, "Ask for a configuration drive.", default=False
        ),
        "availability_zone": properties.Schema(
            properties.Schema.STRING, "Availability zone of the server."
        ),
        # Accepted as Heat 27 accepts them; the fake compute keeps or ignores them (a change
        # replaces the server: in place, nothing the fake cloud shows would change).
        "admin_pass": properties.Schema(
            properties.Schema.STRING,
            "The administrator password of the server.",
        ),
        "admin_user": hidden(properties.Schema(properties.Schema.STRING, ""), "the image's user"),
        "software_config_transport": properties.Schema(
            properties.Schema.STRING,
            "How the server's config agent receives software config metadata.",
            default="POLL_SERVER_CFN",
            constraints=[constraints.AllowedValues(list(TRANSPORTS))],
        ),
        "deployment_swift_data": properties.Schema(
            properties.Schema.MAP, "Swift container and object for POLL_TEMP_URL.", default={}
        ),
        "flavor_update_policy": properties.Schema(  # plugsim: ignore[PS153] - for later changes
            properties.Schema.STRING,
            "How a flavor change is applied.",
            default="RESIZE",
            update_allowed=True,
            constraints=[constraints.AllowedValues(["RESIZE", "REPLACE"])],
        ),
        "image_update_policy": properties.Schema(  # plugsim: ignore[PS153] - for later changes
            properties.Schema.STRING,
            "How an image change is applied.",
            default="REBUILD",
            update_allowed=True,
            constraints=[
                constraints.AllowedValues(["REBUILD_PRESERVE_EPHEMERAL", "REPLACE", "REBUILD"])
            ],
        ),
        "user_data_update_policy": properties.Schema(  # plugsim: ignore[PS153] - for later changes
            properties.Schema.STRING,
            "How a user_data change is applied.",
            default="REPLACE",
            update_allowed=True,
            constraints=[constraints.AllowedValues(["REPLACE", "IGNORE"])],
        ),
        "scheduler_hints": properties.Schema(
            properties.Schema.MAP, "Hints for the compute scheduler."
        ),
        "personality": properties.Schema(
            properties.Schema.MAP,
            "Files to inject: {path: contents}.",
            default={},
            support_status=support.SupportStatus(
                status=support.DEPRECATED,
                version="12.0.0",
                message="Nova API 2.57 removed personality; use user_data.",
            ),
        ),
        "diskConfig": properties.Schema(
            properties.Schema.STRING,
            "How the disk is partitioned.",
            constraints=[constraints.AllowedValues(["AUTO", "MANUAL"])],
        ),
        "reservation_id": properties.Schema(
            properties.Schema.STRING,
            "A reservation id for the boot request (accepted; the fake compute keeps none).",
        ),
        "tags": properties.Schema(properties.Schema.LIST, "Server tags."),
    }
    attributes_schema = {
        "name": attributes.Schema("Name of the server.", type=attributes.Schema.STRING),
        "first_address": attributes.Schema(
            "The first fixed IPv4 address of the server.", type=attributes.Schema.STRING
        ),
        "addresses": attributes.Schema(
            "Addresses by network name, as nova shows them.", type=attributes.Schema.MAP
        ),
        "networks": attributes.Schema(
            "IP addresses by network name and by network id.", type=attributes.Schema.MAP
        ),
        "instance_name": attributes.Schema(
            "The server's name in the compute service.", type=attributes.Schema.STRING
        ),
    }

    # --- helpers -------------------------------------------------------------------

    def _server_name(self) -> str:
        return self.properties["name"] or self.physical_resource_name()

    def _volumes(self) -> list[dict[str, Any]]:
        entries = [*(self.properties["block_device_mapping"] or [])]
        entries += [e for e in self.properties["block_device_mapping_v2"] or [] if e["volume_id"]]
        return entries

    def _mapped_image(self) -> str | None:
        """The image of the first ``block_device_mapping_v2`` entry that names one."""
        entries = [e for e in self.properties["block_device_mapping_v2"] or [] if e["image"]]
        entries.sort(key=lambda e: e["boot_index"] if e["boot_index"] is not None else 1 << 30)
        return entries[0]["image"] if entries else None

    def _boot_image(self) -> str:
        image = self.properties["image"] or self._mapped_image()
        if image:
            return image
        cinder = self.client("block_storage")
        for entry in self._volumes():
            meta = cinder.volumes.get(entry["volume_id"]).volume_image_metadata or {}
            if meta.get("image_id"):
                return meta["image_id"]
        raise exception.StackValidationFailed(
            error_message="Neither image nor a bootable volume is specified for the server",
            path=prop_path(self, "image"),
        )

    def _nics(self) -> list[dict[str, Any]]:
        neutron = self.client("network")
        nics = []
        for index, entry in enumerate(self.properties["networks"] or []):
            if entry["port"]:
                nics.append({"port": neutron_id(neutron, "port", entry["port"])})
            elif entry["subnet"]:
                nics.append({"port": self._internal_port(neutron, entry)})
            elif entry["network"]:
                nic = {"uuid": neutron_id(neutron, "network", entry["network"])}
                if entry["fixed_ip"]:
                    nic["fixed_ip"] = entry["fixed_ip"]
                nics.append(nic)
            else:
                raise exception.StackValidationFailed(
                    error_message="Each network needs a network or a port",
                    path=prop_path(self, "networks", index),
                )
        return nics

    def _internal_port(self, neutron: Any, entry: Any) -> str:
        """A port on ``entry``'s subnet (with its fixed_ip), made for the server as Heat makes
        one for a ``networks[].subnet``; it is deleted with the server."""
        subnet = neutron.show_subnet(neutron_id(neutron, "subnet", entry["subnet"]))["subnet"]
        network = subnet["network_id"]
        if entry["network"]:
            network = neutron_id(neutron, "network", entry["network"])
        fixed: dict[str, Any] = {"subnet_id": subnet["id"]}
        if entry["fixed_ip"]:
            fixed["ip_address"] = entry["fixed_ip"]
        body = {"network_id": network, "fixed_ips": [fixed], "name": f"{self.name}-port"}
        port = neutron.create_port({"port": body})["port"]["id"]
        self.data_set("internal_ports", [*self.data().get("internal_ports", []), port])
        return str(port)

    def _delete_internal_ports(self) -> None:
        neutron = self.client("network")
        for port in list(self.data().get("internal_ports", [])):
            try:
                neutron.delete_port(port)
            except Exception as ex:  # noqa: BLE001 - gone already is fine
                self.client_plugin("network").ignore_not_found(ex)
        self.data_set("internal_ports", [])

    def validate(self) -> None:
        """Check the properties, and that there is something to boot."""
        super().validate()
        for index, entry in enumerate(self.properties["networks"] or []):
            if not (entry["network"] or entry["port"] or entry["subnet"]):
                raise exception.StackValidationFailed(
                    error_message=(
                        'One of the properties "network", "port" or "subnet" should be set '
                        f'for each network of server "{self.name}"'
                    ),
                    path=prop_path(self, "networks", index),
                )
        if not self.properties["image"] and not self._volumes() and not self._mapped_image():
            raise exception.StackValidationFailed(
                error_message="Neither image nor a bootable volume is specified for the server",
                path=prop_path(self, "image"),
            )

    # --- create -----------------------------------------------------------------------

    def _user_data(self) -> Any:
        """The user_data the server boots with: a software config's id stands for its text."""
        text = self.properties["user_data"]
        if self.properties["user_data_format"] not in ("RAW", "SOFTWARE_CONFIG"):
            return text
        if not isinstance(text, str) or not _UUID.fullmatch(text.strip()):
            return text
        try:
            stored = self.client("entity").entities.get(text.strip())
        except Exception:  # noqa: BLE001 - not a config id: the text is the user_data
            return text
        if getattr(stored, "kind", None) != "software_config":
            return text
        config = getattr(stored, "config", text)
        return config if isinstance(config, str) else text

    def handle_create(self) -> dict[str, Any]:
        """Boot the server; the token tracks the volumes still to attach."""
        options: dict[str, Any] = {
            "networks": self._nics(),
            "metadata": {str(k): str(v) for k, v in (self.properties["metadata"] or {}).items()},
            "user_data": self._user_data() or None,
            "config_drive": bool(self.properties["config_drive"]),
        }
        if self.properties["key_name"]:
            options["key_name"] = self.properties["key_name"]
        if self.properties["security_groups"]:
            options["security_groups"] = list(self.properties["security_groups"])
        if self.properties["availability_zone"]:
            options["availability_zone"] = self.properties["availability_zone"]
        image = self._boot_image()
        server = self.client().servers.create(
            self._server_name(), image, self.properties["flavor"], **options
        )
        self.resource_id_set(server.id)
        return {"server": server.id, "to_attach": self._volumes(), "attaching": []}

    def check_create_complete(self, token: dict[str, Any]) -> bool:
        """Poll the boot, then attach the volumes one by one."""
        server = self.client().servers.get(token["server"])
        if not status_done(
            f"Server {self.name}",
            server.status,
            ["ACTIVE"],
            pending=["BUILD"],
            fault=_fault(server),
        ):
            return False
        cinder = self.client("block_storage")
        for volume_id in list(token["attaching"]):
            volume = cinder.volumes.get(volume_id)
            if not status_done(
                f"Volume {volume_id}", volume.status, ["in-use"], pending=["attaching", "available"]
            ):
                return False
            token["attaching"].remove(volume_id)
        if token["to_attach"]:
            entry = token["to_attach"].pop(0)
            volume_id = cinder.volumes.get(entry["volume_id"]).id
            device = entry["device_name"]
            if device and not device.startswith("/dev/"):
                device = f"/dev/{device}"
            self.client().volumes.create_server_volume(server.id, volume_id, device)
            if entry["delete_on_termination"]:
                self.data_set("delete_on_termination", [*self._owned_volumes(), volume_id])
            token["attaching"].append(volume_id)
            return False
        return True

    def _owned_volumes(self) -> list[str]:
        return list(self.data().get("delete_on_termination", []))

    # --- update ------------------------------------------------------------------------

    def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> dict[str, Any]:
        """Rename and set metadata now; queue a resize and/or a rebuild.

        As in Heat, the update policies decide: a flavor change with
        ``flavor_update_policy`` REPLACE, an image change with
        ``image_update_policy`` REPLACE and a user_data change with
        ``user_data_update_policy`` REPLACE (the default) replace the server;
        IGNORE keeps the old user_data. The policy given with the change wins.
        """
        diff = dict(prop_diff or {})

        def policy(name: str) -> Any:
            return diff[name] if name in diff else self.properties[name]

        if (
            ("flavor" in diff and policy("flavor_update_policy") == "REPLACE")
            or ("image" in diff and policy("image_update_policy") == "REPLACE")
            or ("user_data" in diff and policy("user_data_update_policy") == "REPLACE")
        ):
            raise exception.UpdateReplace(self.name)
        servers = self.client().servers
        if "name" in diff:
            servers.update(self.resource_id, name=diff["name"] or self.physical_resource_name())
        if "metadata" in diff:
            meta = {str(k): str(v) for k, v in (diff["metadata"] or {}).items()}
            servers.set_meta(self.resource_id, meta)
        if "networks" in diff:
            self._update_networks(diff["networks"])
        steps = []
        if diff.get("flavor"):
            steps.append(["resize", diff["flavor"]])
        if diff.get("image"):
            steps.append(["rebuild", diff["image"]])
        return {"steps": steps, "current": None}

    def check_update_complete(self, token: dict[str, Any]) -> bool:
        """Run the queued resize (with its confirmation) and rebuild, one after another."""
        servers = self.client().servers
        server = servers.get(self.resource_id)
        current = token["current"]
        if current == "resize":
            if server.status == "VERIFY_RESIZE":
                servers.confirm_resize(server.id)
                token["current"] = "confirm"
                return False
            status_done(
                "Server resize", server.status, [], pending=["RESIZE"], fault=_fault(server)
            )
            return False
        if current in ("confirm", "rebuild"):
            pending = ["VERIFY_RESIZE", "REBUILD"]
            if not status_done(
                f"Server {current}",
                server.status,
                ["ACTIVE"],
                pending=pending,
                fault=_fault(server),
            ):
                return False
            token["current"] = None
        if not token["steps"]:
            return True
        step, value = token["steps"].pop(0)
        if step == "resize":
            servers.resize(server.id, value)
        else:
            servers.rebuild(server.id, value)
        token["current"] = step
        return False

    # --- suspend / resume / snapshot -----------------------------------------------------

    def handle_suspend(self) -> str:
        """Suspend the server."""
        if self.resource_id is None:
            raise exception.NotFound(f"Cannot suspend {self.name}, the server was not created")
        self.client().servers.suspend(self.resource_id)
        return self.resource_id

    def check_suspend_complete(self, server_id: str) -> bool:
        """Done when the server is SUSPENDED."""
        server = self.client().servers.get(server_id)
        return status_done("Server suspend", server.status, ["SUSPENDED"], pending=["ACTIVE"])

    def handle_resume(self) -> str:
        """Resume the server."""
        if self.resource_id is None:
            raise exception.NotFound(f"Cannot resume {self.name}, the server was not created")
        self.client().servers.resume(self.resource_id)
        return self.resource_id

    def check_resume_complete(self, server_id: str) -> bool:
        """Done when the server is ACTIVE again."""
        server = self.client().servers.get(server_id)
        return status_done("Server resume", server.status, ["ACTIVE"], pending=["SUSPENDED"])

    def handle_snapshot(self) -> str:
        """Make an image of the server (kept in the resource data as ``snapshot_image_id``)."""
        image_id = self.client().servers.create_image(
            self.resource_id, f"{self._server_name()}-snapshot"
        )
        self.data_set("snapshot_image_id", image_id)
        return image_id

    def check_snapshot_complete(self, image_id: str) -> bool:
        """Done when the image is active."""
        image = self.client().images.get(image_id)
        return status_done(
            "Server snapshot", image.status, ["active"], pending=["queued", "saving"]
        )

    def handle_delete_snapshot(self, snapshot: Any) -> None:
        """Delete the image a stack snapshot made."""
        data = (snapshot or {}).get("resource_data", snapshot) or {}
        image_id = data.get("snapshot_image_id") if isinstance(data, dict) else None
        if image_id:
            try:
                self.client().images.delete(image_id)
            except Exception as ex:
                self.client_plugin().ignore_not_found(ex)

    def handle_restore(self, defn: Any, restore_data: Any) -> Any:
        """Restore from a stack snapshot: the snapshot's definition booting the image it made.

        As in Heat, the image the snapshot kept (``snapshot_image_id``) becomes ``image``, so
        the restore rebuilds the server from it (replaces it under ``image_update_policy``
        REPLACE); a snapshot entry without one restores the definition as it is.
        """
        data = (restore_data or {}).get("resource_data") or {}
        image_id = data.get("snapshot_image_id") if isinstance(data, dict) else None
        if not image_id:
            return defn
        props = {k: v for k, v in defn.properties.items() if v is not None}
        props["image"] = image_id
        return defn.freeze(properties=props)

    # --- delete --------------------------------------------------------------------------

    def handle_delete(self) -> dict[str, Any] | None:
        """Start deleting the server."""
        if self.resource_id is None:
            self._delete_internal_ports()  # made before a boot that failed
            return None
        try:
            self.client().servers.delete(self.resource_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
        return {"server": self.resource_id, "image": None, "volumes": self._owned_volumes()}

    def handle_snapshot_delete(self, state: Any = None) -> dict[str, Any] | None:
        """Deletion policy Snapshot: image the server (if it was created), then delete it."""
        if self.resource_id is None:
            return None
        token = {"server": self.resource_id, "image": None, "volumes": self._owned_volumes()}
        if str(state).endswith("COMPLETE"):
            token["image"] = self.client().servers.create_image(
                self.resource_id, f"{self._server_name()}-final-snapshot"
            )
            self.data_set("snapshot_image_id", token["image"])
            token["deleting"] = False
            return token
        return self.handle_delete()

    def check_delete_complete(self, token: dict[str, Any] | None) -> bool:
        """Wait for the final image (if any), the server to go, then owned volumes to go."""
        if not token:
            return True
        compute = self.client()
        if token.get("deleting") is False:
            image = compute.images.get(token["image"])
            if not status_done("Final snapshot", image.status, ["active"], pending=["saving"]):
                return False
            compute.servers.delete(token["server"])
            token["deleting"] = True
            return False
        if not gone(self, "compute", lambda: compute.servers.get(token["server"])):
            return False
        self._delete_internal_ports()
        cinder = self.client("block_storage")
        for volume_id in list(token["volumes"]):
            try:
                volume = cinder.volumes.get(volume_id)
                if volume.status in ("available", "error"):
                    cinder.volumes.delete(volume_id)
                return False
            except Exception as ex:
                self.client_plugin("block_storage").ignore_not_found(ex)
                token["volumes"].remove(volume_id)
        return True


def _fault(server: Any) -> Any:
    return server.to_dict().get("fault")
