"""A plug-in that kills its process for one value: a campaign must survive the lost worker."""

import os

from sdk import properties
from sdk.resource import Resource


class Exits(Resource):
    """Ends the process (no exception, no cleanup) when asked to."""

    properties_schema = {"die": properties.Schema(properties.Schema.BOOLEAN, "Die.", default=False)}

    def handle_create(self):
        if self.properties["die"]:
            os._exit(3)
        self.resource_id_set("alive")


def resource_mapping():
    return {"Test::Campaign::Exits": Exits}
