"""The compute service (nova-like): flavors, images, keypairs, servers and host aggregates
(:mod:`fake_clouds.aggregate_ops`).

Server lifecycle (durations from the latency model, keys ``compute.server.<phase>``):

=====================  ==========================================  =============
operation              status while in progress                     final status
=====================  ==========================================  =============
create                 BUILD                                        ACTIVE
suspend / resume       ACTIVE (task_state suspending) / SUSPENDED   SUSPENDED / ACTIVE
stop / start           ACTIVE / SHUTOFF (task_state powering-*)     SHUTOFF / ACTIVE
reboot                 REBOOT or HARD_REBOOT                        ACTIVE
resize                 RESIZE                                       VERIFY_RESIZE
confirm_resize         -                                            ACTIVE
revert_resize          REVERT_RESIZE                                ACTIVE
rebuild                REBUILD                                      ACTIVE
delete                 current status (task_state deleting)         gone
=====================  ==========================================  =============

An image snapshot (``servers.create_image``) is ``saving`` then ``active``.

**Config agent.** A server that boots runs a simulated config agent once it
is ACTIVE, a few virtual seconds later (derived from the server id, so it
costs no random draw). The agent sends one signal per command of the
server's ``user_data`` that names an orchestration signal endpoint
(``AGENT_ENDPOINT_PREFIX`` + handle id; :meth:`ComputeService.agent_signals`),
with the payload written next to it; how commands and payloads are read is
:mod:`fake_clouds.agent`'s business (:func:`~fake_clouds.agent.agent_plan`).
Without a payload the signal is SUCCESS; without an ``id`` it is the server's
id (``<server id>.<n>`` for the n-th signal of that server to that endpoint).
A payload that was ignored makes a bare SUCCESS whose reason says why, and the
problem is kept in the agent's state
(``agent["servers"][id]["signals"][n]["problem"]``). The agent also runs the
software deployments registered for the server (``servers.deploy``;
:meth:`ComputeService.deployment_status`). Server metadata
``plugsim_agent: fail`` makes every report FAILURE and every deployment fail;
``plugsim_agent: silent`` makes the agent never report. A deployment's
``inputs`` ``plugsim_status_code`` (non-zero: failed), ``plugsim_stderr`` and
``plugsim_outputs`` (a map) set its outcome. A server deleted before its
agent ran reports nothing.
Quotas (defaults): ``instances`` 10, ``cores`` 20, ``ram`` 51200 MB,
``key_pairs`` 100; -1 means unlimited. Pre-seeded flavors/images/keypair are
not counted.
"""

from __future__ import annotations

import copy
from typing import Any

from fake_clouds import default_world
from fake_clouds.agent import AGENT_ENDPOINT_PREFIX as AGENT_ENDPOINT_PREFIX
from fake_clouds.agent import agent_plan as agent_plan
from fake_clouds.aggregate_ops import AggregateOperations
from fake_clouds.clients.compute import ComputeClient
from fake_clouds.compute_agent import ConfigAgentOperations
from fake_clouds.compute_interfaces import InterfaceOperations
from fake_clouds.core.inventory import ServerView
from fake_clouds.core.registry import register_service
from fake_clouds.core.service import Service, operation
from fake_clouds.daemons import NOVA_DAEMONS, DaemonOperations
from fake_clouds.flavor_ops import FlavorOperations
from fake_clouds.image_ops import ImageOperations
from fake_clouds.keypair_ops import KeypairOperations, keypair_attrs
from fake_clouds.project_quotas import ProjectQuotas
from sdk import exception

TASK = "OS-EXT-STS:task_state"

_SERVER_ARGS = (
    "key_name",
    "networks",
    "nics",
    "security_groups",
    "user_data",
    "metadata",
    "availability_zone",
    "config_drive",
    "block_device_mapping_v2",
    "description",
)


def _bad(message: str) -> exception.BadRequest:
    return exception.BadRequest(message, body={"badRequest": {"code": 400, "message": message}})


@register_service
class ComputeService(
    ConfigAgentOperations,
    InterfaceOperations,
    AggregateOperations,
    FlavorOperations,
    ImageOperations,
    KeypairOperations,
    DaemonOperations,
    ProjectQuotas,
    Service,
):
    """Flavors, images, keypairs and servers with nova-like status transitions."""

    name = "compute"
    kinds = {  # noqa: RUF012
        "aggregate": "ERROR",
        "flavor": "ERROR",
        "image": "error",
        "keypair": "ERROR",
        "server": "ERROR",
    }
    transitional = {"image": "saving", "server": "BUILD"}
    # nova's [quota] options that its quota-set API still takes at the latest microversion
    # (nova/conf/quota.py); fixed_ips, floating_ips and the security-group proxies went in 2.36
    default_quotas = {  # noqa: RUF012
        "instances": 10,
        "cores": 20,
        "ram": 51200,
        "key_pairs": 100,
        "metadata_items": 128,
        "server_groups": 10,
        "server_group_members": 10,
    }

    client_class = ComputeClient
    daemon_hosts = NOVA_DAEMONS

    def __init__(self, world: Any) -> None:
        super().__init__(world)
        #: the config agent: per server, when it runs and what it reports to
        self.agent: dict[str, Any] = {"servers": {}}

    def seed_defaults(self, world: Any = None) -> None:
        """Add the flavors, images and keypairs of *world* (default: the default world)."""
        for seed in default_world.seeds(self.name, world):
            attrs = (
                keypair_attrs(seed.attrs["public_key"]) if seed.kind == "keypair" else seed.attrs
            )
            self._create(
                seed.kind, seed.name, seed.status, attrs, entity_id=seed.id, preseeded=True
            )

    def find_server(self, address: str) -> ServerView | None:
        """Return the live server whose id is *address*, else the first with an attribute equal
        to it (an IP, a name); this is no call: no latency, no fault, no trace."""
        live = self._live("server")
        found = [s for s in live if s.id == address] or [
            s for s in live if _contains(s.view(), address)
        ]
        if not found and "network" in self.world.service_names():  # a floating IP's server
            from fake_clouds.compute_addresses import nova_addresses

            found = [s for s in live if _contains(nova_addresses(self.world, s.view()), address)]
        if not found:
            return None
        server = found[0]
        fault = (server.attrs.get("fault") or {}).get("message") or ""
        return ServerView(server.id, server.status, server.updated_at, str(fault))

    # --- lookups shared by operations -----------------------------------------------

    def _by_id_or_name(self, kind: str, ref: Any, label: str) -> Any:
        if not isinstance(ref, str) or not ref:
            raise _bad(f"Invalid {label} reference {ref!r}")
        self._refresh(kind)
        store = self._store[kind]
        if ref in store and not store[ref].deleted:
            return store[ref]
        named = [e for e in store.values() if e.name == ref and not e.deleted]
        if len(named) == 1:
            return named[0]
        if len(named) > 1:
            raise exception.Conflict(f"Multiple {label}s are named {ref!r}; use an id")
        raise _bad(f"{label.capitalize()} {ref} could not be found.")

    # --- images (flavors, keypairs: fake_clouds.flavor_ops, keypair_ops) ---------------------------

    @operation("images.list", kind="image")
    def list_images(self) -> list[dict[str, Any]]:
        """Return every image."""
        return [e.view() for e in self._list("image")]

    @operation("images.get", kind="image", id_arg="image_id")
    def get_image(self, image_id: str) -> dict[str, Any]:
        """Return one image by id."""
        return self._get("image", image_id, label="Image").view()

    @operation("images.delete", kind="image", id_arg="image_id")
    def delete_image(self, image_id: str) -> None:
        """Delete an image (at once)."""
        ent = self._get("image", image_id, label="Image")
        self._start(ent, "delete", None, None)

    # --- servers -------------------------------------------------------------------

    @operation("servers.create", kind="server")
    def create_server(self, name: str, image: str, flavor: str, **options: Any) -> dict[str, Any]:
        """Boot a server: BUILD now, ACTIVE after a sampled boot time."""
        unknown = sorted(set(options) - set(_SERVER_ARGS))
        if unknown:
            raise _bad(f"Unknown server argument(s): {', '.join(unknown)}")
        if not isinstance(name, str) or not name:
            raise _bad("Server name must be a non-empty string")
        img = self._by_id_or_name("image", image, "image")
        if img.status != "active":
            raise _bad(f"Image {img.id} is not active (status {img.status})")
        flv = self._by_id_or_name("flavor", flavor, "flavor")
        key_name = options.get("key_name")
        if key_name is not None:
            self._by_id_or_name("keypair", key_name, "keypair")
        metadata = options.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise _bad("Server metadata must be a mapping")
        vcpus, ram = flv.attrs["vcpus"], flv.attrs["ram"]
        self._check_quota("instances", self._count("server"))
        used_cores = sum(self._flavor_of(s)["vcpus"] for s in self._live_servers())
        used_ram = sum(self._flavor_of(s)["ram"] for s in self._live_servers())
        self._check_quota("cores", used_cores, vcpus)
        self._check_quota("ram", used_ram, ram)
        groups = options.get("security_groups") or ["default"]
        attrs = {
            "flavor": {"id": flv.id, "original_name": flv.name},
            "image": {"id": img.id},
            "key_name": key_name,
            "metadata": dict(metadata),
            "addresses": {},
            "security_groups": [{"name": self._group_name(g)} for g in groups],
            "user_data": options.get("user_data"),
            "OS-EXT-AZ:availability_zone": options.get("availability_zone") or "nova",
            TASK: "spawning",
            "os-extended-volumes:volumes_attached": [],
            "description": options.get("description"),
            "accessIPv4": "",
            "accessIPv6": "",
        }
        server = self._create("server", name, "BUILD", attrs)
        nets = options.get("networks") or options.get("nics") or []
        if not nets and "network" in self.world.service_names():
            nets = self._only_network()
        if nets and "network" in self.world.service_names():
            network = self.world.service("network")
            server.attrs["addresses"] = network._plug_server(server.id, nets)  # type: ignore[attr-defined]
        bdms = options.get("block_device_mapping_v2")
        if bdms and "block_storage" in self.world.service_names():
            self.world.service("block_storage")._boot_volumes(server, bdms)  # type: ignore[attr-defined]
        if not self.daemon_enabled("nova-compute"):
            attrs = {TASK: None, "fault": {"message": "No valid host was found.", "code": 500}}
            self._start(server, "build", "BUILD", "ERROR", final_attrs=attrs)
        else:
            self._start(server, "build", "BUILD", "ACTIVE", final_attrs={TASK: None})
        self._agent_boot(server, options.get("user_data"), metadata)
        return server.view()

    def _only_network(self) -> list[dict[str, str]]:
        """Nova's choice for a server given no network: the one tenant network, if only one.

        (External networks are not candidates; with none or several, the server
        gets no NIC here, where Nova would refuse several.)
        """
        network = self.world.service("network")
        candidates = [
            n
            for n in network._live("network")
            if not n.attrs.get("router:external")  # type: ignore[attr-defined]
        ]
        return [{"uuid": candidates[0].id}] if len(candidates) == 1 else []

    def _group_name(self, group: str) -> str:
        """A security group given by id is listed by its name, as nova shows a server's groups."""
        if "network" not in self.world.service_names():
            return group
        store = getattr(self.world.service("network"), "_store", {}).get("security_group", {})
        found = store.get(group)
        return str(found.name) if found is not None else group

    def _live_servers(self) -> list[Any]:
        return [s for s in self._live("server") if not s.preseeded]

    def _flavor_of(self, server: Any) -> dict[str, Any]:
        flv = self._store["flavor"].get(server.attrs["flavor"]["id"])
        return flv.attrs if flv is not None else {"vcpus": 0, "ram": 0}

    @operation("servers.get", kind="server", id_arg="server_id")
    def get_server(self, server_id: str) -> dict[str, Any]:
        """Return one server by id."""
        return self._get("server", server_id, label="Instance").view()

    @operation("servers.list", kind="server")
    def list_servers(self, **filters: Any) -> list[dict[str, Any]]:
        """Return servers whose fields equal *filters* (e.g. ``name``, ``status``)."""
        return [e.view() for e in self._list("server", **filters)]

    @operation("servers.update", kind="server", id_arg="server_id")
    def update_server(
        self, server_id: str, name: str | None = None, description: str | None = None
    ) -> dict[str, Any]:
        """Rename a server or change its description."""
        server = self._get("server", server_id, label="Instance")
        if name is not None:
            if not isinstance(name, str) or not name:
                raise _bad("Server name must be a non-empty string")
            server.name = name
        if description is not None:
            self._set(server, description=description)
        server.updated_at = self._now()
        return server.view()

    @operation("servers.set_meta", kind="server", id_arg="server_id")
    def set_server_metadata(self, server_id: str, metadata: dict[str, str]) -> dict[str, Any]:
        """Merge *metadata* into the server's metadata."""
        server = self._get("server", server_id, label="Instance")
        if not isinstance(metadata, dict):
            raise _bad("Server metadata must be a mapping")
        self._set(server, metadata={**server.attrs["metadata"], **metadata})
        return server.view()

    @operation("servers.delete_meta", kind="server", id_arg="server_id")
    def delete_server_metadata(self, server_id: str, keys: list[str]) -> dict[str, Any]:
        """Remove the metadata *keys* from the server (keys it lacks are ignored, as novaclient's)."""
        server = self._get("server", server_id, label="Instance")
        if not isinstance(keys, list | tuple) or not all(isinstance(k, str) for k in keys):
            raise _bad("Metadata keys must be a list of strings")
        kept = {k: v for k, v in server.attrs["metadata"].items() if k not in keys}
        self._set(server, metadata=kept)
        return server.view()

    @operation("servers.delete", kind="server", id_arg="server_id")
    def delete_server(self, server_id: str) -> None:
        """Start deleting a server; it disappears after a sampled time."""
        server = self._get("server", server_id, label="Instance")
        if server.attrs.get(TASK) == "deleting":
            return
        if "network" in self.world.service_names():
            self.world.service("network")._unplug_server(server.id)  # type: ignore[attr-defined]
        if "block_storage" in self.world.service_names():
            self.world.service("block_storage")._server_gone(server.id)  # type: ignore[attr-defined]
        self._set(server, **{TASK: "deleting"})
        self._start(server, "delete", server.status, None)
        record = self.agent["servers"].get(server.id)
        if record is not None and record.get("stopped_at") is None:
            record["stopped_at"] = self._now()

    def _action(
        self,
        server_id: str,
        allowed: tuple[str, ...],
        action: str,
        phase: str,
        transitional: str,
        final: str,
        task: str | None = None,
        final_attrs: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        server = self._get("server", server_id, label="Instance")
        self._require_status(server, allowed, action)
        if task is not None:
            self._set(server, **{TASK: task})
        self._start(
            server, phase, transitional, final, final_attrs={TASK: None, **(final_attrs or {})}
        )
        return server.view()

    @operation("servers.suspend", kind="server", id_arg="server_id")
    def suspend_server(self, server_id: str) -> dict[str, Any]:
        """ACTIVE -> SUSPENDED."""
        return self._action(
            server_id, ("ACTIVE",), "suspend", "suspend", "ACTIVE", "SUSPENDED", "suspending"
        )

    @operation("servers.resume", kind="server", id_arg="server_id")
    def resume_server(self, server_id: str) -> dict[str, Any]:
        """SUSPENDED -> ACTIVE."""
        return self._action(
            server_id, ("SUSPENDED",), "resume", "resume", "SUSPENDED", "ACTIVE", "resuming"
        )

    @operation("servers.stop", kind="server", id_arg="server_id")
    def stop_server(self, server_id: str) -> dict[str, Any]:
        """ACTIVE -> SHUTOFF."""
        return self._action(
            server_id, ("ACTIVE", "ERROR"), "stop", "stop", "ACTIVE", "SHUTOFF", "powering-off"
        )

    @operation("servers.start", kind="server", id_arg="server_id")
    def start_server(self, server_id: str) -> dict[str, Any]:
        """SHUTOFF -> ACTIVE."""
        return self._action(
            server_id, ("SHUTOFF",), "start", "start", "SHUTOFF", "ACTIVE", "powering-on"
        )

    @operation("servers.reboot", kind="server", id_arg="server_id")
    def reboot_server(self, server_id: str, reboot_type: str = "SOFT") -> dict[str, Any]:
        """ACTIVE -> REBOOT (or HARD_REBOOT) -> ACTIVE."""
        if reboot_type not in ("SOFT", "HARD"):
            raise _bad(f"reboot_type must be SOFT or HARD, got {reboot_type!r}")
        status = "REBOOT" if reboot_type == "SOFT" else "HARD_REBOOT"
        allowed = ("ACTIVE",) if reboot_type == "SOFT" else ("ACTIVE", "SHUTOFF", "ERROR")
        return self._action(server_id, allowed, "reboot", "reboot", status, "ACTIVE")

    @operation("servers.resize", kind="server", id_arg="server_id")
    def resize_server(self, server_id: str, flavor: str) -> dict[str, Any]:
        """ACTIVE/SHUTOFF -> RESIZE -> VERIFY_RESIZE with the new flavor."""
        server = self._get("server", server_id, label="Instance")
        flv = self._by_id_or_name("flavor", flavor, "flavor")
        if flv.id == server.attrs["flavor"]["id"]:
            raise _bad("Resize requires a flavor change")
        old = dict(server.attrs["flavor"])
        new = {"id": flv.id, "original_name": flv.name}
        view = self._action(
            server_id,
            ("ACTIVE", "SHUTOFF"),
            "resize",
            "resize",
            "RESIZE",
            "VERIFY_RESIZE",
            final_attrs={"flavor": new, "previous_flavor": old},
        )
        return view

    @operation("servers.confirm_resize", kind="server", id_arg="server_id")
    def confirm_resize(self, server_id: str) -> dict[str, Any]:
        """VERIFY_RESIZE -> ACTIVE keeping the new flavor."""
        server = self._get("server", server_id, label="Instance")
        self._require_status(server, ("VERIFY_RESIZE",), "confirmResize")
        self._set(server, previous_flavor=None)
        self._start(server, "confirm_resize", None, "ACTIVE")
        return server.view()

    @operation("servers.revert_resize", kind="server", id_arg="server_id")
    def revert_resize(self, server_id: str) -> dict[str, Any]:
        """VERIFY_RESIZE -> REVERT_RESIZE -> ACTIVE with the old flavor."""
        server = self._get("server", server_id, label="Instance")
        self._require_status(server, ("VERIFY_RESIZE",), "revertResize")
        old = server.attrs.get("previous_flavor")
        self._start(
            server,
            "revert_resize",
            "REVERT_RESIZE",
            "ACTIVE",
            final_attrs={"flavor": old, "previous_flavor": None},
        )
        return server.view()

    @operation("servers.rebuild", kind="server", id_arg="server_id")
    def rebuild_server(self, server_id: str, image: str, name: str | None = None) -> dict[str, Any]:
        """ACTIVE/SHUTOFF/ERROR -> REBUILD -> ACTIVE with *image*."""
        img = self._by_id_or_name("image", image, "image")
        view = self._action(
            server_id,
            ("ACTIVE", "SHUTOFF", "ERROR"),
            "rebuild",
            "rebuild",
            "REBUILD",
            "ACTIVE",
            "rebuilding",
            final_attrs={"image": {"id": img.id}, "fault": None},
        )
        if name is not None:
            return self.update_server(server_id, name=name)
        return view

    @operation("servers.change_password", kind="server", id_arg="server_id")
    def change_password(self, server_id: str, password: str) -> None:
        """Set an ACTIVE server's administrator password (nova's ``changePassword``).

        Nova never shows the password again, so nothing visible changes.
        """
        server = self._get("server", server_id, label="Instance")
        self._require_status(server, ("ACTIVE",), "changePassword")
        if not isinstance(password, str):
            raise _bad("adminPass must be a string")

    @operation("servers.create_image", kind="image", id_arg="server_id")
    def create_image(
        self, server_id: str, name: str, metadata: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Snapshot a server to a new image: ``saving`` then ``active``."""
        server = self._get("server", server_id, label="Instance")
        self._require_status(server, ("ACTIVE", "SHUTOFF", "SUSPENDED"), "createImage")
        if not isinstance(name, str) or not name:
            raise _bad("Image name must be a non-empty string")
        base = self._store["image"].get(server.attrs["image"]["id"])
        attrs = dict(base.attrs) if base is not None else {}
        attrs.update(
            visibility="private",
            image_type="snapshot",
            instance_uuid=server.id,
            metadata=dict(metadata or {}),
        )
        img = self._create("image", name, "queued", attrs)
        self._start(img, "snapshot", "saving", "active")
        return img.view()

    def to_state(self) -> dict[str, Any]:
        """Return the service's state, the config agent's included."""
        state = super().to_state()
        state["agent"] = copy.deepcopy(self.agent)
        return state

    def load_state(self, state: dict[str, Any]) -> None:
        """Replace the service's state (and the agent's) with *state*."""
        super().load_state(state)
        self.agent = copy.deepcopy(state.get("agent") or {"servers": {}})


def _contains(value: Any, needle: str) -> bool:
    if isinstance(value, str):
        return value == needle
    if isinstance(value, dict):
        return any(_contains(v, needle) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_contains(v, needle) for v in value)
    return False
