"""What Heat's neutron plug-ins read of Heat's neutron client plug-in, over the fake network.

Heat's network plug-ins name neutron's resource kinds through the client
plug-in (``client_plugin().RES_TYPE_NETWORK``), turn a name into an id with
``find_resourceid_by_name_or_id`` (usually as the finder of a translation
``RESOLVE`` rule) and ask ``has_extension(alias)`` before sending optional
attributes. :class:`NeutronClientPlugin` answers these over the fake cloud's
python-neutronclient-like client (``list_<plural>`` / ``show_<kind>``), as
Heat's does over neutron's API: an id wins over a name, a name must be unique,
and an extension exists only if the service lists it.
"""

from __future__ import annotations

from typing import Any

from sdk import exception
from simulator.heat_compat.engine_api import HeatClientPlugin
from simulator.heat_compat.exceptions import PhysicalResourceNameAmbiguity

#: Heat's names of neutron's resource kinds, and the kinds they stand for.
RES_TYPES = {
    "RES_TYPE_NETWORK": "network",
    "RES_TYPE_SUBNET": "subnet",
    "RES_TYPE_ROUTER": "router",
    "RES_TYPE_PORT": "port",
    "RES_TYPE_SUBNET_POOL": "subnetpool",
    "RES_TYPE_ADDRESS_SCOPE": "address_scope",
    "RES_TYPE_SECURITY_GROUP": "security_group",
    "RES_TYPE_QOS_POLICY": "policy",
    "RES_TYPE_LOADBALANCER": "loadbalancer",
    "RES_TYPE_LB_LISTENER": "listener",
    "RES_TYPE_LB_POOL": "pool",
    "RES_TYPE_LB_L7POLICY": "l7policy",
}

#: Where a kind's records are listed when its API name differs from the kind.
_API_KINDS = {"policy": "qos_policy", "loadbalancer": "lbaas_loadbalancer"}
#: The key of a listing's body when python-neutronclient's differs from the plural.
_LIST_KEYS = {"qos_policy": "policies"}
#: The URL paths of the extension kinds Heat's sfc and taas plug-ins address by path.
EXT_RESOURCE_PATHS = {
    "port_pair": "/sfc/port_pairs",
    "port_pair_group": "/sfc/port_pair_groups",
    "flow_classifier": "/sfc/flow_classifiers",
    "port_chain": "/sfc/port_chains",
    "tap_service": "/taas/tap_services",
    "tap_flow": "/taas/tap_flows",
}


def _plural(kind: str) -> str:
    if kind.endswith("policy"):
        return kind[: -len("policy")] + "policies"
    return kind + "s"


class NeutronClientPlugin(HeatClientPlugin):
    """Heat's neutron client plug-in surface over one of plugsim's client plug-ins."""

    locals().update(RES_TYPES)

    def _records(self, kind: str, cmd_resource: str | None = None) -> list[dict[str, Any]]:
        api = cmd_resource or _API_KINDS.get(kind, kind)
        client = self.client()
        lister = getattr(client, f"list_{_plural(api)}")
        return list(lister().get(_LIST_KEYS.get(api, _plural(api)), []))

    def find_resourceid_by_name_or_id(
        self, resource: str, name_or_id: str, cmd_resource: str | None = None
    ) -> str:
        """The id of the *resource* kind record whose id or (unique) name is *name_or_id*.

        :raises sdk.exception.EntityNotFound: none has that id or name.
        :raises PhysicalResourceNameAmbiguity: several share the name.
        """
        records = self._records(resource, cmd_resource)
        for record in records:
            if record.get("id") == name_or_id:
                return str(name_or_id)
        named = [r for r in records if r.get("name") == name_or_id]
        if len(named) > 1:
            raise PhysicalResourceNameAmbiguity(name=name_or_id)
        if not named:
            raise exception.EntityNotFound(entity=resource, name=name_or_id)
        return str(named[0]["id"])

    def _resolve(self, props: dict[str, Any], key: str, id_key: str, key_type: str) -> Any:
        """Move a name under *key* to an id under *id_key*; return the id."""
        if props.get(key):
            props[id_key] = self.find_resourceid_by_name_or_id(key_type, props.pop(key))
        return props[id_key]

    def resolve_router(self, props: dict[str, Any], router_key: str, router_id_key: str) -> Any:
        """Heat's ``resolve_router``: the router's name under *router_key* becomes its id."""
        return self._resolve(props, router_key, router_id_key, "router")

    def resolve_pool(self, props: dict[str, Any], pool_key: str, pool_id_key: str) -> Any:
        """Heat's ``resolve_pool``: the pool's name under *pool_key* becomes its id."""
        return self._resolve(props, pool_key, pool_id_key, "pool")

    def network_id_from_subnet_id(self, subnet_id: str) -> str:
        """The network a subnet belongs to."""
        return str(self.client().show_subnet(subnet_id)["subnet"]["network_id"])

    def get_qos_policy_id(self, policy: str) -> str:
        """The id of a QoS policy given by name or id."""
        return self.find_resourceid_by_name_or_id("policy", policy)

    def get_secgroup_uuids(self, security_groups: list[str]) -> list[str]:
        """The ids of security groups given by name or id (a name must be unique)."""
        return [self.find_resourceid_by_name_or_id("security_group", sg) for sg in security_groups]

    def has_extension(self, alias: str) -> bool:
        """True when the fake network service lists the API extension *alias*."""
        client = self.client()
        try:
            lister = client.list_extensions
        except AttributeError:
            return False
        return any(ext.get("alias") == alias for ext in lister().get("extensions", []))

    # --- the extension kinds addressed by path (networking-sfc, tap-as-a-service) ----------

    def _resolve_resource_path(self, resource: str) -> str:
        """The URL path of the extension kind *resource* (``/sfc/port_pairs`` ...)."""
        try:
            return EXT_RESOURCE_PATHS[resource]
        except KeyError:
            raise exception.EntityNotFound(entity="Extension resource", name=resource) from None

    def create_ext_resource(self, resource: str, props: dict[str, Any]) -> dict[str, Any]:
        """Create an extension object; return its record."""
        path = self._resolve_resource_path(resource)
        return dict(self.client().create_ext(path, {resource: props})[resource])

    def update_ext_resource(
        self, resource: str, prop_diff: dict[str, Any], resource_id: str
    ) -> Any:
        """Change an extension object; return the service's answer."""
        path = self._resolve_resource_path(resource)
        return self.client().update_ext(path + "/%s", resource_id, {resource: prop_diff})

    def delete_ext_resource(self, resource: str, resource_id: str) -> Any:
        """Delete an extension object."""
        path = self._resolve_resource_path(resource)
        return self.client().delete_ext(path + "/%s", resource_id)

    def show_ext_resource(self, resource: str, resource_id: str) -> dict[str, Any]:
        """The record of one extension object."""
        path = self._resolve_resource_path(resource)
        return dict(self.client().show_ext(path + "/%s", resource_id)[resource])

    def check_ext_resource_status(self, resource: str, resource_id: str) -> bool:
        """True once the object is ``ACTIVE``; ``ResourceInError`` in ``ERROR`` (Heat's check)."""
        status = self.show_ext_resource(resource, resource_id)["status"]
        if status == "ERROR":
            raise exception.ResourceInError(resource_status=status)
        return bool(status == "ACTIVE")

    def resolve_ext_resource(self, resource: str, name_or_id: str) -> str:
        """The id of the extension object whose id or (unique) name is *name_or_id*.

        :raises sdk.exception.NotFound: none has that id or name.
        :raises PhysicalResourceNameAmbiguity: several share the name.
        """
        path = self._resolve_resource_path(resource)
        client = self.client()
        try:
            return str(client.show_ext(path + "/%s", name_or_id)[resource]["id"])
        except exception.NotFound:
            records = client.list_ext(collection=resource + "s", path=path, retrieve_all=True)
        named = [r["id"] for r in records[resource + "s"] if r.get("name") == name_or_id]
        if len(named) > 1:
            raise PhysicalResourceNameAmbiguity(name=name_or_id)
        if not named:
            raise exception.NotFound(f"Unable to find {resource} with name or id '{name_or_id}'")
        return str(named[0])


__all__ = ["EXT_RESOURCE_PATHS", "RES_TYPES", "NeutronClientPlugin"]
