"""A plug-in importing a Heat module (the engine service) the compat layer does not provide."""

from heat.engine import resource, service


class Busy(resource.Resource):
    """Uses Heat's engine service."""

    def handle_create(self):
        return service.EngineService(None, None)


def resource_mapping():
    return {"Test::Heat::Busy": Busy}
