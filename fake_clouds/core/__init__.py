"""The fake cloud core: world, services, entities, latency, faults, inventory and leaks."""

from fake_clouds.core.faults import FaultProfile, FaultRule, load_profile, parse_rules, parse_yaml
from fake_clouds.core.injector import InjectedFault
from fake_clouds.core.inventory import InventoryItem, InventorySnapshot, leaks
from fake_clouds.core.latency import DEFAULT_LATENCY, LatencyModel, parse_distribution
from fake_clouds.core.presets import FAULT_PRESETS
from fake_clouds.core.registry import CLIENT_ALIASES, register_service
from fake_clouds.core.service import Service, operation
from fake_clouds.core.world import FakeCloud, TraceEntry

__all__ = [
    "CLIENT_ALIASES",
    "DEFAULT_LATENCY",
    "FAULT_PRESETS",
    "FakeCloud",
    "FaultProfile",
    "FaultRule",
    "InjectedFault",
    "InventoryItem",
    "InventorySnapshot",
    "LatencyModel",
    "Service",
    "TraceEntry",
    "leaks",
    "load_profile",
    "operation",
    "parse_distribution",
    "parse_rules",
    "parse_yaml",
    "register_service",
]
