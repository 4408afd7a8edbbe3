"""A plug-in whose mapping holds values that are not Resource classes."""

from sdk.resource import Resource


class NotAResource:
    """Forgot to derive from Resource."""


class Fine(Resource):
    """The one valid entry."""


def resource_mapping():
    return {
        "Fixture::Bad::Class": NotAResource,
        "Fixture::Bad::Instance": object(),
        "Fixture::Bad::Fine": Fine,
        "Fixture::Bad::String": "Fine",
    }
