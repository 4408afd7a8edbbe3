"""A plug-in raising a Heat exception the compat layer does not provide."""

from heat.common import exception
from heat.engine import resource


class Grumpy(resource.Resource):
    """Fails create with an exception class only real Heat has."""

    def handle_create(self):
        raise exception.NoSuchHeatThing()


def resource_mapping():
    return {"Test::Heat::Grumpy": Grumpy}
