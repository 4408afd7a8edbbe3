"""Custom constraints for the fake clouds' extension objects Heat's plug-ins name.

Heat's ``neutron.qos_policy``, ``neutron.port_pair``, ``neutron.port_pair_group``,
``neutron.flow_classifier``, ``neutron.taas.tap_service``,
``neutron.taas.tap_flow``, ``cinder.vtype``, ``cinder.qos_specs`` and ``nova.host``: an object of
the fake cloud by id or by a unique name (a host by its name), looked up through
the context's clients as Heat's constraints do over the real ones. Written
anew; :mod:`simulator.heat_compat.constraints` registers them with the rest.
"""

from __future__ import annotations

from typing import Any

from sdk import exception
from sdk.constraints import BaseCustomConstraint


class _NeutronObject(BaseCustomConstraint):
    """A neutron object of :attr:`kind` (listed as :attr:`plural` under :attr:`key`), by id
    or by a unique name."""

    expected_exceptions = (exception.EntityNotFound, exception.NotFound, exception.Conflict)
    kind = ""
    plural = ""
    label = ""
    key = ""
    #: an extension resource Heat resolves through ``resolve_ext_resource``, whose
    #: not-found says "Unable to find <kind> with name or id '<value>'"
    ext = False

    def validate_with_client(self, client: Any, value: Any) -> None:
        """Look the object up through the context's network client."""
        neutron = client.client_plugin("network").client()
        items = getattr(neutron, f"list_{self.plural}")()[self.key or self.plural]
        if any(item.get("id") == value for item in items):
            return
        named = [item for item in items if item.get("name") == value]
        if len(named) > 1:
            raise exception.Conflict(f"Multiple {self.kind} matches found for name '{value}'")
        if not named and self.ext:
            raise exception.NotFound(f"Unable to find {self.kind} with name or id '{value}'")
        if not named:
            raise exception.EntityNotFound(entity=self.label, name=value)


class QoSPolicyConstraint(_NeutronObject):
    """``neutron.qos_policy``: a QoS policy of the fake network service."""

    kind, plural, label, key = "qos_policy", "qos_policies", "QoSPolicy", "policies"


class PortPairConstraint(_NeutronObject):
    """``neutron.port_pair``: a networking-sfc port pair."""

    kind, plural, label = "port_pair", "port_pairs", "PortPair"
    ext = True


class PortPairGroupConstraint(_NeutronObject):
    """``neutron.port_pair_group``: a networking-sfc port pair group."""

    kind, plural, label = "port_pair_group", "port_pair_groups", "PortPairGroup"
    ext = True


class FlowClassifierConstraint(_NeutronObject):
    """``neutron.flow_classifier``: a networking-sfc flow classifier."""

    kind, plural, label = "flow_classifier", "flow_classifiers", "FlowClassifier"
    ext = True


class TapServiceConstraint(_NeutronObject):
    """``neutron.taas.tap_service``: a tap-as-a-service tap service."""

    kind, plural, label = "tap_service", "tap_services", "TapService"
    ext = True


class TapFlowConstraint(_NeutronObject):
    """``neutron.taas.tap_flow``: a tap-as-a-service tap flow."""

    kind, plural, label = "tap_flow", "tap_flows", "TapFlow"
    ext = True


class VolumeTypeConstraint(BaseCustomConstraint):
    """``cinder.vtype``: a volume type of the fake block storage, by id or name."""

    expected_exceptions = (exception.EntityNotFound, exception.NotFound)

    def validate_with_client(self, client: Any, value: Any) -> None:
        """Look the type up through the context's block storage client."""
        types = client.client_plugin("block_storage").client().volume_types.list()
        if not any(value in (t.id, t.name) for t in types):
            raise exception.EntityNotFound(entity="VolumeType", name=value)


class QoSSpecsConstraint(BaseCustomConstraint):
    """``cinder.qos_specs``: QoS specs of the fake block storage, by id or name."""

    expected_exceptions = (exception.EntityNotFound, exception.NotFound)

    def validate_with_client(self, client: Any, value: Any) -> None:
        """Look the QoS specs up through the context's block storage client."""
        specs = client.client_plugin("block_storage").client().qos_specs.list()
        if not any(value in (q.id, q.name) for q in specs):
            raise exception.EntityNotFound(entity="QoSSpecs", name=value)


class HostConstraint(BaseCustomConstraint):
    """``nova.host``: a compute host of the fake compute service, by name."""

    expected_exceptions = (exception.EntityNotFound, exception.NotFound)

    def validate_with_client(self, client: Any, value: Any) -> None:
        """Look the host up among the compute client's ``hosts``."""
        hosts = client.client_plugin("compute").client().hosts.list()
        if not any(getattr(h, "host_name", None) == value for h in hosts):
            raise exception.EntityNotFound(entity="Host", name=value)


#: The constraints of this module by Heat's names.
EXT_CONSTRAINTS: dict[str, type[BaseCustomConstraint]] = {
    "cinder.qos_specs": QoSSpecsConstraint,
    "cinder.vtype": VolumeTypeConstraint,
    "neutron.flow_classifier": FlowClassifierConstraint,
    "neutron.port_pair": PortPairConstraint,
    "neutron.port_pair_group": PortPairGroupConstraint,
    "neutron.qos_policy": QoSPolicyConstraint,
    "neutron.taas.tap_flow": TapFlowConstraint,
    "neutron.taas.tap_service": TapServiceConstraint,
    "nova.host": HostConstraint,
}
