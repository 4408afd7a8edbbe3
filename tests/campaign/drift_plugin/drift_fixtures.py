"""Small network plug-ins: one that survives drift, two with a bug only drift behind their back shows.

``Test::Campaign::Blind`` checks its network but takes one that vanished for a healthy one: ``stack
check`` completes after the network was deleted out of band. ``Test::Campaign::Brittle`` checks well,
but its delete fails when the network is already gone, so the stack's delete never converges.
"""

from sdk import exception, properties
from sdk.resource import Resource


class Sturdy(Resource):
    """One network, checked and deleted right whatever happened to it."""

    default_client_name = "network"
    properties_schema = {
        "name": properties.Schema(properties.Schema.STRING, "Network name.", required=True),
    }

    def handle_create(self):
        net = self.client().create_network({"network": {"name": self.properties["name"]}})
        self.resource_id_set(net["network"]["id"])
        return net["network"]["id"]

    def check_create_complete(self, net_id):
        return self.client().show_network(net_id)["network"].get("status") == "ACTIVE"

    def handle_check(self):
        net = self.client().show_network(self.resource_id)["network"]
        if net.get("status") != "ACTIVE":
            raise exception.ResourceFailure(f"network {self.resource_id} is {net.get('status')}")

    def handle_delete(self):
        if self.resource_id is None:
            return None
        try:
            self.client().delete_network(self.resource_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
        return self.resource_id

    def check_delete_complete(self, net_id):
        if net_id is None:
            return True
        try:
            self.client().show_network(net_id)
        except Exception as ex:
            if self.client_plugin().is_not_found(ex):
                return True
            raise
        return False


class Blind(Sturdy):
    """Its check does not see a network deleted behind its back (the bug)."""

    def handle_check(self):
        try:
            super().handle_check()
        except exception.NotFound:
            return  # the bug: gone is taken for fine


class Brittle(Sturdy):
    """Its delete fails on a network that is already gone (the bug)."""

    def handle_delete(self):
        if self.resource_id is None:
            return None
        self.client().delete_network(self.resource_id)  # the bug: NotFound is not ignored
        return self.resource_id


def resource_mapping():
    return {
        "Test::Campaign::Blind": Blind,
        "Test::Campaign::Brittle": Brittle,
        "Test::Campaign::Sturdy": Sturdy,
    }
