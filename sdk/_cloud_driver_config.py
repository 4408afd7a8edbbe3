"""Configuration lookup for cloud driver modules (private; import from :mod:`sdk.cloud_driver`).

salt-cloud keeps its configuration in ``__opts__``:

* ``opts["providers"]`` maps a provider *alias* to ``{driver_name: settings}``;
* ``opts["profiles"]`` maps a profile name to its settings (``provider: alias[:driver]``,
  ``size``, ``image``, ``location`` ...);
* any other key is a global setting (``query.selection``, ``deploy`` ...).

A VM description ``vm_`` names its profile (``vm_["profile"]``) and its
provider as ``alias:driver`` (``vm_["driver"]``). A value is looked up from the
least specific place to the most specific one: global, provider, profile, and
finally ``vm_`` itself; a more specific value replaces a less specific one,
except that two mappings are merged key by key.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

#: Setting names that always hold secrets (compared case-insensitively, ``-`` as ``_``).
SECRET_KEY_NAMES = frozenset(
    {
        "password",
        "passwd",
        "ssh_password",
        "win_password",
        "private_key",
        "ssh_private_key",
        "token",
        "api_key",
        "apikey",
        "api_token",
        "access_token",
        "personal_access_token",
        "secret",
        "secret_key",
        "client_secret",
        "key_filename",
        "ssh_keyfile",
        "private_key_file",
        "key_file",
        "auth_token",
    }
)

#: Word parts that mark a setting name as secret (``db_password`` -> ``password``).
SECRET_KEY_PARTS = ("password", "passwd", "secret", "token", "private", "apikey", "api_key")

#: The provider setting where a provider config marks additional keys secret.
SECRET_KEYS_SETTING = "secret_keys"


def is_secret_key(key: Any) -> bool:
    """Return True when a setting called *key* holds secret material."""
    if not isinstance(key, str):
        return False
    norm = key.lower().replace("-", "_")
    return norm in SECRET_KEY_NAMES or any(part in norm for part in SECRET_KEY_PARTS)


def split_provider(provider: Any) -> tuple[str, str | None]:
    """Split ``"alias:driver"`` into ``("alias", "driver")``; a bare alias gives ``(alias, None)``."""
    text = str(provider or "")
    alias, sep, driver = text.partition(":")
    return alias, (driver if sep and driver else None)


def provider_settings(opts: Mapping[str, Any], provider: Any) -> dict[str, Any] | None:
    """Return the settings of *provider* (``alias`` or ``alias:driver``), or None."""
    alias, driver = split_provider(provider)
    entry = (opts.get("providers") or {}).get(alias)
    if not isinstance(entry, Mapping) or not entry:
        return None
    if driver is None:
        driver = sorted(entry)[0]
    conf = entry.get(driver)
    return conf if isinstance(conf, dict) else None


def _merge(lower: Any, higher: Any) -> Any:
    if isinstance(lower, Mapping) and isinstance(higher, Mapping):
        merged = copy.deepcopy(dict(lower))
        merged.update(copy.deepcopy(dict(higher)))
        return merged
    return copy.deepcopy(higher)


def get_cloud_config_value(
    name: str,
    vm_: Mapping[str, Any] | None,
    opts: Mapping[str, Any],
    default: Any = None,
    search_global: bool = True,
) -> Any:
    """Return the setting *name* for *vm_*: global < provider < profile < ``vm_``.

    ``default`` is returned when no level defines the setting. With
    ``search_global=False`` the global settings in *opts* are not consulted.
    Mapping values found at several levels are merged, the more specific
    level winning key by key.
    """
    found = False
    value: Any = None
    levels: list[Mapping[str, Any]] = []
    if search_global:
        levels.append(opts)
    if vm_:
        conf = provider_settings(opts, vm_.get("driver") or vm_.get("provider"))
        if conf is not None:
            levels.append(conf)
        profile = (opts.get("profiles") or {}).get(vm_.get("profile"))
        if isinstance(profile, Mapping):
            levels.append(profile)
        levels.append(vm_)
    for level in levels:
        if name in level:
            value = _merge(value, level[name]) if found else copy.deepcopy(level[name])
            found = True
    return value if found else default


def missing_settings(
    conf: Mapping[str, Any],
    required_keys: Iterable[str],
    aliases: Mapping[str, Iterable[str]] | None = None,
) -> list[str]:
    """Return the names in *required_keys* that *conf* lacks (an alias also satisfies a key)."""
    missing = []
    for key in required_keys:
        names = [key, *((aliases or {}).get(key, ()))]
        if not any(conf.get(n) not in (None, "") for n in names):
            missing.append(key)
    return missing


def candidate_providers(opts: Mapping[str, Any], provider: str) -> list[tuple[str, str]]:
    """Return the ``(alias, driver)`` pairs that *provider* designates, sorted.

    ``alias:driver`` designates exactly that entry; a bare name designates
    every entry whose driver has that name.
    """
    providers = opts.get("providers") or {}
    alias, driver = split_provider(provider)
    if driver is not None:
        entry = providers.get(alias)
        return [(alias, driver)] if isinstance(entry, Mapping) and driver in entry else []
    return sorted(
        (a, d)
        for a, entry in providers.items()
        if isinstance(entry, Mapping)
        for d in entry
        if d == alias
    )
