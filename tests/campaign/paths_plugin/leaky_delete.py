"""A small plug-in that passes the conformance suite, with a bug only a rare fault finds.

``Test::Campaign::LeakyDelete`` makes one network. Its delete takes a 503 from ``networks.delete`` for
"already gone" and reports the delete complete: the network stays in the cloud. Without that fault every
conformance path passes.
"""

from sdk import exception, properties
from sdk.resource import Resource


class LeakyDelete(Resource):
    """One network; a 503 on its delete leaks it (the planted bug)."""

    default_client_name = "network"
    properties_schema = {
        "name": properties.Schema(properties.Schema.STRING, "Network name.", required=True),
    }

    def handle_create(self):
        net = self.client().create_network({"network": {"name": self.properties["name"]}})
        self.resource_id_set(net["network"]["id"])
        return net["network"]["id"]

    def check_create_complete(self, net_id):
        try:
            net = self.client().show_network(net_id)["network"]
        except exception.ServiceUnavailable as ex:
            if ex.code != 503:
                raise
            return False  # right: a 503 while polling means "ask again"
        return net.get("status") == "ACTIVE"

    def handle_delete(self):
        if self.resource_id is None:
            return None
        try:
            self.client().delete_network(self.resource_id)
        except exception.ServiceUnavailable as ex:
            if ex.code != 503:
                raise
            return None  # the planted bug: taken for "already gone"; the network stays
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
        return self.resource_id

    def check_delete_complete(self, net_id):
        if net_id is None:
            return True
        try:
            self.client().show_network(net_id)
        except exception.ServiceUnavailable as ex:
            if ex.code != 503:
                raise
            return False
        except Exception as ex:
            if self.client_plugin().is_not_found(ex):
                return True
            raise
        return False


def resource_mapping():
    return {"Test::Campaign::LeakyDelete": LeakyDelete}
