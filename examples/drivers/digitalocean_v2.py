"""An example salt-cloud driver for the DigitalOcean API v2, written with plain ``requests``.

It needs no Salt and no libcloud: configuration lookup, errors and the
``cloud.*`` helpers come from :mod:`sdk.cloud_driver` and ``__utils__``.
Under plugsim it talks to the fake DigitalOcean dialect; it is written the
way a driver for the real API would be (pagination, ``Retry-After`` on 429,
retries on 5xx and timeouts, waiting for the public address).

providers.yaml::

    my-do:
      driver: digitalocean
      personal_access_token: plugsim-digitalocean-token
      # api_url: https://api.digitalocean.com/v2     (default)

profiles.yaml::

    do-small:
      provider: my-do
      size: s-1vcpu-2gb
      image: ubuntu-22-04-x64
      location: nyc3
"""

# __opts__, __utils__ and __active_provider_name__ are injected by the loader.
# ruff: noqa: F821

from __future__ import annotations

import logging
import time

import requests

from sdk import cloud_driver as config
from sdk.cloud_driver import SaltCloudNotFound, SaltCloudSystemExit

log = logging.getLogger(__name__)

__virtualname__ = "digitalocean"

DEFAULT_API = "https://api.digitalocean.com/v2"
RETRIES = 8
REQUEST_TIMEOUT = 30


def __virtual__():
    """Load only when a provider for this driver has its token configured."""
    if get_configured_provider() is False:
        return False, "no provider of driver 'digitalocean' has a personal_access_token"
    return __virtualname__


def get_configured_provider():
    """Return the provider settings when the token is set, else False."""
    return config.is_provider_configured(
        __opts__, __active_provider_name__ or __virtualname__, ("personal_access_token",)
    )


# --- the API client -------------------------------------------------------------------------


def _provider():
    conf = get_configured_provider()
    if not conf:
        raise config.SaltCloudConfigError("the DigitalOcean provider has no personal_access_token")
    return conf


def _url(path):
    base = str(_provider().get("api_url") or DEFAULT_API).rstrip("/")
    return path if path.startswith("http") else f"{base}/{path.lstrip('/')}"


def _error_message(resp):
    try:
        body = resp.json()
    except ValueError:
        return resp.text or resp.reason
    return body.get("message") or str(body)


def query(method, path, data=None, params=None, retry_check=None):
    """Call the API; retry 429 (after Retry-After), 5xx and timeouts; return the JSON body.

    ``retry_check`` is called before a retry of a request whose outcome is
    unknown (a timeout): when it returns a value, that value is the result
    (a create that did happen is not repeated).
    """
    headers = {
        "Authorization": f"Bearer {_provider()['personal_access_token']}",
        "Content-Type": "application/json",
    }
    delay = 2.0
    last = ""
    for _attempt in range(RETRIES):
        try:
            resp = requests.request(
                method,
                _url(path),
                json=data,
                params=params,
                headers=headers,
                timeout=REQUEST_TIMEOUT,
            )
        except requests.exceptions.Timeout as ex:
            last = f"{type(ex).__name__}: {ex}"
            time.sleep(delay)
            delay = min(delay * 2, 60)
            if retry_check is not None:
                found = retry_check()
                if found is not None:
                    return found
            continue
        if resp.status_code == 429:
            last = "429 too many requests"
            time.sleep(float(resp.headers.get("Retry-After") or delay))
            continue
        if resp.status_code >= 500:
            last = f"{resp.status_code} {_error_message(resp)}"
            time.sleep(delay)
            delay = min(delay * 2, 60)
            continue
        if resp.status_code == 404:
            raise SaltCloudNotFound(f"{method} {path}: {_error_message(resp)}")
        if resp.status_code >= 400:
            raise SaltCloudSystemExit(
                f"{method} {path} failed ({resp.status_code}): {_error_message(resp)}"
            )
        return resp.json() if resp.content else {}
    raise SaltCloudSystemExit(f"{method} {path} still failing after {RETRIES} attempts: {last}")


def _all(path, key):
    items, url = [], path
    while url:
        body = query("GET", url, params=None if "?" in url else {"per_page": 200})
        items.extend(body.get(key, []))
        url = ((body.get("links") or {}).get("pages") or {}).get("next")
    return items


# --- node descriptions ------------------------------------------------------------------------


def _ips(droplet, kind):
    return [
        n["ip_address"] for n in droplet.get("networks", {}).get("v4", []) if n.get("type") == kind
    ]


def _image_name(droplet):
    image = droplet.get("image") or {}
    return str(image.get("slug") or image.get("name") or image.get("id") or "")


def _brief(droplet):
    return {
        "id": str(droplet["id"]),
        "image": _image_name(droplet),
        "size": str(droplet.get("size_slug") or ""),
        "state": str(droplet.get("status") or ""),
        "private_ips": _ips(droplet, "private"),
        "public_ips": _ips(droplet, "public"),
    }


def _droplets():
    return {d["name"]: d for d in _all("droplets", "droplets")}


def _droplet(name):
    droplet = _droplets().get(name)
    if droplet is None:
        raise SaltCloudNotFound(f"no droplet named {name!r}")
    return droplet


# --- listings ---------------------------------------------------------------------------------


def list_nodes(call=None):
    """Return every droplet with id, image, size, state, private_ips and public_ips."""
    if call == "action":
        raise SaltCloudSystemExit("The list_nodes function must be called with -f or --function.")
    return {name: _brief(d) for name, d in sorted(_droplets().items())}


def list_nodes_full(call=None):
    """Return everything known about every droplet (the list_nodes fields included)."""
    if call == "action":
        raise SaltCloudSystemExit(
            "The list_nodes_full function must be called with -f or --function."
        )
    return {name: {**d, **_brief(d)} for name, d in sorted(_droplets().items())}


def list_nodes_select(call=None):
    """Return the fields named in query.selection for every droplet."""
    return __utils__["cloud.list_nodes_select"](
        list_nodes_full("function"), __opts__.get("query.selection"), call
    )


def show_instance(name, call=None):
    """Show one droplet (an action: ``-a show_instance NAME``)."""
    if call != "action":
        raise SaltCloudSystemExit("The show_instance action must be called with -a or --action.")
    droplet = _droplet(name)
    return {**droplet, **_brief(droplet)}


def avail_images(call=None):
    """Return the images, by slug (private images by name)."""
    if call == "action":
        raise SaltCloudSystemExit("The avail_images function must be called with -f or --function.")
    return {str(i.get("slug") or i["name"]): i for i in _all("images", "images")}


def avail_sizes(call=None):
    """Return the sizes, by slug."""
    if call == "action":
        raise SaltCloudSystemExit("The avail_sizes function must be called with -f or --function.")
    return {s["slug"]: s for s in _all("sizes", "sizes")}


def avail_locations(call=None):
    """Return the regions, by slug."""
    if call == "action":
        raise SaltCloudSystemExit(
            "The avail_locations function must be called with -f or --function."
        )
    return {r["slug"]: r for r in _all("regions", "regions")}


# --- create / destroy -------------------------------------------------------------------------


def _fire(name, kind, message, payload):
    __utils__["cloud.fire_event"](
        "event",
        message,
        f"salt/cloud/{name}/{kind}",
        args=payload,
        sock_dir=__opts__.get("sock_dir"),
        transport=__opts__.get("transport"),
    )


def _wait_for_public_ip(droplet_id):
    try:
        droplet = query("GET", f"droplets/{droplet_id}")["droplet"]
    except SaltCloudNotFound:
        return None  # not visible yet (eventual consistency)
    if droplet.get("status") != "active":
        return None
    public = _ips(droplet, "public")
    return (droplet, public[0]) if public else None


def create(vm_):
    """Create a droplet from a profile, wait for its public IP, deploy, describe it."""
    name = vm_["name"]
    _fire(
        name,
        "creating",
        "starting create",
        __utils__["cloud.filter_event"]("creating", vm_, ["name", "profile", "provider", "driver"]),
    )
    kwargs = {
        "name": name,
        "size": config.get_cloud_config_value("size", vm_, __opts__),
        "image": config.get_cloud_config_value("image", vm_, __opts__),
        "region": config.get_cloud_config_value("location", vm_, __opts__, default="nyc3"),
    }
    for key in ("ssh_keys", "tags", "private_networking", "vpc_uuid", "user_data"):
        value = config.get_cloud_config_value(key, vm_, __opts__, search_global=False)
        if value is not None:
            kwargs[key] = value
    missing = [k for k in ("size", "image") if not kwargs[k]]
    if missing:
        raise config.SaltCloudConfigError(
            f"profile {vm_.get('profile')!r} lacks {', '.join(missing)}"
        )
    _fire(
        name,
        "requesting",
        "requesting instance",
        {"kwargs": __utils__["cloud.filter_event"]("requesting", kwargs, list(kwargs))},
    )

    def already_created():
        found = _droplets().get(name)
        return {"droplet": found} if found else None

    created = query("POST", "droplets", data=kwargs, retry_check=already_created)["droplet"]
    timeout = config.get_cloud_config_value("wait_for_ip_timeout", vm_, __opts__, default=1800)
    try:
        droplet, ip = __utils__["cloud.wait_for_ip"](
            _wait_for_public_ip,
            update_args=(created["id"],),
            timeout=timeout,
            interval=config.get_cloud_config_value(
                "wait_for_ip_interval", vm_, __opts__, default=10
            ),
        )
    except Exception:
        log.error("droplet %s never got a public address; deleting it", name)
        _delete(created["id"])
        raise
    vm_["ssh_host"] = ip
    deployed = __utils__["cloud.bootstrap"](vm_, __opts__)
    _fire(
        name,
        "created",
        "created instance",
        __utils__["cloud.filter_event"]("created", vm_, ["name", "profile", "provider", "driver"]),
    )
    return {**droplet, **_brief(droplet), "deployed": deployed.get("deployed", False)}


def _delete(droplet_id):
    try:
        query("DELETE", f"droplets/{droplet_id}")
    except SaltCloudNotFound:
        return False
    return True


def destroy(name, call=None):
    """Destroy the droplet called *name* (``-d NAME``)."""
    if call == "function":
        raise SaltCloudSystemExit(
            "The destroy action must be called with -d, --destroy, -a or --action."
        )
    _fire(name, "destroying", "destroying instance", {"name": name})
    droplet = _droplet(name)
    deleted = _delete(droplet["id"])
    _fire(name, "destroyed", "destroyed instance", {"name": name})
    return {"id": str(droplet["id"]), "deleted": deleted}


# --- actions and functions ------------------------------------------------------------------


def reboot(name, call=None):
    """Reboot a droplet (``-a reboot NAME``)."""
    if call != "action":
        raise SaltCloudSystemExit("The reboot action must be called with -a or --action.")
    droplet = _droplet(name)
    action = query("POST", f"droplets/{droplet['id']}/actions", data={"type": "reboot"})["action"]
    return {"action": action["type"], "status": action["status"]}


def show_image(kwargs=None, call=None):
    """Describe one image (``-f show_image PROVIDER image=<slug or id>``)."""
    if call != "function":
        raise SaltCloudSystemExit("The show_image function must be called with -f or --function.")
    if not kwargs or "image" not in kwargs:
        raise SaltCloudSystemExit("show_image needs image=<slug or id>")
    return query("GET", f"images/{kwargs['image']}")["image"]


def list_keypairs(call=None):
    """Return the account's SSH keys by name (``-f list_keypairs PROVIDER``)."""
    if call != "function":
        raise SaltCloudSystemExit(
            "The list_keypairs function must be called with -f or --function."
        )
    return {k["name"]: k for k in _all("account/keys", "ssh_keys")}
