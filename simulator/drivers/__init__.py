"""Cloud driver modules under plugsim: loader, harness, simulated deploy and conformance.

The public names::

    from simulator.drivers import DriverHarness, load_cloud_config, check_driver

:class:`DriverHarness` runs salt-cloud's operations (create, destroy, queries,
actions, functions, listings) over driver modules against a fake cloud in
virtual time; :func:`check_driver` runs the conformance checks and returns
:class:`Finding` objects.
"""

from simulator.drivers.config import CloudConfig, load_cloud_config
from simulator.drivers.conformance import FAULT_KINDS, Finding, check_driver
from simulator.drivers.harness import DriverCallError, DriverHarness
from simulator.drivers.loader import (
    DriverLoadError,
    DriverLocator,
    DriverUnavailable,
    LoadedDriver,
    load_driver,
)

__all__ = [
    "FAULT_KINDS",
    "CloudConfig",
    "DriverCallError",
    "DriverHarness",
    "DriverLoadError",
    "DriverLocator",
    "DriverUnavailable",
    "Finding",
    "LoadedDriver",
    "check_driver",
    "load_cloud_config",
    "load_driver",
]
