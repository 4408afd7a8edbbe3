"""A plain plugsim plug-in next to Heat-style ones (loaded without the compat layer)."""

from sdk.resource import Resource


class Native(Resource):
    """Does nothing."""


def resource_mapping():
    return {"Test::Native": Native}
