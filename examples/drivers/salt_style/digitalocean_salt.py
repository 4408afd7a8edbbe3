"""An example cloud driver written the way Salt's in-tree drivers are, for the DigitalOcean API v2.

It imports Salt's own modules (``salt.config``, ``salt.utils.cloud``,
``salt.exceptions``) and reaches the API through ``__utils__['http.query']``,
so it runs unmodified under salt-cloud - and under the plugsim harness in
real-Salt mode (``pip install 'plugsim[salt]'``), where ``http.query`` is
served by the fake DigitalOcean dialect, events go to the harness's bus and
deployment is simulated in virtual time.

providers.yaml::

    my-do:
      driver: digitalocean_salt
      personal_access_token: plugsim-digitalocean-token
      # api_root: https://api.digitalocean.com/v2     (default)

profiles.yaml::

    do-small:
      provider: my-do
      size: s-1vcpu-2gb
      image: ubuntu-22-04-x64
      location: nyc3
"""

# __opts__, __utils__ and __active_provider_name__ are injected by the loader.
# ruff: noqa: F821

import json
import logging
import time

import salt.config as config
import salt.utils.cloud
from salt.exceptions import (
    SaltCloudConfigError,
    SaltCloudExecutionFailure,
    SaltCloudExecutionTimeout,
    SaltCloudNotFound,
    SaltCloudSystemExit,
)

log = logging.getLogger(__name__)

__virtualname__ = "digitalocean_salt"

DEFAULT_API_ROOT = "https://api.digitalocean.com/v2"
ATTEMPTS = 8


def __virtual__():
    """Load only when a provider of this driver has a personal_access_token."""
    if get_configured_provider() is False:
        return False
    return __virtualname__


def _active_provider():
    try:
        return __active_provider_name__.value()
    except AttributeError:
        return __active_provider_name__


def get_configured_provider():
    """Return the provider's settings when its token is set, else False."""
    return config.is_provider_configured(
        __opts__, _active_provider() or __virtualname__, ("personal_access_token",)
    )


def _setting(name, default=None):
    return config.get_cloud_config_value(
        name, get_configured_provider(), __opts__, search_global=False, default=default
    )


# --- the API ------------------------------------------------------------------------------------


def query(path, method="GET", data=None, recover=None):
    """Call the API through ``__utils__['http.query']``; return the decoded body.

    429 is retried after Retry-After, 5xx and timeouts with a growing delay.
    *recover* is asked, before retrying a request whose outcome is unknown (a
    timeout), whether it happened after all; a non-None answer is the result.
    """
    url = f"{str(_setting('api_root', DEFAULT_API_ROOT)).rstrip('/')}/{path.lstrip('/')}"
    headers = {
        "Authorization": f"Bearer {_setting('personal_access_token')}",
        "Content-Type": "application/json",
    }
    delay, problem = 2, ""
    for _ in range(ATTEMPTS):
        result = __utils__["http.query"](
            url,
            method,
            data=json.dumps(data) if data is not None else None,
            header_dict=headers,
            decode=True,
            decode_type="json",
            status=True,
            headers=True,
        )
        status = result.get("status")
        if status is None:
            problem = result.get("error") or "no answer"
            time.sleep(delay)
            delay = min(delay * 2, 60)
            if recover is not None and (found := recover()) is not None:
                return found
            continue
        if status == 429:
            problem = "429 too many requests"
            time.sleep(float((result.get("headers") or {}).get("Retry-After") or delay))
            continue
        if status >= 500:
            problem = f"{status} {result.get('error', '')}".strip()
            time.sleep(delay)
            delay = min(delay * 2, 60)
            continue
        body = result.get("dict") or {}
        if status == 404:
            raise SaltCloudNotFound(f"{method} {path}: {body.get('message', 'not found')}")
        if status >= 400:
            raise SaltCloudSystemExit(
                f"{method} {path} failed with HTTP {status}: {body.get('message', body)}"
            )
        return body
    raise SaltCloudSystemExit(f"{method} {path} kept failing ({ATTEMPTS} attempts): {problem}")


def _collect(path, key):
    items, page = [], 1
    while True:
        body = query(f"{path}?page={page}&per_page=200")
        items.extend(body.get(key, []))
        if "next" not in ((body.get("links") or {}).get("pages") or {}):
            return items
        page += 1


# --- describing droplets ------------------------------------------------------------------------


def _addresses(droplet, kind):
    nets = (droplet.get("networks") or {}).get("v4") or []
    return [n["ip_address"] for n in nets if n.get("type") == kind]


def _summary(droplet):
    image = droplet.get("image") or {}
    return {
        "id": str(droplet["id"]),
        "image": str(image.get("slug") or image.get("name") or ""),
        "size": str(droplet.get("size_slug") or ""),
        "state": str(droplet.get("status") or ""),
        "private_ips": _addresses(droplet, "private"),
        "public_ips": _addresses(droplet, "public"),
    }


def _by_name():
    return {d["name"]: d for d in _collect("droplets", "droplets")}


def _find(name):
    droplet = _by_name().get(name)
    if droplet is None:
        raise SaltCloudNotFound(f"There is no droplet called {name!r}")
    return droplet


def _refuse_action(function, call):
    if call == "action":
        raise SaltCloudSystemExit(f"The {function} function must be called with -f or --function.")


def list_nodes(call=None):
    """Return id, image, size, state, private_ips and public_ips of every droplet."""
    _refuse_action("list_nodes", call)
    return {name: _summary(d) for name, d in sorted(_by_name().items())}


def list_nodes_full(call=None):
    """Return everything the API says about every droplet, plus the list_nodes fields."""
    _refuse_action("list_nodes_full", call)
    return {name: {**d, **_summary(d)} for name, d in sorted(_by_name().items())}


def list_nodes_select(call=None):
    """Return the ``query.selection`` fields of every droplet."""
    return salt.utils.cloud.list_nodes_select(
        list_nodes_full("function"), __opts__["query.selection"], call
    )


def show_instance(name, call=None):
    """Describe one droplet (``salt-cloud -a show_instance NAME``)."""
    if call != "action":
        raise SaltCloudSystemExit("The show_instance action must be called with -a or --action.")
    droplet = _find(name)
    node = {**droplet, **_summary(droplet)}
    __utils__["cloud.cache_node"](node, _active_provider(), __opts__)
    return node


def avail_images(call=None):
    """Return the images by slug (snapshots by name)."""
    _refuse_action("avail_images", call)
    return {str(i.get("slug") or i["name"]): i for i in _collect("images", "images")}


def avail_sizes(call=None):
    """Return the droplet sizes by slug."""
    _refuse_action("avail_sizes", call)
    return {s["slug"]: s for s in _collect("sizes", "sizes")}


def avail_locations(call=None):
    """Return the regions by slug."""
    _refuse_action("avail_locations", call)
    return {r["slug"]: r for r in _collect("regions", "regions")}


# --- create / destroy --------------------------------------------------------------------------


def _event(name, kind, message, payload):
    __utils__["cloud.fire_event"](
        "event",
        message,
        f"salt/cloud/{name}/{kind}",
        args=payload,
        sock_dir=__opts__["sock_dir"],
        transport=__opts__["transport"],
    )


def _ready(droplet_id):
    """wait_for_ip's callback: the droplet once it is active with a public address."""
    try:
        droplet = query(f"droplets/{droplet_id}")["droplet"]
    except SaltCloudNotFound:
        return None  # not visible yet
    if droplet.get("status") == "active" and _addresses(droplet, "public"):
        return droplet
    return None


def create(vm_):
    """Create a droplet from a profile, wait until it is active, deploy, and describe it."""
    name = vm_["name"]
    _event(
        name,
        "creating",
        "starting create",
        __utils__["cloud.filter_event"]("creating", vm_, ["name", "profile", "provider", "driver"]),
    )
    request = {"name": name}
    for key, setting in (("size", "size"), ("image", "image"), ("region", "location")):
        value = config.get_cloud_config_value(setting, vm_, __opts__, search_global=False)
        if not value:
            raise SaltCloudConfigError(f"The profile {vm_.get('profile')!r} has no {setting!r}")
        request[key] = str(value)
    for key in ("ssh_keys", "tags", "private_networking", "user_data"):
        value = config.get_cloud_config_value(key, vm_, __opts__, search_global=False)
        if value is not None:
            request[key] = value
    _event(
        name,
        "requesting",
        "requesting instance",
        {"kwargs": __utils__["cloud.filter_event"]("requesting", request, list(request))},
    )

    def created_anyway():
        droplet = _by_name().get(name)
        return {"droplet": droplet} if droplet else None

    droplet_id = query("droplets", "POST", request, recover=created_anyway)["droplet"]["id"]
    try:
        droplet = salt.utils.cloud.wait_for_ip(
            _ready,
            update_args=(droplet_id,),
            timeout=config.get_cloud_config_value(
                "wait_for_ip_timeout", vm_, __opts__, default=30 * 60
            ),
            interval=config.get_cloud_config_value(
                "wait_for_ip_interval", vm_, __opts__, default=10
            ),
        )
        vm_["ssh_host"] = _addresses(droplet, "public")[0]
        deployed = __utils__["cloud.bootstrap"](vm_, __opts__)
    except (SaltCloudExecutionTimeout, SaltCloudExecutionFailure, SaltCloudSystemExit) as exc:
        log.error("droplet %s did not come up (%s); deleting it", name, exc)
        _delete(droplet_id)
        raise SaltCloudSystemExit(f"Creating {name!r} failed: {exc}") from exc
    _event(
        name,
        "created",
        "created instance",
        __utils__["cloud.filter_event"]("created", vm_, ["name", "profile", "provider", "driver"]),
    )
    return {**droplet, **_summary(droplet), "deployed": bool(deployed.get("deployed"))}


def _delete(droplet_id):
    try:
        query(f"droplets/{droplet_id}", "DELETE")
    except SaltCloudNotFound:
        return False
    return True


def destroy(name, call=None):
    """Destroy the droplet called *name* (``salt-cloud -d NAME``)."""
    if call == "function":
        raise SaltCloudSystemExit(
            "The destroy action must be called with -d, --destroy, -a or --action."
        )
    _event(name, "destroying", "destroying instance", {"name": name})
    droplet = _find(name)
    deleted = _delete(droplet["id"])
    _event(name, "destroyed", "destroyed instance", {"name": name})
    if __opts__.get("update_cachedir", False) is True:
        __utils__["cloud.delete_minion_cachedir"](name, _active_provider().split(":")[0], __opts__)
    return {"id": str(droplet["id"]), "deleted": deleted}


# --- an action and a function ------------------------------------------------------------------


def reboot(name, call=None):
    """Reboot a droplet (``salt-cloud -a reboot NAME``)."""
    if call != "action":
        raise SaltCloudSystemExit("The reboot action must be called with -a or --action.")
    droplet = _find(name)
    action = query(f"droplets/{droplet['id']}/actions", "POST", {"type": "reboot"})["action"]
    return {"action": action["type"], "status": action["status"]}


def list_keypairs(call=None):
    """Return the account's SSH keys by name (``salt-cloud -f list_keypairs PROVIDER``)."""
    if call != "function":
        raise SaltCloudSystemExit(
            "The list_keypairs function must be called with -f or --function."
        )
    return {k["name"]: k for k in _collect("account/keys", "ssh_keys")}
