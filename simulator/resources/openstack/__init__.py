"""plugsim's bundled OpenStack types on the fake clouds, written on the public SDK.

Published through the entry-point group ``plugsim.resources`` as
``openstack``; the custom constraints of :mod:`.constraints` through
``plugsim.constraints``.
"""

from __future__ import annotations

from sdk.constraints import BaseCustomConstraint
from sdk.resource import Resource
from simulator.resources.openstack import constraints
from simulator.resources.openstack.aodh import (
    GnocchiAggregationByMetricsAlarm,
    GnocchiAggregationByResourcesAlarm,
    GnocchiResourcesAlarm,
)
from simulator.resources.openstack.cinder import Volume, VolumeAttachment
from simulator.resources.openstack.cinder_types import EncryptedVolumeType, VolumeType
from simulator.resources.openstack.neutron import (
    FloatingIP,
    FloatingIPAssociation,
    Net,
    Port,
    Router,
    RouterInterface,
    Subnet,
)
from simulator.resources.openstack.neutron_security import SecurityGroup, SecurityGroupRule
from simulator.resources.openstack.neutron_trunk import ExtraRouteSet, Trunk
from simulator.resources.openstack.nova_misc import Flavor, KeyPair, ServerGroup
from simulator.resources.openstack.octavia import (
    HealthMonitor,
    Listener,
    LoadBalancer,
    Pool,
    PoolMember,
)
from simulator.resources.openstack.server import Server
from simulator.resources.openstack.swift import Container

__all__ = ["constraint_mapping", "resource_mapping"]


def resource_mapping() -> dict[str, type[Resource]]:
    """Return the OpenStack types this package provides."""
    return {
        "OS::Aodh::GnocchiAggregationByMetricsAlarm": GnocchiAggregationByMetricsAlarm,
        "OS::Aodh::GnocchiAggregationByResourcesAlarm": GnocchiAggregationByResourcesAlarm,
        "OS::Aodh::GnocchiResourcesAlarm": GnocchiResourcesAlarm,
        "OS::Cinder::EncryptedVolumeType": EncryptedVolumeType,
        "OS::Cinder::Volume": Volume,
        "OS::Cinder::VolumeAttachment": VolumeAttachment,
        "OS::Cinder::VolumeType": VolumeType,
        "OS::Neutron::ExtraRouteSet": ExtraRouteSet,
        "OS::Neutron::FloatingIP": FloatingIP,
        "OS::Neutron::FloatingIPAssociation": FloatingIPAssociation,
        "OS::Neutron::Net": Net,
        "OS::Neutron::Port": Port,
        "OS::Neutron::Router": Router,
        "OS::Neutron::RouterInterface": RouterInterface,
        "OS::Neutron::SecurityGroup": SecurityGroup,
        "OS::Neutron::SecurityGroupRule": SecurityGroupRule,
        "OS::Neutron::Subnet": Subnet,
        "OS::Neutron::Trunk": Trunk,
        "OS::Nova::Flavor": Flavor,
        "OS::Nova::KeyPair": KeyPair,
        "OS::Nova::Server": Server,
        "OS::Nova::ServerGroup": ServerGroup,
        "OS::Octavia::HealthMonitor": HealthMonitor,
        "OS::Octavia::Listener": Listener,
        "OS::Octavia::LoadBalancer": LoadBalancer,
        "OS::Octavia::Pool": Pool,
        "OS::Octavia::PoolMember": PoolMember,
        "OS::Swift::Container": Container,
    }


def constraint_mapping() -> dict[str, type[BaseCustomConstraint]]:
    """Return the custom constraints (also published in ``plugsim.constraints``)."""
    return constraints.constraint_mapping()
