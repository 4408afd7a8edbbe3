"""A plug-in whose optional dependency is missing: it disables itself."""

from sdk.resource import Resource

try:
    import plugsim_fixture_dependency_that_does_not_exist  # noqa: F401
except ImportError:
    HAVE_DEPENDENCY = False
else:
    HAVE_DEPENDENCY = True


class FixtureDns(Resource):
    """Needs the missing library."""


def available_resource_mapping():
    if not HAVE_DEPENDENCY:
        return {}
    return {"Fixture::DNS::Zone": FixtureDns}
