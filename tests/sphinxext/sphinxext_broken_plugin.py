"""A plug-in module whose one type has a broken property schema."""

from sdk import resource


class Broken(resource.Resource):
    """Its schema names a type that does not exist."""

    properties_schema = {"size": {"type": "Bogus"}}


def resource_mapping():
    """Register the broken type."""
    return {"Sample::Broken::Broken": Broken}
