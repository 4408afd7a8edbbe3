"""Deployment and secrets for cloud driver modules (private; see :mod:`sdk.cloud_driver`).

:func:`bootstrap` turns a VM description into deploy settings, fires the
``deploying`` event with the secrets removed, and hands the settings to the
runtime's deploy hook (the plugsim harness simulates it in virtual time).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from sdk._cloud_driver_config import (
    SECRET_KEYS_SETTING,
    get_cloud_config_value,
    is_secret_key,
    provider_settings,
)
from sdk._cloud_driver_runtime import SaltCloudConfigError, current_runtime

#: Secret values shorter than this are not searched for (too many false hits).
MIN_SECRET_LENGTH = 4


def _walk_secrets(conf: Mapping[str, Any], marked: set[str], out: set[str]) -> None:
    for key, value in conf.items():
        if isinstance(value, Mapping):
            _walk_secrets(value, marked, out)
            continue
        if not (is_secret_key(key) or key in marked):
            continue
        if isinstance(value, str | int) and not isinstance(value, bool):
            text = str(value)
            if len(text) >= MIN_SECRET_LENGTH:
                out.add(text)
            if isinstance(value, str) and os.path.isfile(os.path.expanduser(value)):
                try:
                    with open(os.path.expanduser(value), encoding="utf-8") as fh:
                        content = fh.read().strip()
                except (OSError, UnicodeDecodeError):
                    continue
                for line in content.splitlines():
                    if len(line.strip()) >= 16 and not line.startswith("-----"):
                        out.add(line.strip())


def secret_values(*configs: Mapping[str, Any] | None) -> list[str]:
    """Return the secret values found in *configs*, sorted longest first.

    A value is secret when its key is a secret name (password, token, private
    key ...) or is listed in the config's ``secret_keys``. A secret that names
    an existing file (an SSH key file) also contributes the file's lines.
    """
    out: set[str] = set()
    for conf in configs:
        if not isinstance(conf, Mapping):
            continue
        marked = conf.get(SECRET_KEYS_SETTING) or []
        marked_set = {str(k) for k in marked} if isinstance(marked, list | tuple) else set()
        _walk_secrets(conf, marked_set, out)
    return sorted(out, key=lambda s: (-len(s), s))


def strip_secrets(
    kwargs: Mapping[str, Any], secrets: Iterable[str] = (), marked: Iterable[str] = ()
) -> dict[str, Any]:
    """Return *kwargs* without secret keys, marked keys and values holding a secret."""
    marked_set = set(marked)
    secret_list = [s for s in secrets if s]
    out: dict[str, Any] = {}
    for key, value in kwargs.items():
        if is_secret_key(key) or key in marked_set:
            continue
        if key in ("public_key", "ssh_public_key", "minion_pem", "minion_pub", "master_pub"):
            continue
        if isinstance(value, Mapping):
            out[key] = strip_secrets(value, secret_list, marked_set)
            continue
        if isinstance(value, str) and any(s in value for s in secret_list):
            continue
        out[key] = value
    return out


def deploy_settings(vm_: Mapping[str, Any], opts: Mapping[str, Any]) -> dict[str, Any]:
    """Return the deploy settings of *vm_* (host, port, user, credentials, retries ...)."""

    def value(name: str, default: Any = None) -> Any:
        return get_cloud_config_value(name, vm_, opts, default=default)

    host = vm_.get("ssh_host") or value("ssh_host")
    if not host:
        raise SaltCloudConfigError(
            f"cannot deploy {vm_.get('name')!r}: the VM description has no 'ssh_host' "
            "(set vm_['ssh_host'] to the address the driver waited for)"
        )
    windows = bool(value("windows", False) or value("win_installer"))
    settings: dict[str, Any] = {
        "host": host,
        "name": vm_.get("name"),
        "windows": windows,
        "timeout": value("ssh_timeout", 900) if not windows else value("win_deploy_timeout", 900),
        "script": value("script", "bootstrap-salt"),
        "tmp_dir": value("tmp_dir", "/tmp/.saltcloud"),
        "sudo": value("sudo", False),
    }
    if windows:
        settings.update(
            port=value("smb_port", 445),
            use_winrm=bool(value("use_winrm", False)),
            winrm_port=value("winrm_port", 5986),
            username=value("win_username", "Administrator"),
            password=value("win_password", ""),
            win_installer=value("win_installer"),
            win_deploy_auth_retries=int(value("win_deploy_auth_retries", 10)),
            win_deploy_auth_retry_delay=float(value("win_deploy_auth_retry_delay", 1)),
        )
    else:
        settings.update(
            port=value("ssh_port", 22),
            username=value("ssh_username", "root"),
            password=value("ssh_password", value("password")),
            key_filename=value("ssh_keyfile", value("private_key")),
            ssh_gateway=value("ssh_gateway"),
        )
    return settings


def bootstrap(vm_: Mapping[str, Any], opts: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Deploy to a new node: fire ``salt/cloud/<name>/deploying`` and run the deploy hook.

    Returns ``{"deployed": bool, "method": "ssh"|"winrm"|"smb", "host": ...,
    "deploy_kwargs": <the event's kwargs>, "result": <hook result>}``. With
    ``deploy: False`` in the configuration nothing is fired and ``deployed`` is
    False.
    """
    opts = opts or {}
    name = vm_.get("name")
    if not get_cloud_config_value("deploy", vm_, opts, default=True):
        return {"deployed": False, "reason": "deploy is disabled in the configuration"}
    settings = deploy_settings(vm_, opts)
    provider_conf = provider_settings(opts, vm_.get("driver") or vm_.get("provider")) or {}
    profile_conf = (opts.get("profiles") or {}).get(vm_.get("profile")) or {}
    marked = provider_conf.get(SECRET_KEYS_SETTING) or []
    secrets = secret_values(provider_conf, profile_conf, vm_)
    event_kwargs = strip_secrets(settings, secrets, marked if isinstance(marked, list) else [])
    runtime = current_runtime()
    runtime.bus.fire(
        f"salt/cloud/{name}/deploying", {"kwargs": event_kwargs}, message="starting deploy"
    )
    if settings["windows"]:
        method = "winrm" if settings.get("use_winrm") else "smb"
    else:
        method = "ssh"
    result = runtime.deploy(method, settings)
    return {
        "deployed": bool(result.get("deployed", True)),
        "method": method,
        "host": settings["host"],
        "deploy_kwargs": event_kwargs,
        "result": result,
    }


def deploy_script(host: str, **kwargs: Any) -> dict[str, Any]:
    """Deploy to a Linux/Unix *host* over SSH through the runtime's deploy hook."""
    return current_runtime().deploy("ssh", {"host": host, "port": 22, **kwargs})


def deploy_windows(host: str, **kwargs: Any) -> dict[str, Any]:
    """Deploy to a Windows *host* (SMB, or WinRM with ``use_winrm=True``) through the hook."""
    method = "winrm" if kwargs.get("use_winrm") else "smb"
    return current_runtime().deploy(method, {"host": host, "windows": True, **kwargs})
