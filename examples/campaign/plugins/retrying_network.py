"""An example plug-in with a planted bug that only a rare fault schedule finds.

``Example::Campaign::Network`` creates a network and a subnet, and polls the network until it is ACTIVE.
A service error while polling is treated as "not ready yet" (right: the next poll retries). A service
error on the subnet's creation is "retried" by starting over with a new network, and the first network is
forgotten: nothing ever deletes it. That is the planted bug. It shows only when ``subnets.create`` fails,
which the example's fault profile makes rare, so a handful of seeds never see it and a campaign does.
"""

from sdk import exception, properties
from sdk.resource import Resource


class RetryingNetwork(Resource):
    """A network with one subnet, created with a (buggy) retry."""

    default_client_name = "network"
    properties_schema = {
        "name": properties.Schema(properties.Schema.STRING, "Network name.", required=True),
        "cidr": properties.Schema(properties.Schema.STRING, "Subnet CIDR.", default="10.0.0.0/24"),
    }

    def _create(self):
        client = self.client()
        net = client.create_network({"network": {"name": self.properties["name"]}})["network"]
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
        return net["id"], subnet["subnet"]["id"]

    def handle_create(self):
        try:
            net_id, subnet_id = self._create()
        except exception.ServiceUnavailable:
            # The planted bug: the network of the failed attempt is forgotten, not deleted.
            net_id, subnet_id = self._create()
        self.resource_id_set(net_id)
        self.data_set("subnet_id", subnet_id)
        return net_id

    def check_create_complete(self, net_id):
        try:
            net = self.client().show_network(net_id)["network"]
        except exception.ServiceUnavailable:
            return False  # right: a service error while polling means "ask again"
        return net.get("status") == "ACTIVE"

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
        try:
            self.client().show_network(net_id)
        except exception.ServiceUnavailable:
            return False  # ask again at the next poll
        except Exception as ex:
            if self.client_plugin().is_not_found(ex):
                return True
            raise
        return False


def resource_mapping():
    return {"Example::Campaign::Network": RetryingNetwork}
