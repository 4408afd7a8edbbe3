"""DigitalOcean v2 endpoints besides droplets: images, sizes, regions, account, SSH keys,
floating IPs, tags and VPCs."""

from __future__ import annotations

import ipaddress
from typing import Any

from fake_clouds.rest.common import iso, parse_int
from fake_clouds.rest.dialect import Reply, Request, route
from fake_clouds.rest.do_base import DEFAULT_REGION, REGIONS, DOBase

_FLAVORS = ("compute", "flavors.list", "flavor")
_KEYS = ("compute", "keypairs.list", "keypair")
_FIPS = ("network", "floatingips.list", "floatingip")
_TAGS = ("entity", "entities.list", "do_tag")
_VPCS = ("network", "networks.list", "network")


class DOResources(DOBase):
    """Images, sizes, regions, account, keys, floating IPs, tags and VPCs."""

    # --- images, sizes, regions, account --------------------------------------------

    @route("GET", "/images", op=("compute", "images.list", "image"))
    def list_images(self, req: Request) -> Reply:
        """``GET /images`` (``type=distribution|application``, ``private=true``)."""
        images = self.compute.list_images()
        kind = req.arg("type")
        if kind == "distribution":
            images = [i for i in images if i.get("visibility") == "public"]
        elif kind == "application":
            images = []
        elif kind is not None:
            raise self.fail(400, f"type must be distribution or application, got {kind!r}", "type")
        if req.arg("private") == "true":
            images = [i for i in images if i.get("visibility") != "public"]
        return self.page(req, "images", [self.image_view(i) for i in images])

    @route("GET", "/images/{id}", op=("compute", "images.get", "image"))
    def get_image(self, req: Request) -> Reply:
        """``GET /images/{id or slug}``."""
        try:
            image = self.find_image(req.params["id"])
        except Exception:
            raise self.missing() from None
        req.entity_id = image["id"]
        return Reply(200, {"image": self.image_view(image)})

    @route("DELETE", "/images/{id}", op=("compute", "images.delete", "image"))
    def delete_image(self, req: Request) -> Reply:
        """``DELETE /images/{id}`` (snapshots only)."""
        try:
            image = self.find_image(req.params["id"])
        except Exception:
            raise self.missing() from None
        if image.get("visibility") == "public":
            raise self.invalid("Public images cannot be deleted.")
        req.entity_id = image["id"]
        self.compute.delete_image(image["id"])
        return Reply(204)

    @route("GET", "/sizes", op=_FLAVORS)
    def list_sizes(self, req: Request) -> Reply:
        """``GET /sizes``."""
        return self.page(req, "sizes", self.size_views())

    @route("GET", "/regions", op=_FLAVORS)
    def list_regions(self, req: Request) -> Reply:
        """``GET /regions``."""
        return self.page(req, "regions", [self.region_view(slug) for slug, _ in REGIONS])

    @route("GET", "/account")
    def account(self, req: Request) -> Reply:
        """``GET /account`` (droplet limit = the compute ``instances`` quota)."""
        limits = self.compute.quotas
        fips = (
            self.cloud.service("network").quotas if "network" in self.cloud.service_names() else {}
        )
        return Reply(
            200,
            {
                "account": {
                    "droplet_limit": limits.get("instances", -1),
                    "floating_ip_limit": fips.get("floatingip", 0),
                    "volume_limit": 100,
                    "email": "plugsim@example.invalid",
                    "uuid": "00000000-0000-4000-8000-00000000d0d0",
                    "email_verified": True,
                    "status": "active",
                    "status_message": "",
                }
            },
        )

    # --- SSH keys ------------------------------------------------------------------------

    def key_view(self, key: dict[str, Any]) -> dict[str, Any]:
        """Return an SSH key object (its id derives from the fingerprint)."""
        return {
            "id": int(key["fingerprint"].replace(":", "")[:7], 16),
            "fingerprint": key["fingerprint"],
            "public_key": key["public_key"],
            "name": key["name"],
        }

    def find_key(self, ref: Any, field_name: str = "ssh_keys") -> dict[str, Any]:
        """Return the keypair a DO key id or fingerprint names (404 otherwise)."""
        number = parse_int(ref)
        for key in self.compute.list_keypairs():
            view = self.key_view(key)
            if ref == view["fingerprint"] or (number is not None and number == view["id"]):
                return key
        raise self.missing()

    @route("GET", "/account/keys", op=_KEYS)
    def list_keys(self, req: Request) -> Reply:
        """``GET /account/keys``."""
        keys = [self.key_view(k) for k in self.compute.list_keypairs()]
        return self.page(req, "ssh_keys", keys)

    @route("POST", "/account/keys", op=("compute", "keypairs.create", "keypair"))
    def create_key(self, req: Request) -> Reply:
        """``POST /account/keys`` with ``name`` and ``public_key``."""
        body = req.json(self)
        for name in ("name", "public_key"):
            if not isinstance(body.get(name), str) or not body[name]:
                raise self.invalid(f"{name} is required and must be a non-empty string", name)
        key = self.compute.create_keypair(body["name"], body["public_key"])
        req.entity_id = key["id"]
        return Reply(201, {"ssh_key": self.key_view(key)})

    @route("GET", "/account/keys/{id}", op=("compute", "keypairs.get", "keypair"))
    def get_key(self, req: Request) -> Reply:
        """``GET /account/keys/{id or fingerprint}``."""
        return Reply(200, {"ssh_key": self.key_view(self.find_key(req.params["id"]))})

    @route("PUT", "/account/keys/{id}", op=("compute", "keypairs.create", "keypair"))
    def rename_key(self, req: Request) -> Reply:
        """``PUT /account/keys/{id}`` with a new ``name`` (the id stays the same)."""
        key = self.find_key(req.params["id"])
        body = req.json(self)
        if not isinstance(body.get("name"), str) or not body["name"]:
            raise self.invalid("name is required and must be a non-empty string", "name")
        if body["name"] != key["name"]:
            new = self.compute.create_keypair(body["name"], key["public_key"])
            self.compute.delete_keypair(key["name"])
            key = new
        req.entity_id = key["id"]
        return Reply(200, {"ssh_key": self.key_view(key)})

    @route("DELETE", "/account/keys/{id}", op=("compute", "keypairs.delete", "keypair"))
    def delete_key(self, req: Request) -> Reply:
        """``DELETE /account/keys/{id or fingerprint}``."""
        key = self.find_key(req.params["id"])
        req.entity_id = key["id"]
        self.compute.delete_keypair(key["name"])
        return Reply(204)

    # --- floating IPs ----------------------------------------------------------------------

    @property
    def network(self) -> Any:
        """The network service."""
        return self.cloud.service("network")

    def public_network(self) -> dict[str, Any]:
        """Return the external network floating IPs come from (422 if there is none)."""
        for net in self.network.list_networks():
            if net.get("router:external"):
                return net
        raise self.invalid("No public network to allocate floating IPs from")

    def server_of_port(self, port_id: str | None) -> dict[str, Any] | None:
        """Return the compute server a port is bound to, if any."""
        if not port_id:
            return None
        port = self.network.get_port(port_id)
        for server in self.compute.list_servers():
            if server["id"] == port.get("device_id"):
                return server
        return None

    def fip_view(self, fip: dict[str, Any]) -> dict[str, Any]:
        """Return a floating IP object."""
        server = self.server_of_port(fip.get("port_id"))
        region = self.state().regions.get(fip["id"]) or (
            self.droplet_region(server) if server else DEFAULT_REGION
        )
        return {
            "ip": fip["floating_ip_address"],
            "region": self.region_view(region),
            "droplet": self.droplet_view(server) if server else None,
            "locked": False,
            "project_id": fip.get("project_id", "plugsim"),
        }

    def find_fip(self, ip: str) -> dict[str, Any]:
        """Return the floating IP with address *ip* (404 otherwise)."""
        for fip in self.network.list_floatingips():
            if fip["floating_ip_address"] == ip:
                return fip
        raise self.missing()

    def port_of(self, server: dict[str, Any]) -> str:
        """Return the id of the first port bound to *server* (422 if it has none)."""
        ports = self.network.list_ports(device_id=server["id"])
        if not ports:
            raise self.invalid("The droplet has no network port to assign the IP to", "droplet_id")
        return ports[0]["id"]

    @route("GET", "/floating_ips", op=_FIPS)
    def list_fips(self, req: Request) -> Reply:
        """``GET /floating_ips``."""
        fips = [self.fip_view(f) for f in self.network.list_floatingips()]
        return self.page(req, "floating_ips", fips)

    @route("POST", "/floating_ips", op=("network", "floatingips.create", "floatingip"))
    def create_fip(self, req: Request) -> Reply:
        """``POST /floating_ips`` with exactly one of ``droplet_id`` or ``region``."""
        body = req.json(self)
        if ("droplet_id" in body) == ("region" in body):
            raise self.invalid("Specify exactly one of droplet_id or region", "droplet_id")
        attrs: dict[str, Any] = {"floating_network_id": self.public_network()["id"]}
        region = DEFAULT_REGION
        if "droplet_id" in body:
            server = self.find_droplet(body["droplet_id"])
            attrs["port_id"] = self.port_of(server)
            region = self.droplet_region(server)
        else:
            region = self.check_region(body["region"])
        fip = self.network.create_floatingip(attrs)
        self.state().regions[fip["id"]] = region
        req.entity_id = fip["id"]
        view = self.fip_view(fip)
        return Reply(202, {"floating_ip": view, "links": {}})

    @route("GET", "/floating_ips/{ip}", op=("network", "floatingips.get", "floatingip"))
    def get_fip(self, req: Request) -> Reply:
        """``GET /floating_ips/{ip}``."""
        fip = self.find_fip(req.params["ip"])
        req.entity_id = fip["id"]
        return Reply(200, {"floating_ip": self.fip_view(fip)})

    @route("DELETE", "/floating_ips/{ip}", op=("network", "floatingips.delete", "floatingip"))
    def delete_fip(self, req: Request) -> Reply:
        """``DELETE /floating_ips/{ip}``."""
        fip = self.find_fip(req.params["ip"])
        req.entity_id = fip["id"]
        self.network.delete_floatingip(fip["id"])
        return Reply(204)

    @route("POST", "/floating_ips/{ip}/actions", op=("network", "floatingips.update", "floatingip"))
    def fip_action(self, req: Request) -> Reply:
        """``POST /floating_ips/{ip}/actions`` with ``type`` assign (``droplet_id``) or unassign."""
        fip = self.find_fip(req.params["ip"])
        req.entity_id = fip["id"]
        body = req.json(self)
        kind = body.get("type")
        if kind == "assign":
            server = self.find_droplet(body.get("droplet_id"))
            self.network.update_floatingip(fip["id"], {"port_id": self.port_of(server)})
        elif kind == "unassign":
            self.network.update_floatingip(fip["id"], {"port_id": None})
        else:
            raise self.invalid(f"type must be assign or unassign, got {kind!r}", "type")
        region = self.state().regions.get(fip["id"], DEFAULT_REGION)
        resource = int(ipaddress.ip_address(fip["floating_ip_address"]))
        action = self.state().start_action(self.cloud, kind, resource, "floating_ip", region, None)
        return Reply(201, {"action": self.action_view(action)})

    @route("GET", "/floating_ips/{ip}/actions", op=_FIPS)
    def list_fip_actions(self, req: Request) -> Reply:
        """``GET /floating_ips/{ip}/actions``."""
        fip = self.find_fip(req.params["ip"])
        resource = int(ipaddress.ip_address(fip["floating_ip_address"]))
        actions = [
            self.action_view(a)
            for a in self.state().actions.values()
            if a.resource_type == "floating_ip" and a.resource_id == resource
        ]
        return self.page(req, "actions", actions)

    # --- tags ------------------------------------------------------------------------------

    def tag_view(self, tag: dict[str, Any]) -> dict[str, Any]:
        """Return a tag object (only resources still alive are counted)."""
        live = self.live_droplet_ids()
        droplets = [
            r
            for r in tag["resources"]
            if r["resource_type"] == "droplet" and r["resource_id"] in live
        ]
        last = f"/v2/droplets/{droplets[-1]['resource_id']}" if droplets else None
        return {
            "name": tag["name"],
            "resources": {
                "count": len(droplets),
                "last_tagged_uri": last,
                "droplets": {"count": len(droplets), "last_tagged_uri": last},
            },
        }

    def need_tag(self, name: str) -> dict[str, Any]:
        """Return the tag *name* (404 otherwise)."""
        tag = self.find_tag(name)
        if tag is None:
            raise self.missing()
        return tag

    @route("GET", "/tags", op=_TAGS)
    def list_tags(self, req: Request) -> Reply:
        """``GET /tags``."""
        return self.page(req, "tags", [self.tag_view(t) for t in self.all_tags()])

    @route("POST", "/tags", op=("entity", "entities.create", "do_tag"))
    def create_tag(self, req: Request) -> Reply:
        """``POST /tags`` with ``name`` (an existing tag is returned as is)."""
        name = self.check_tag_name(req.json(self).get("name"))
        tag = self.ensure_tag(name)
        req.entity_id = tag["id"]
        return Reply(201, {"tag": self.tag_view(tag)})

    @route("GET", "/tags/{name}", op=("entity", "entities.get", "do_tag"))
    def get_tag(self, req: Request) -> Reply:
        """``GET /tags/{name}``."""
        tag = self.need_tag(req.params["name"])
        req.entity_id = tag["id"]
        return Reply(200, {"tag": self.tag_view(tag)})

    @route("DELETE", "/tags/{name}", op=("entity", "entities.delete", "do_tag"))
    def delete_tag(self, req: Request) -> Reply:
        """``DELETE /tags/{name}``."""
        tag = self.need_tag(req.params["name"])
        req.entity_id = tag["id"]
        self.tag_service().delete_entity(tag["id"])
        return Reply(204)

    def _resources(self, req: Request) -> list[dict[str, str]]:
        body = req.json(self)
        items = body.get("resources")
        if not isinstance(items, list) or not items:
            raise self.invalid("resources must be a non-empty list", "resources")
        out = []
        for i, item in enumerate(items):
            rid = item.get("resource_id") if isinstance(item, dict) else None
            rtype = item.get("resource_type") if isinstance(item, dict) else None
            if not isinstance(rid, str | int) or isinstance(rid, bool) or rtype != "droplet":
                raise self.invalid(
                    f"resources[{i}]: expected resource_id and resource_type 'droplet'",
                    f"resources[{i}]",
                )
            if str(rid) not in self.live_droplet_ids():
                raise self.invalid(f"resources[{i}]: droplet {rid} does not exist")
            out.append({"resource_id": str(rid), "resource_type": "droplet"})
        return out

    @route("POST", "/tags/{name}/resources", op=("entity", "entities.update", "do_tag"))
    def tag_resources(self, req: Request) -> Reply:
        """``POST /tags/{name}/resources`` with ``resources`` (droplets)."""
        tag = self.need_tag(req.params["name"])
        req.entity_id = tag["id"]
        for item in self._resources(req):
            self.tag_resource(tag["name"], item["resource_id"], item["resource_type"])
        return Reply(204)

    @route("DELETE", "/tags/{name}/resources", op=("entity", "entities.update", "do_tag"))
    def untag_resources(self, req: Request) -> Reply:
        """``DELETE /tags/{name}/resources`` with ``resources``."""
        tag = self.need_tag(req.params["name"])
        req.entity_id = tag["id"]
        drop = self._resources(req)
        kept = [r for r in tag["resources"] if r not in drop]
        self.tag_service().update_entity(tag["id"], {"resources": kept})
        return Reply(204)

    # --- VPCs ------------------------------------------------------------------------------

    def vpc_view(self, net: dict[str, Any]) -> dict[str, Any]:
        """Return a VPC object for a (non-external) network."""
        cidr = None
        for sid in net.get("subnets", []):
            cidr = cidr or self.network.get_subnet(sid)["cidr"]
        return {
            "id": net["id"],
            "urn": f"do:vpc:{net['id']}",
            "name": net["name"],
            "description": net.get("description", ""),
            "region": self.state().regions.get(net["id"], DEFAULT_REGION),
            "ip_range": cidr,
            "default": False,
            "created_at": iso(net["created_at"]),
        }

    def vpcs(self) -> list[dict[str, Any]]:
        """Return the networks shown as VPCs (every network that is not external)."""
        return [n for n in self.network.list_networks() if not n.get("router:external")]

    def need_vpc(self, vpc_id: str) -> dict[str, Any]:
        """Return the VPC *vpc_id* (404 otherwise)."""
        for net in self.vpcs():
            if net["id"] == vpc_id:
                return net
        raise self.missing()

    @route("GET", "/vpcs", op=_VPCS)
    def list_vpcs(self, req: Request) -> Reply:
        """``GET /vpcs``."""
        return self.page(req, "vpcs", [self.vpc_view(n) for n in self.vpcs()])

    @route("POST", "/vpcs", op=("network", "networks.create", "network"))
    def create_vpc(self, req: Request) -> Reply:
        """``POST /vpcs`` with ``name``, ``region`` and optional ``ip_range``/``description``."""
        body = req.json(self)
        name = body.get("name")
        if not isinstance(name, str) or not name:
            raise self.invalid("name is required and must be a non-empty string", "name")
        region = self.check_region(body.get("region"))
        description = body.get("description", "")
        if not isinstance(description, str):
            raise self.invalid("description must be a string", "description")
        ip_range = body.get("ip_range") or f"10.{100 + len(self.vpcs()) % 150}.0.0/20"
        try:
            network = ipaddress.ip_network(str(ip_range), strict=False)
        except ValueError:
            raise self.invalid(f"ip_range {ip_range!r} is not a valid CIDR", "ip_range") from None
        if network.version != 4:
            raise self.invalid("ip_range must be an IPv4 range", "ip_range")
        net = self.network.create_network({"name": name, "description": description})
        self.network.create_subnet({"network_id": net["id"], "cidr": str(network), "name": name})
        self.state().regions[net["id"]] = region
        req.entity_id = net["id"]
        return Reply(201, {"vpc": self.vpc_view(self.network.get_network(net["id"]))})

    @route("GET", "/vpcs/{id}", op=("network", "networks.get", "network"))
    def get_vpc(self, req: Request) -> Reply:
        """``GET /vpcs/{id}``."""
        net = self.need_vpc(req.params["id"])
        req.entity_id = net["id"]
        return Reply(200, {"vpc": self.vpc_view(net)})

    @route("PATCH", "/vpcs/{id}", op=("network", "networks.update", "network"))
    @route("PUT", "/vpcs/{id}", op=("network", "networks.update", "network"))
    def update_vpc(self, req: Request) -> Reply:
        """``PUT``/``PATCH /vpcs/{id}`` with ``name`` and/or ``description``."""
        net = self.need_vpc(req.params["id"])
        req.entity_id = net["id"]
        body = req.json(self)
        changes = {k: body[k] for k in ("name", "description") if k in body}
        for key, value in changes.items():
            if not isinstance(value, str):
                raise self.invalid(f"{key} must be a string", key)
        if changes:
            net = self.network.update_network(net["id"], changes)
        return Reply(200, {"vpc": self.vpc_view(net)})

    @route("DELETE", "/vpcs/{id}", op=("network", "networks.delete", "network"))
    def delete_vpc(self, req: Request) -> Reply:
        """``DELETE /vpcs/{id}`` (422 while droplets use it)."""
        net = self.need_vpc(req.params["id"])
        req.entity_id = net["id"]
        if self.network.list_ports(network_id=net["id"]):
            raise self.invalid("Can not delete VPC with members")
        for sid in list(net.get("subnets", [])):
            self.network.delete_subnet(sid)
        self.network.delete_network(net["id"])
        return Reply(204)
