"""A salt-cloud style driver module for the DigitalOcean API v2, written with ``requests``.

Salt's loader (or plugsim's driver harness) injects ``__opts__``, ``__utils__``
and ``__active_provider_name__``. Under plugsim the HTTP calls reach the fake
DigitalOcean dialect, so the driver runs unmodified against seeded worlds.

providers.yaml::

    my-provider:
      driver: {{ cookiecutter.package_name }}
      personal_access_token: <token>

profiles.yaml::

    small:
      provider: my-provider
      size: s-1vcpu-2gb
      image: ubuntu-22-04-x64
      location: nyc3
"""

# ruff: noqa: F821  (the loader injects the dunder globals)

from __future__ import annotations

import time
from typing import Any

import requests
from sdk import cloud_driver as config
from sdk.cloud_driver import SaltCloudNotFound, SaltCloudSystemExit

__virtualname__ = "{{ cookiecutter.package_name }}"

API = "https://api.digitalocean.com/v2"
ATTEMPTS = 8
TIMEOUT = 30


def __virtual__():
    """Load only when a provider of this driver has a token."""
    if get_configured_provider() is False:
        return False, f"no provider of driver {__virtualname__!r} has a personal_access_token"
    return __virtualname__


def get_configured_provider():
    """The provider's settings when its token is set, else False."""
    return config.is_provider_configured(
        __opts__, __active_provider_name__ or __virtualname__, ("personal_access_token",)
    )


def _token() -> str:
    provider = get_configured_provider()
    if not provider:
        raise config.SaltCloudConfigError("the provider has no personal_access_token")
    return provider["personal_access_token"]


def query(method: str, path: str, data: Any = None, found: Any = None) -> dict[str, Any]:
    """Call the API and return its JSON; 429, 5xx and timeouts are retried with backoff.

    *found* is asked before repeating a request that timed out: a value it
    returns is the result (so a create that did happen is not made twice).
    """
    headers = {"Authorization": f"Bearer {_token()}"}
    delay, last = 2.0, ""
    for _ in range(ATTEMPTS):
        try:
            resp = requests.request(
                method, f"{API}/{path}", json=data, headers=headers, timeout=TIMEOUT
            )
        except requests.exceptions.Timeout as ex:
            last = f"timeout: {ex}"
            time.sleep(delay)
            delay = min(delay * 2, 60)
            result = found() if found is not None else None
            if result is not None:
                return result
            continue
        if resp.status_code == 429 or resp.status_code >= 500:
            last = f"{resp.status_code} {resp.text[:200]}"
            time.sleep(float(resp.headers.get("Retry-After") or delay))
            delay = min(delay * 2, 60)
            continue
        if resp.status_code == 404:
            raise SaltCloudNotFound(f"{method} {path}: not found")
        if resp.status_code >= 400:
            raise SaltCloudSystemExit(f"{method} {path} failed ({resp.status_code}): {resp.text}")
        return resp.json() if resp.content else {}
    raise SaltCloudSystemExit(f"{method} {path} still failing after {ATTEMPTS} attempts: {last}")


def _must_be_function(name: str, call: str | None) -> None:
    if call == "action":
        raise SaltCloudSystemExit(f"The {name} function must be called with -f or --function.")


def _brief(droplet: dict[str, Any]) -> dict[str, Any]:
    nets = droplet.get("networks", {}).get("v4", [])
    image = droplet.get("image") or {}
    return {
        "id": str(droplet["id"]),
        "image": str(image.get("slug") or image.get("name") or ""),
        "size": str(droplet.get("size_slug") or ""),
        "state": str(droplet.get("status") or ""),
        "private_ips": [n["ip_address"] for n in nets if n.get("type") == "private"],
        "public_ips": [n["ip_address"] for n in nets if n.get("type") == "public"],
    }


def _droplets() -> dict[str, dict[str, Any]]:
    body = query("GET", "droplets?per_page=200")
    return {d["name"]: d for d in body.get("droplets", [])}


def list_nodes(call=None):
    """Every droplet: id, image, size, state, private_ips, public_ips."""
    _must_be_function("list_nodes", call)
    return {name: _brief(d) for name, d in sorted(_droplets().items())}


def list_nodes_full(call=None):
    """Everything known about every droplet."""
    _must_be_function("list_nodes_full", call)
    return {name: {**d, **_brief(d)} for name, d in sorted(_droplets().items())}


def list_nodes_select(call=None):
    """The fields named by ``query.selection`` for every droplet."""
    return __utils__["cloud.list_nodes_select"](
        list_nodes_full("function"), __opts__.get("query.selection"), call
    )


def show_instance(name, call=None):
    """One droplet (``-a show_instance NAME``)."""
    if call != "action":
        raise SaltCloudSystemExit("The show_instance action must be called with -a or --action.")
    droplet = _droplets().get(name)
    if droplet is None:
        raise SaltCloudNotFound(f"no droplet named {name!r}")
    return {**droplet, **_brief(droplet)}


def avail_images(call=None):
    """The images by slug."""
    _must_be_function("avail_images", call)
    return {str(i.get("slug") or i["name"]): i for i in query("GET", "images")["images"]}


def avail_sizes(call=None):
    """The sizes by slug."""
    _must_be_function("avail_sizes", call)
    return {s["slug"]: s for s in query("GET", "sizes")["sizes"]}


def _fire(name: str, what: str, message: str, payload: dict[str, Any]) -> None:
    __utils__["cloud.fire_event"](
        "event",
        message,
        f"salt/cloud/{name}/{what}",
        args=payload,
        sock_dir=__opts__.get("sock_dir"),
        transport=__opts__.get("transport"),
    )


def _public_ip(droplet_id: Any) -> Any:
    try:
        droplet = query("GET", f"droplets/{droplet_id}")["droplet"]
    except SaltCloudNotFound:
        return None  # not visible yet
    public = _brief(droplet)["public_ips"]
    return (droplet, public[0]) if droplet.get("status") == "active" and public else None


def _delete(droplet_id: Any) -> bool:
    try:
        query("DELETE", f"droplets/{droplet_id}")
    except SaltCloudNotFound:
        return False
    return True


def create(vm_):
    """Create a droplet from a profile, wait for its public address, deploy, describe it."""
    name = vm_["name"]
    keys = ["name", "profile", "provider", "driver"]
    _fire(
        name,
        "creating",
        "starting create",
        __utils__["cloud.filter_event"]("creating", vm_, keys),
    )
    kwargs = {
        "name": name,
        "size": config.get_cloud_config_value("size", vm_, __opts__),
        "image": config.get_cloud_config_value("image", vm_, __opts__),
        "region": config.get_cloud_config_value("location", vm_, __opts__, default="nyc3"),
    }
    missing = [k for k in ("size", "image") if not kwargs[k]]
    if missing:
        raise config.SaltCloudConfigError(
            f"profile {vm_.get('profile')!r} lacks {', '.join(missing)}"
        )
    event = {"kwargs": __utils__["cloud.filter_event"]("requesting", kwargs, list(kwargs))}
    _fire(name, "requesting", "requesting instance", event)

    def already_made():
        droplet = _droplets().get(name)
        return {"droplet": droplet} if droplet else None

    made = query("POST", "droplets", data=kwargs, found=already_made)["droplet"]
    try:
        droplet, ip = __utils__["cloud.wait_for_ip"](
            _public_ip,
            update_args=(made["id"],),
            timeout=config.get_cloud_config_value(
                "wait_for_ip_timeout", vm_, __opts__, default=1800
            ),
            interval=config.get_cloud_config_value(
                "wait_for_ip_interval", vm_, __opts__, default=10
            ),
        )
    except Exception:
        _delete(made["id"])
        raise
    vm_["ssh_host"] = ip
    deployed = __utils__["cloud.bootstrap"](vm_, __opts__)
    _fire(
        name,
        "created",
        "created instance",
        __utils__["cloud.filter_event"]("created", vm_, keys),
    )
    return {**droplet, **_brief(droplet), "deployed": deployed.get("deployed", False)}


def destroy(name, call=None):
    """Destroy the droplet called *name* (``-d NAME``)."""
    if call == "function":
        raise SaltCloudSystemExit(
            "The destroy action must be called with -d, --destroy, -a or --action."
        )
    _fire(name, "destroying", "destroying instance", {"name": name})
    droplet = _droplets().get(name)
    if droplet is None:
        raise SaltCloudNotFound(f"no droplet named {name!r}")
    deleted = _delete(droplet["id"])
    _fire(name, "destroyed", "destroyed instance", {"name": name})
    return {"id": str(droplet["id"]), "deleted": deleted}
