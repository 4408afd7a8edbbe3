"""What every campaign worker would otherwise do on its first run, done once in the fork server.

Pool workers are forked from a fork server that imported :data:`~sdk.testing.campaign.backends.PRELOAD`
(see :func:`~sdk.testing.campaign.backends.pool_context`). Importing this module there also imports
the engine modules a run imports lazily (the template engine, validation, the environment) and scans
the installed distributions' entry points of every group a run looks up (metadata only: no plug-in
module is imported by the scan). Each worker, and each pool's new workers, then starts with them
instead of paying about 90 ms of CPU for them in its first run, once per worker per campaign,
which weighs on short campaigns and on the two-process scaling.

A scan is remembered keyed by ``sys.path`` (:mod:`sdk._entry_points`): a worker whose path differs
from the fork server's scans afresh, so nothing stale is used.
"""

from __future__ import annotations

import importlib

from sdk._entry_points import group_entry_points

#: The entry-point groups a run looks up (fake cloud backends, lifecycle plug-ins, resource types,
#: custom constraints, provider APIs).
GROUPS = (
    "plugsim.fake_clouds",
    "plugsim.providers",
    "plugsim.stack_lifecycle_plugins",
    "heat.stack_lifecycle_plugins",
    "plugsim.resources",
    "plugsim.constraints",
)

#: Engine modules a run imports inside functions (found by diffing ``sys.modules`` around a run).
MODULES = (
    "simulator.template",
    "simulator.template.loader",
    "simulator.template.definition",
    "simulator.environment",
    "simulator.nesting",
    "simulator.property_validation",
    "simulator.dependencies",
    "simulator.views.graph",
    "simulator.simulate",
    "fake_clouds.entity",
    "fake_clouds.clients.entity",
    "statistics",
)


def warm() -> None:
    """Import :data:`MODULES` and scan :data:`GROUPS` (both remembered by this process)."""
    for name in MODULES:
        importlib.import_module(name)
    for group in GROUPS:
        group_entry_points(group)


warm()
