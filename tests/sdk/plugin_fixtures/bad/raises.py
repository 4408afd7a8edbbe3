"""resource_mapping raises."""


def resource_mapping():
    raise RuntimeError("mapping exploded")
