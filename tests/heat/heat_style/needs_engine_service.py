"""A plug-in importing a Heat module the compat layer does not provide."""

from heat.engine import resource, scheduler


class Busy(resource.Resource):
    """Uses Heat's task scheduler."""

    def handle_create(self):
        return scheduler.TaskRunner(None)


def resource_mapping():
    return {"Test::Heat::Busy": Busy}
