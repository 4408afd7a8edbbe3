"""The provider dialects on loopback: ``plugsim serve --provider`` mounts and its config file.

Each provider is served under its own path of the one loopback server, its
base path kept below it: DigitalOcean's ``/v2`` at ``{base}/digitalocean/v2``,
Linode's ``/v4`` at ``{base}/linode/v4``, Hetzner's ``/v1`` at
``{base}/hetzner/v1``, Vultr's ``/v1`` at ``{base}/vultr/v1``, CloudStack's
``/client/api`` at ``{base}/cloudstack/client/api``. A provider's own client
takes that URL as its endpoint (``LinodeClient(token, base_url=...)``,
``hcloud.Client(token, api_endpoint=...)``, ``pydo.Client(token, endpoint=...)``).

:func:`providers_config` is the document ``plugsim serve`` writes beside
``clouds.yaml`` (``providers.yaml``): per provider its URL, its token and the
environment variables the provider's own tools read.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from fake_clouds.rest.app import DialectApp, RestLog
from fake_clouds.rest.server import dialect_classes
from sdk import exception

#: Environment variables a provider's tools read: (token variable(s), URL variable).
_ENV: dict[str, tuple[tuple[str, ...], str | None]] = {
    "digitalocean": (("DIGITALOCEAN_TOKEN", "DIGITALOCEAN_ACCESS_TOKEN"), "DIGITALOCEAN_API_URL"),
    "linode": (("LINODE_TOKEN",), "LINODE_URL"),
    "hetzner": (("HCLOUD_TOKEN",), "HCLOUD_ENDPOINT"),
    "vultr": (("VULTR_API_KEY",), None),
    "cloudstack": (("CLOUDSTACK_API_KEY", "CLOUDSTACK_SECRET_KEY"), "CLOUDSTACK_API_URL"),
}


def provider_names(spec: str | Iterable[str] | None) -> list[str]:
    """The providers *spec* names (``all``/None: every dialect), in the order given.

    An unknown name is a ConfigurationError naming the known ones.
    """
    known = sorted(dialect_classes())
    if spec is None:
        return known
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    names = [n.strip() for n in items if n.strip()]
    if names == ["all"]:
        return known
    if names == ["none"]:
        return []
    for name in names:
        if name not in known:
            raise exception.ConfigurationError(
                f"--provider: unknown provider {name!r} (known: {', '.join(known)}, all, none)"
            )
    return list(dict.fromkeys(names))


def provider_apps(
    cloud: Any, base_url: str, names: Iterable[str], log: RestLog | None = None
) -> dict[str, DialectApp]:
    """One WSGI application per provider, keyed by the path segment it is mounted under."""
    classes = dialect_classes()
    shared = log if log is not None else RestLog()
    apps = {}
    for name in names:
        cls = classes[name]
        own_path = urlsplit(cls.default_base_url).path
        dialect = cls(cloud, f"{base_url.rstrip('/')}/{name}{own_path}", cls.default_token)
        apps[name] = DialectApp(dialect, shared)
    return apps


def providers_config(apps: dict[str, DialectApp]) -> dict[str, Any]:
    """The ``providers.yaml`` document: each provider's URL, token and environment."""
    out: dict[str, Any] = {}
    for name, app in apps.items():
        dialect = app.dialect
        entry: dict[str, Any] = {"url": dialect.base_url, "token": dialect.token}
        tokens, url_var = _ENV.get(name, ((), None))
        env = {var: dialect.token for var in tokens}
        if url_var is not None:
            env[url_var] = dialect.base_url
        if env:
            entry["env"] = env
        out[name] = entry
    return {"providers": out}


def write_providers_config(path: str | Path, apps: dict[str, DialectApp]) -> Path:
    """Write :func:`providers_config` of *apps* to *path*; return it."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(providers_config(apps), sort_keys=True))
    return target
