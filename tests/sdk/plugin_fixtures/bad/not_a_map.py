"""resource_mapping returns a list."""


def resource_mapping():
    return ["Fixture::List"]
