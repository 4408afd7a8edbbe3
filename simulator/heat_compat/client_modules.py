"""The shim modules of Heat's client plug-ins: ``heat.engine.clients.os.swift``, ``keystone``, ``neutron``.

Heat's plug-in modules import a client plug-in module for its constants and
class (``swift.IN_PROGRESS``, ``swift.SwiftClientPlugin``); the classes are
the compat layer's imitations (:mod:`simulator.heat_compat.swift_plugin`,
:mod:`simulator.heat_compat.keystone_plugin`). Any other name of these
modules is :class:`~simulator.heat_compat.MissingHeatName`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _package() -> dict[str, Any]:
    return {}


def _clients_package() -> dict[str, Any]:
    """``heat.engine.clients``: empty, but registers Heat's options as its import of
    ``heat.common.config`` does in Heat (signal URLs read ``heat_waitcondition_server_url``)."""
    from simulator.heat_compat import heat_config

    heat_config.module_names()
    return {}


def _swift() -> dict[str, Any]:
    from simulator.heat_compat import swift_plugin

    return {
        "IN_PROGRESS": swift_plugin.IN_PROGRESS,
        "MAX_EPOCH": swift_plugin.MAX_EPOCH,
        "CLIENT_NAME": swift_plugin.CLIENT_NAME,
        "SwiftClientPlugin": swift_plugin.SwiftClientPlugin,
    }


def _keystone() -> dict[str, Any]:
    from simulator.heat_compat import keystone_plugin

    return {"CLIENT_NAME": "keystone", "KeystoneClientPlugin": keystone_plugin.KeystoneClientPlugin}


def _neutron() -> dict[str, Any]:
    from simulator.heat_compat import neutron_plugin

    return {"CLIENT_NAME": "neutron", "NeutronClientPlugin": neutron_plugin.NeutronClientPlugin}


def _neutron_constraints() -> dict[str, Any]:
    from simulator.heat_compat import neutron_constraints

    return {
        "CLIENT_NAME": "neutron",
        "NeutronConstraint": neutron_constraints.NeutronConstraint,
        "NeutronExtConstraint": neutron_constraints.NeutronExtConstraint,
    }


#: ``module name -> builder`` of the client plug-in shims (joined into the shims' table).
BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "heat.engine.clients": _clients_package,
    "heat.engine.clients.os": _package,
    "heat.engine.clients.os.swift": _swift,
    "heat.engine.clients.os.keystone": _keystone,
    "heat.engine.clients.os.neutron": _neutron,
    "heat.engine.clients.os.neutron.neutron_constraints": _neutron_constraints,
}
