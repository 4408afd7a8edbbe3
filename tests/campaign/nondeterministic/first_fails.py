"""A plug-in whose outcome depends on process history, not on its seed (for the nondeterminism test).

The first resource it creates in a process fails; every later one succeeds. A campaign run in one
process sees the first seed fail and the same seed pass when it is confirmed.
"""

from sdk.resource import Resource

CREATED = [0]


class FirstFails(Resource):
    """Fails the first time in a process."""

    def handle_create(self):
        CREATED[0] += 1
        if CREATED[0] == 1:
            raise RuntimeError("first create in this process")
        self.resource_id_set(f"ok-{CREATED[0]}")


def resource_mapping():
    return {"Test::Campaign::FirstFails": FirstFails}
