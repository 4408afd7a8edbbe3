"""A well-formed plug-in module: two type names, one of them an alias."""

from sdk import properties
from sdk.resource import Resource


class FixtureServer(Resource):
    """A server with one property."""

    properties_schema = {"name": properties.Schema(properties.Schema.STRING, "Name.")}


def resource_mapping():
    return {"Fixture::Compute::Server": FixtureServer, "Fixture::Compute::Legacy": FixtureServer}
