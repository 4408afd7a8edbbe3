"""DigitalOcean API v2 (``https://api.digitalocean.com/v2``): droplets and actions.

See :mod:`fake_clouds.rest.do_base` for how DigitalOcean objects map onto the
fake cloud and :mod:`fake_clouds.rest.do_resources` for the other endpoints.
"""

from __future__ import annotations

import re
from typing import Any

from fake_clouds.rest.common import int_id, parse_int
from fake_clouds.rest.dialect import Reply, Request, route
from fake_clouds.rest.do_base import SIZE_KEY
from fake_clouds.rest.do_resources import DOResources

_HOSTNAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.\-]{0,253}[A-Za-z0-9])?$")

#: DigitalOcean action type -> (compute operation, statuses that count as done).
ACTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "power_off": ("servers.stop", ("SHUTOFF",)),
    "shutdown": ("servers.stop", ("SHUTOFF",)),
    "power_on": ("servers.start", ("ACTIVE",)),
    "reboot": ("servers.reboot", ("ACTIVE",)),
    "power_cycle": ("servers.reboot", ("ACTIVE",)),
    "resize": ("servers.resize", ("VERIFY_RESIZE", "ACTIVE")),
    "rebuild": ("servers.rebuild", ("ACTIVE",)),
    "snapshot": ("servers.create_image", ("active",)),
    "rename": ("servers.update", ()),
}

_SERVER = ("compute", "servers.get", "server")


def _bool(dialect: Any, body: dict[str, Any], name: str) -> None:
    if name in body and not isinstance(body[name], bool):
        raise dialect.invalid(f"{name} must be a boolean, got {body[name]!r}", name)


class DigitalOcean(DOResources):
    """The DigitalOcean v2 dialect."""

    name = "digitalocean"
    default_base_url = "https://api.digitalocean.com/v2"
    default_token = "plugsim-digitalocean-token"

    # --- droplets --------------------------------------------------------------------------

    @route("POST", "/droplets", op=("compute", "servers.create", "server"))
    def create_droplets(self, req: Request) -> Reply:
        """``POST /droplets`` with ``name`` (or ``names``, up to 10), region, size, image."""
        body = req.json(self)
        single = "name" in body
        if single == ("names" in body):
            raise self.invalid("Specify exactly one of name or names", "name")
        names = [body["name"]] if single else body["names"]
        if not isinstance(names, list) or not 1 <= len(names) <= 10:
            raise self.invalid("names must be a list of 1 to 10 names", "names")
        for i, name in enumerate(names):
            where = "name" if single else f"names[{i}]"
            if not isinstance(name, str) or not _HOSTNAME.match(name):
                raise self.invalid(
                    f"{where}: only valid hostname characters are allowed "
                    f"(a-z, A-Z, 0-9, . and -), got {name!r}",
                    where,
                )
        for name in ("region", "size", "image"):
            if body.get(name) in (None, ""):
                raise self.invalid(f"{name} is required", name)
        region = self.check_region(body["region"])
        size_slug, flavor = self.resolve_size(body["size"])
        image = self.find_image(body["image"])
        for name in ("backups", "ipv6", "monitoring", "private_networking", "with_droplet_agent"):
            _bool(self, body, name)
        key_name = self._key_name(body.get("ssh_keys"))
        tags = body.get("tags") or []
        if not isinstance(tags, list):
            raise self.invalid("tags must be a list of tag names", "tags")
        for i, tag in enumerate(tags):
            self.check_tag_name(tag, f"tags[{i}]")
        user_data = body.get("user_data")
        if user_data is not None and not isinstance(user_data, str):
            raise self.invalid("user_data must be a string", "user_data")
        nets = self._networks(body.get("vpc_uuid"))
        droplets, actions = [], []
        for name in names:
            server = self.compute.create_server(
                name,
                image["id"],
                flavor["id"],
                availability_zone=region,
                key_name=key_name,
                user_data=user_data,
                networks=nets,
                metadata={SIZE_KEY: size_slug},
            )
            req.entity_id = server["id"]
            number = int_id(server["id"])
            for tag in tags:
                self.tag_resource(tag, str(number), "droplet")
            action = self.state().start_action(
                self.cloud,
                "create",
                number,
                "droplet",
                region,
                ("compute", "server", server["id"]),
                ("ACTIVE",),
            )
            droplets.append(self.droplet_view(server))
            actions.append(
                {"id": action.id, "rel": "create", "href": f"{self.base_url}/actions/{action.id}"}
            )
        links = {"actions": actions}
        if single:
            return Reply(202, {"droplet": droplets[0], "links": links})
        return Reply(202, {"droplets": droplets, "links": links})

    def _key_name(self, refs: Any) -> str | None:
        if refs is None:
            return None
        if not isinstance(refs, list):
            raise self.invalid("ssh_keys must be a list of key ids or fingerprints", "ssh_keys")
        names = []
        for i, ref in enumerate(refs):
            try:
                names.append(self.find_key(ref)["name"])
            except Exception:
                raise self.invalid(f"ssh_keys[{i}]: no SSH key {ref!r}", f"ssh_keys[{i}]") from None
        return names[0] if names else None

    def _networks(self, vpc_uuid: Any) -> list[dict[str, str]]:
        if "network" not in self.cloud.service_names():
            if vpc_uuid is not None:
                raise self.invalid("VPCs need the network service", "vpc_uuid")
            return []
        nets = []
        public = [n for n in self.network.list_networks() if n.get("router:external")]
        if public:
            nets.append({"uuid": public[0]["id"]})
        if vpc_uuid is not None:
            if not isinstance(vpc_uuid, str) or vpc_uuid not in {n["id"] for n in self.vpcs()}:
                raise self.invalid(f"vpc_uuid: no VPC {vpc_uuid!r}", "vpc_uuid")
            nets.append({"uuid": vpc_uuid})
        return nets

    @route("GET", "/droplets", op=("compute", "servers.list", "server"))
    def list_droplets(self, req: Request) -> Reply:
        """``GET /droplets`` (``tag_name``, ``name``, ``page``, ``per_page``)."""
        servers = [self.settle(s) for s in self.compute.list_servers()]
        tag = req.arg("tag_name")
        name = req.arg("name")
        views = []
        for server in servers:
            if name is not None and server["name"] != name:
                continue
            view = self.droplet_view(server)
            if tag is None or tag in view["tags"]:
                views.append(view)
        return self.page(req, "droplets", views)

    @route("GET", "/droplets/{id}", op=_SERVER)
    def get_droplet(self, req: Request) -> Reply:
        """``GET /droplets/{id}``."""
        server = self.find_droplet(req.params["id"])
        req.entity_id = server["id"]
        return Reply(200, {"droplet": self.droplet_view(server)})

    @route("DELETE", "/droplets/{id}", op=("compute", "servers.delete", "server"))
    def delete_droplet(self, req: Request) -> Reply:
        """``DELETE /droplets/{id}``: the droplet is gone once its deletion is due."""
        server = self.find_droplet(req.params["id"])
        req.entity_id = server["id"]
        self.compute.delete_server(server["id"])
        return Reply(204)

    @route("DELETE", "/droplets", op=("compute", "servers.delete", "server"))
    def delete_tagged(self, req: Request) -> Reply:
        """``DELETE /droplets?tag_name=T``: delete every droplet carrying the tag."""
        tag = req.arg("tag_name")
        if not tag:
            raise self.invalid("tag_name is required to delete droplets by tag", "tag_name")
        for server in self.compute.list_servers():
            if server.get("OS-EXT-STS:task_state") == "deleting":
                continue
            if tag in self.tags_of(int_id(server["id"])):
                self.compute.delete_server(server["id"])
        return Reply(204)

    # --- droplet actions --------------------------------------------------------------------

    def action_op(self, req: Request) -> tuple[str, str, str | None]:
        """The compute operation a droplet action stands for (from the body's ``type``)."""
        try:
            kind = req.json(self).get("type")
        except Exception:
            return _SERVER
        op = ACTIONS.get(kind) if isinstance(kind, str) else None
        if op is None:
            return _SERVER
        return ("compute", op[0], "image" if kind == "snapshot" else "server")

    @route("POST", "/droplets/{id}/actions", op="action_op")
    def droplet_action(self, req: Request) -> Reply:
        """``POST /droplets/{id}/actions`` with ``type`` (and its arguments)."""
        body = req.json(self)
        server = self.find_droplet(req.params["id"])
        req.entity_id = server["id"]
        kind = body.get("type")
        if kind not in ACTIONS:
            known = ", ".join(sorted(ACTIONS))
            raise self.invalid(f"type {kind!r} is not a droplet action (known: {known})", "type")
        sid = server["id"]
        watch: tuple[str, str, str] | None = ("compute", "server", sid)
        if kind in ("power_off", "shutdown"):
            self.compute.stop_server(sid)
        elif kind == "power_on":
            self.compute.start_server(sid)
        elif kind in ("reboot", "power_cycle"):
            self.compute.reboot_server(sid, "SOFT" if kind == "reboot" else "HARD")
        elif kind == "resize":
            slug, flavor = self.resolve_size(body.get("size"))
            self.compute.set_server_metadata(sid, {SIZE_KEY: slug})
            self.compute.resize_server(sid, flavor["id"])
        elif kind == "rebuild":
            if body.get("image") in (None, ""):
                raise self.invalid("image is required", "image")
            self.compute.rebuild_server(sid, self.find_image(body["image"])["id"])
        elif kind == "snapshot":
            name = body.get("name", f"{server['name']}-snapshot")
            if not isinstance(name, str) or not name:
                raise self.invalid("name must be a non-empty string", "name")
            image = self.compute.create_image(sid, name)
            watch = ("compute", "image", image["id"])
        else:
            name = body.get("name")
            if not isinstance(name, str) or not _HOSTNAME.match(name):
                raise self.invalid(f"name must be a valid hostname, got {name!r}", "name")
            self.compute.update_server(sid, name=name)
            watch = None
        action = self.state().start_action(
            self.cloud,
            kind,
            int_id(sid),
            "droplet",
            self.droplet_region(server),
            watch,
            ACTIONS[kind][1],
        )
        return Reply(201, {"action": self.action_view(action)})

    @route("GET", "/droplets/{id}/actions", op=_SERVER)
    def list_droplet_actions(self, req: Request) -> Reply:
        """``GET /droplets/{id}/actions``."""
        server = self.find_droplet(req.params["id"])
        req.entity_id = server["id"]
        number = int_id(server["id"])
        actions = [
            self.action_view(a)
            for a in self.state().actions.values()
            if a.resource_type == "droplet" and a.resource_id == number
        ]
        return self.page(req, "actions", actions)

    @route("GET", "/droplets/{id}/actions/{action_id}", op=_SERVER)
    def get_droplet_action(self, req: Request) -> Reply:
        """``GET /droplets/{id}/actions/{action_id}``."""
        server = self.find_droplet(req.params["id"])
        req.entity_id = server["id"]
        action = self._action(req.params["action_id"])
        if action.resource_type != "droplet" or action.resource_id != int_id(server["id"]):
            raise self.missing()
        return Reply(200, {"action": self.action_view(action)})

    def _action(self, ref: str) -> Any:
        number = parse_int(ref)
        action = self.state().actions.get(number) if number is not None else None
        if action is None:
            raise self.missing()
        return action

    def action_get_op(self, req: Request) -> tuple[str, str, str | None]:
        """Polling an action reads the entity it follows (so faults on that read apply)."""
        number = parse_int(req.params.get("id"))
        action = self.state().actions.get(number) if number is not None else None
        if action is not None and action.watch is not None:
            service, kind, _ = action.watch
            plural = {"server": "servers", "image": "images"}.get(kind, f"{kind}s")
            return (service, f"{plural}.get", kind)
        return _SERVER

    @route("GET", "/actions", op=("compute", "servers.list", "server"))
    def list_actions(self, req: Request) -> Reply:
        """``GET /actions``: every action of this world, oldest first."""
        return self.page(
            req, "actions", [self.action_view(a) for a in self.state().actions.values()]
        )

    @route("GET", "/actions/{id}", op="action_get_op")
    def get_action(self, req: Request) -> Reply:
        """``GET /actions/{id}``."""
        action = self._action(req.params["id"])
        if action.watch is not None:
            req.entity_id = action.watch[2]
        return Reply(200, {"action": self.action_view(action)})
