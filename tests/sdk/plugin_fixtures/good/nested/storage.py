"""A plug-in in a sub-directory, using available_resource_mapping and a custom constraint."""

from sdk.constraints import BaseCustomConstraint
from sdk.resource import Resource


class FixtureVolume(Resource):
    """A volume."""


class EvenSize(BaseCustomConstraint):
    """Accepts even sizes only."""

    def validate(self, value, context=None):
        return value % 2 == 0


def available_resource_mapping():
    return {"Fixture::Storage::Volume": FixtureVolume}


def resource_mapping():
    raise AssertionError("available_resource_mapping wins when both exist")


def constraint_mapping():
    return {"fixture.even_size": EvenSize}
