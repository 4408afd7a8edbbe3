"""Small example plug-ins for the three-tier example, written against the fake cloud.

They talk to the fake cloud's compute, network and block-storage clients the way
Heat plug-ins talk to nova, neutron and cinder: create, then poll
``check_*_complete`` until the physical resource is ready (latency is virtual),
and delete, polling until it is gone. The full OpenStack resource library is a
separate package; these exist so the example exercises latency, polling and leaks.
"""

from sdk import attributes, constraints, exception, properties
from sdk.resource import Resource


def _gone(plugin, call):
    try:
        call()
    except Exception as ex:
        if plugin.is_not_found(ex):
            return True
        raise
    return False


class Network(Resource):
    """A network with one subnet."""

    default_client_name = "network"
    properties_schema = {
        "name": properties.Schema(
            properties.Schema.STRING,
            "Network name.",
            required=True,
            constraints=[constraints.Length(min=1)],
        ),
        "cidr": properties.Schema(
            properties.Schema.STRING,
            "Subnet CIDR: a private /24 of 10.0.0.0/8.",
            default="10.0.0.0/24",
            # no leading zeros: the network service refuses "10.01.0.0/24"
            constraints=[constraints.AllowedPattern(r"10\.(0|[1-9][0-9]?)\.(0|[1-9][0-9]?)\.0/24")],
        ),
    }
    attributes_schema = {"subnet_id": attributes.Schema("The subnet's id.")}

    def handle_create(self):
        client = self.client()
        net = client.create_network({"network": {"name": self.properties["name"]}})["network"]
        self.resource_id_set(net["id"])
        subnet = client.create_subnet(
            {
                "subnet": {
                    "network_id": net["id"],
                    "ip_version": 4,
                    "cidr": self.properties["cidr"],
                    "name": f"{self.properties['name']}-subnet",
                }
            }
        )
        self.data_set("subnet_id", subnet["subnet"]["id"])

    def handle_delete(self):
        if self.resource_id is None:
            return None
        client = self.client()
        subnet = self.data().get("subnet_id")
        if subnet:
            try:
                client.delete_subnet(subnet)
            except Exception as ex:
                self.client_plugin().ignore_not_found(ex)
        try:
            client.delete_network(self.resource_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
        return self.resource_id

    def check_delete_complete(self, net_id):
        if net_id is None:
            return True
        return _gone(self.client_plugin(), lambda: self.client().show_network(net_id))

    def _resolve_attribute(self, name):
        if name == "subnet_id":
            return self.data().get("subnet_id")
        return None


class Server(Resource):
    """A server on a network, polled from BUILD to ACTIVE."""

    default_client_name = "compute"
    entity = "servers"
    properties_schema = {
        "name": properties.Schema(
            properties.Schema.STRING,
            "Server name.",
            required=True,
            constraints=[constraints.Length(min=1)],
        ),
        "image": properties.Schema(
            properties.Schema.STRING,
            "Image name or id.",
            default="cirros",
            constraints=[constraints.Length(min=1)],
        ),
        "flavor": properties.Schema(
            properties.Schema.STRING,
            "Flavor name or id.",
            default="m1.small",
            update_allowed=True,
            constraints=[constraints.Length(min=1)],
        ),
        "network": properties.Schema(properties.Schema.STRING, "Network id.", required=True),
    }
    attributes_schema = {"status": attributes.Schema("The server status.")}

    def handle_create(self):
        server = self.client().servers.create(
            self.properties["name"],
            self.properties["image"],
            self.properties["flavor"],
            nics=[{"net-id": self.properties["network"]}],
        )
        self.resource_id_set(server.id)
        return server.id

    def _status(self, server_id):
        server = self.client().servers.get(server_id)
        if server.status == "ERROR":
            raise exception.ResourceInError(
                status_reason=str(getattr(server, "fault", "")), resource_status="ERROR"
            )
        return server.status

    def check_create_complete(self, server_id):
        return self._status(server_id) == "ACTIVE"

    def handle_update(self, json_snippet=None, tmpl_diff=None, prop_diff=None):
        # flavor is the one update-allowed property: a new flavor is a resize, confirmed
        # by check_update_complete once the server waits in VERIFY_RESIZE
        flavor = (prop_diff or {}).get("flavor")
        if not flavor:
            return None
        self.client().servers.resize(self.resource_id, flavor)
        return flavor

    def check_update_complete(self, flavor):
        if flavor is None:
            return True
        status = self._status(self.resource_id)
        if status == "VERIFY_RESIZE":
            self.client().servers.confirm_resize(self.resource_id)
            return False
        return status == "ACTIVE"

    def check_delete_complete(self, server_id):
        if server_id is None:
            return True
        return _gone(self.client_plugin(), lambda: self.client().servers.get(server_id))

    def handle_suspend(self):
        self.client().servers.suspend(self.resource_id)

    def check_suspend_complete(self, token):
        return self._status(self.resource_id) == "SUSPENDED"

    def handle_resume(self):
        self.client().servers.resume(self.resource_id)

    def check_resume_complete(self, token):
        return self._status(self.resource_id) == "ACTIVE"

    def _resolve_attribute(self, name):
        if name == "status" and self.resource_id:
            return self.client().servers.get(self.resource_id).status
        return None


class Volume(Resource):
    """A block-storage volume, polled until available."""

    default_client_name = "block_storage"
    entity = "volumes"
    properties_schema = {
        "size": properties.Schema(
            properties.Schema.INTEGER,
            "Size in GB.",
            default=1,
            constraints=[constraints.Range(min=1)],
        ),
        "name": properties.Schema(properties.Schema.STRING, "Volume name."),
    }

    def handle_create(self):
        vol = self.client().volumes.create(
            size=self.properties["size"], name=self.properties["name"] or self.name
        )
        self.resource_id_set(vol.id)
        return vol.id

    def check_create_complete(self, vol_id):
        vol = self.client().volumes.get(vol_id)
        if vol.status == "error":
            raise exception.ResourceInError(
                status_reason="volume went to error", resource_status="error"
            )
        return vol.status == "available"

    def handle_delete(self):
        # The block-storage service refuses to delete a volume that is still being created
        # (a create that failed half-way leaves one): check_delete_complete waits, then deletes.
        return self.resource_id

    def check_delete_complete(self, vol_id):
        if vol_id is None:
            return True
        try:
            vol = self.client().volumes.get(vol_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
            return True
        if vol.status in BUSY_VOLUME:
            return False
        if vol.status != "deleting":
            try:
                self.client().volumes.delete(vol_id)
            except Exception as ex:
                self.client_plugin().ignore_not_found(ex)
                return True
        return False


#: Volume states the block-storage service refuses a delete in (they end on their own).
BUSY_VOLUME = ("creating", "downloading", "attaching", "detaching", "extending")


def resource_mapping():
    """The example's types."""
    return {
        "Example::Net::Network": Network,
        "Example::Compute::Server": Server,
        "Example::Storage::Volume": Volume,
    }
