"""Example stack lifecycle plug-ins: the use cases of the lifecycle plug-point.

Put ``examples/lifecycle`` on ``PYTHONPATH`` and name them on the command
line, e.g. ``--lifecycle-plugin lifecycle_examples.racks:RackAffinity``.
"""
