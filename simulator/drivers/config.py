"""salt-cloud style configuration: providers, profiles and global settings.

``providers.yaml`` maps a provider *alias* to its settings, one of which is
``driver`` (the driver module's name)::

    my-do:
      driver: digitalocean
      personal_access_token: ...

``profiles.yaml`` maps a profile name to VM settings; ``provider`` names the
alias (optionally ``alias:driver``) and ``extends`` inherits another profile::

    small-web:
      provider: my-do
      size: s-1vcpu-1gb
      image: ubuntu-22-04-x64
      location: nyc3

Every error names the file and the key (``providers.yaml: my-do.driver: ...``).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from sdk.cloud_driver import split_provider
from sdk.exception import ConfigurationError

#: ``query.selection`` used when the global settings do not set one.
DEFAULT_SELECTION = ["id", "image", "size", "state"]


def _read_yaml(source: Any, label: str) -> tuple[Any, str]:
    if source is None:
        return {}, label
    if isinstance(source, Mapping):
        return copy.deepcopy(dict(source)), label
    path = os.fspath(source)
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as ex:
        raise ConfigurationError(f"{path}: cannot read the file: {ex.strerror or ex}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as ex:
        mark = getattr(ex, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(ex, "problem", None) or str(ex)
        raise ConfigurationError(f"{path}: invalid YAML{where}: {problem}") from None
    return ({} if data is None else data), path


@dataclass
class CloudConfig:
    """Parsed providers, profiles and global settings, with the files they came from."""

    providers: dict[str, dict[str, dict[str, Any]]]
    profiles: dict[str, dict[str, Any]]
    settings: dict[str, Any] = field(default_factory=dict)
    providers_file: str = "providers"
    profiles_file: str = "profiles"

    def aliases(self) -> list[str]:
        """Return the provider aliases, sorted."""
        return sorted(self.providers)

    def driver_of(self, alias: str) -> str:
        """Return the driver name configured for *alias*."""
        return sorted(self.providers[alias])[0]

    def provider_settings(self, alias: str) -> dict[str, Any]:
        """Return the settings of *alias* (the ``driver`` key included)."""
        return self.providers[alias][self.driver_of(alias)]

    def resolve_provider(self, ref: str, where: str) -> tuple[str, str]:
        """Return ``(alias, driver)`` for ``alias`` or ``alias:driver``; *where* names the key."""
        alias, driver = split_provider(ref)
        if alias not in self.providers:
            known = ", ".join(self.aliases()) or "none"
            raise ConfigurationError(f"{where}: unknown provider {alias!r} (known: {known})")
        actual = self.driver_of(alias)
        if driver is not None and driver != actual:
            raise ConfigurationError(
                f"{where}: provider {alias!r} uses driver {actual!r}, not {driver!r}"
            )
        return alias, actual

    def profile(self, name: str) -> dict[str, Any]:
        """Return the settings of profile *name* or fail naming the known ones."""
        if name not in self.profiles:
            known = ", ".join(sorted(self.profiles)) or "none"
            raise ConfigurationError(f"{self.profiles_file}: no profile {name!r} (known: {known})")
        return copy.deepcopy(self.profiles[name])

    def declared_keys(self) -> list[tuple[str, str | None]]:
        """Return ``(key name, ssh_key_file)`` of the SSH keys the configuration names, sorted.

        ``ssh_key_names`` (comma-separated, DigitalOcean's and Vultr's) and
        ``ssh_key_name`` (OpenStack's, DigitalOcean's older one) of every provider
        and of the profiles using it: keys the cloud account is said to hold.
        """
        found: dict[str, str | None] = {}
        for alias in self.aliases():
            provider = self.provider_settings(alias)
            layers = [provider]
            for profile in self.profiles.values():
                ref = profile.get("provider")
                if isinstance(ref, str) and split_provider(ref)[0] == alias:
                    layers.append(profile)
            for layer in layers:
                key_file = layer.get("ssh_key_file", provider.get("ssh_key_file"))
                names = [layer.get("ssh_key_name")]
                many = layer.get("ssh_key_names")
                names += many.split(",") if isinstance(many, str) else []
                for name in names:
                    if isinstance(name, str) and name.strip():
                        found.setdefault(
                            name.strip(), key_file if isinstance(key_file, str) else None
                        )
        return sorted(found.items())

    def opts(self) -> dict[str, Any]:
        """Return salt-cloud's ``__opts__`` for these settings."""
        opts: dict[str, Any] = {
            "query.selection": list(DEFAULT_SELECTION),
            "deploy": True,
            "sock_dir": "/var/run/salt/master",
            "transport": "zeromq",
            "cachedir": "/var/cache/salt/cloud",
            "update_cachedir": False,
            "minion": {},
            "filter_events": {},
        }
        opts.update(copy.deepcopy(self.settings))
        opts["providers"] = copy.deepcopy(self.providers)
        opts["profiles"] = copy.deepcopy(self.profiles)
        return opts

    def vm(self, profile: str, name: str) -> dict[str, Any]:
        """Return the ``vm_`` salt-cloud passes to ``create`` for *name* on *profile*."""
        vm_ = self.profile(profile)
        alias, driver = self.resolve_provider(
            vm_["provider"], f"{self.profiles_file}: {profile}.provider"
        )
        vm_.update(name=name, profile=profile, driver=f"{alias}:{driver}")
        vm_["provider"] = f"{alias}:{driver}"
        return vm_


def _parse_providers(data: Any, label: str) -> dict[str, dict[str, dict[str, Any]]]:
    if not isinstance(data, Mapping):
        raise ConfigurationError(
            f"{label}: expected a mapping of provider aliases to settings, "
            f"not {type(data).__name__}"
        )
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for alias in sorted(data, key=str):
        conf = data[alias]
        if not isinstance(alias, str) or not alias or ":" in alias:
            raise ConfigurationError(f"{label}: {alias!r}: a provider alias is a name without ':'")
        if not isinstance(conf, Mapping):
            raise ConfigurationError(
                f"{label}: {alias}: expected a mapping of settings with a 'driver' key, "
                f"not {type(conf).__name__}"
            )
        driver = conf.get("driver")
        if driver is None:
            raise ConfigurationError(
                f"{label}: {alias}.driver: missing (name the driver module, e.g. "
                "'driver: digitalocean')"
            )
        if not isinstance(driver, str) or not driver.strip():
            raise ConfigurationError(
                f"{label}: {alias}.driver: expected a driver name, not {driver!r}"
            )
        settings = copy.deepcopy(dict(conf))
        out[alias] = {driver: settings}
    return out


def _parse_profiles(data: Any, label: str) -> dict[str, dict[str, Any]]:
    if not isinstance(data, Mapping):
        raise ConfigurationError(
            f"{label}: expected a mapping of profile names to settings, not {type(data).__name__}"
        )
    raw: dict[str, dict[str, Any]] = {}
    for name in sorted(data, key=str):
        conf = data[name]
        if not isinstance(name, str) or not name:
            raise ConfigurationError(f"{label}: {name!r}: a profile name must be a string")
        if not isinstance(conf, Mapping):
            raise ConfigurationError(
                f"{label}: {name}: expected a mapping of settings, not {type(conf).__name__}"
            )
        raw[name] = copy.deepcopy(dict(conf))
    resolved: dict[str, dict[str, Any]] = {}

    def resolve(name: str, chain: tuple[str, ...]) -> dict[str, Any]:
        if name in resolved:
            return resolved[name]
        conf = raw[name]
        parent = conf.get("extends")
        if parent is not None:
            if parent not in raw:
                raise ConfigurationError(
                    f"{label}: {name}.extends: unknown profile {parent!r} "
                    f"(known: {', '.join(sorted(raw))})"
                )
            if parent in chain:
                cycle = " -> ".join([*chain, parent])
                raise ConfigurationError(
                    f"{label}: {name}.extends: profiles extend in a circle ({cycle})"
                )
            merged = copy.deepcopy(resolve(parent, (*chain, parent)))
            merged.update({k: v for k, v in conf.items() if k != "extends"})
            conf = merged
        resolved[name] = conf
        return conf

    for name in raw:
        resolve(name, (name,))
    return resolved


def load_cloud_config(
    providers: Any,
    profiles: Any = None,
    settings: Any = None,
) -> CloudConfig:
    """Parse providers, profiles and global settings (paths or mappings) into a CloudConfig.

    Raises :class:`sdk.exception.ConfigurationError` naming the file and key of
    the first problem: not a mapping, a provider without ``driver``, a profile
    without ``provider`` or naming an unknown alias, a circular ``extends``.
    """
    pdata, plabel = _read_yaml(providers, "providers")
    rdata, rlabel = _read_yaml(profiles, "profiles")
    sdata, slabel = _read_yaml(settings, "settings")
    if not isinstance(sdata, Mapping):
        raise ConfigurationError(f"{slabel}: expected a mapping of global settings")
    config = CloudConfig(
        _parse_providers(pdata, plabel),
        _parse_profiles(rdata, rlabel),
        copy.deepcopy(dict(sdata)),
        plabel,
        rlabel,
    )
    for name in sorted(config.profiles):
        conf = config.profiles[name]
        if "provider" not in conf:
            raise ConfigurationError(
                f"{rlabel}: {name}.provider: missing (name a provider alias from {plabel})"
            )
        if not isinstance(conf["provider"], str):
            raise ConfigurationError(
                f"{rlabel}: {name}.provider: expected a provider alias, not {conf['provider']!r}"
            )
        config.resolve_provider(conf["provider"], f"{rlabel}: {name}.provider")
    return config
