"""Keystone's domain-specific configuration on the wire (``/v3/domains/{id}/config``).

A domain may carry its own ``identity`` and ``ldap`` option groups (keystone
allows only these two). ``PUT`` creates the configuration (409 if there is
one), ``PATCH`` merges groups and options, ``DELETE`` removes it; a group or
an option can be read alone. The configuration is the domain entity's
``config`` attribute in the identity service.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, bad, route

_C = "/v3/domains/<did>/config"
_GROUPS = ("identity", "ldap")
_GET = ("identity", "domains.get", "domain")
_UPDATE = ("identity", "domains.update", "domain")


def _groups(config: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(config, dict) or not config:
        raise bad("Invalid input for field 'config': a non-empty object is required")
    for group, options in config.items():
        if group not in _GROUPS:
            raise ApiError(
                403, f"Group {group} is not supported for domain specific configurations"
            )
        if not isinstance(options, dict):
            raise bad(f"Invalid input for group '{group}': an object of options is required")
    return {g: dict(o) for g, o in config.items()}


class DomainConfigRoutes:
    """Domain configuration routes of :class:`~fake_clouds.openstack.identity.IdentityAPI`."""

    service: Any

    def _config(self, did: str) -> dict[str, dict[str, Any]]:
        config = self.service.get_domain(did).get("config")
        if not config:
            raise ApiError(404, f"Could not find domain config: {did}.")
        return dict(config)

    @route("PUT", _C, op=_UPDATE)
    def create_domain_config(self, req: ApiRequest, did: str) -> Reply:
        """Create a domain's configuration."""
        config = _groups(req.json().get("config"))
        if self.service.get_domain(did).get("config"):
            raise ApiError(409, f"Domain {did} already has a configuration.")
        self.service.update_domain(did, {"config": config})
        return Reply(201, {"config": config})

    @route("PATCH", _C, op=_UPDATE)
    def update_domain_config(self, req: ApiRequest, did: str) -> Reply:
        """Merge groups and options into a domain's configuration."""
        current = self._config(did)
        for group, options in _groups(req.json().get("config")).items():
            current[group] = {**current.get(group, {}), **options}
        self.service.update_domain(did, {"config": current})
        return Reply(200, {"config": current})

    @route("GET", _C, op=_GET)
    def get_domain_config(self, req: ApiRequest, did: str) -> Reply:
        """A domain's configuration."""
        return Reply(200, {"config": self._config(did)})

    @route("GET", f"{_C}/<group>", op=_GET)
    def get_domain_config_group(self, req: ApiRequest, did: str, group: str) -> Reply:
        """One option group of a domain's configuration."""
        config = self._config(did)
        if group not in config:
            raise ApiError(404, f"Could not find group {group} in the config of domain {did}.")
        return Reply(200, {"config": config[group]})

    @route("DELETE", _C, op=_UPDATE)
    def delete_domain_config(self, req: ApiRequest, did: str) -> Reply:
        """Remove a domain's configuration."""
        self._config(did)
        self.service.update_domain(did, {"config": None})
        return Reply(204)
