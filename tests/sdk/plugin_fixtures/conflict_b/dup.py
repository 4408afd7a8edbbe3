"""Claims Fixture::Dup (so does the module of the same name in the sibling directory)."""

from sdk.resource import Resource


class Dup(Resource):
    """One of two."""


def resource_mapping():
    return {"Fixture::Dup": Dup, "Fixture::Unique::conflict_b": Dup}
