"""An example salt-cloud driver built on Apache Libcloud's own DigitalOcean driver.

The optional extra: it loads only when ``apache-libcloud`` is installed
(``__virtual__`` says why otherwise). Libcloud does the HTTP; under plugsim its
``requests`` calls reach the fake DigitalOcean dialect. Libcloud raises on
429/5xx/timeouts, so the driver retries those itself.

providers.yaml::

    do-libcloud:
      driver: digitalocean_libcloud
      personal_access_token: plugsim-digitalocean-token
"""

# __opts__, __utils__ and __active_provider_name__ are injected by the loader.
# ruff: noqa: F821

from __future__ import annotations

import time

from sdk import cloud_driver as config
from sdk.cloud_driver import SaltCloudNotFound, SaltCloudSystemExit

try:
    from libcloud.common.exceptions import BaseHTTPError
    from libcloud.compute.providers import get_driver
    from libcloud.compute.types import NodeState, Provider
    from requests.exceptions import RequestException

    HAS_LIBCLOUD = True
except ImportError:
    HAS_LIBCLOUD = False

__virtualname__ = "digitalocean_libcloud"

RETRIES = 8


def __virtual__():
    """Load when libcloud is importable and the provider has its token."""
    if not HAS_LIBCLOUD:
        return False, "apache-libcloud is not installed (pip install apache-libcloud)"
    if get_configured_provider() is False:
        return False, "no provider of driver 'digitalocean_libcloud' has a personal_access_token"
    return __virtualname__


def get_configured_provider():
    """Return the provider settings when the token is set, else False."""
    return config.is_provider_configured(
        __opts__, __active_provider_name__ or __virtualname__, ("personal_access_token",)
    )


def get_conn():
    """Return a libcloud DigitalOcean (API v2) connection for this provider."""
    conf = get_configured_provider()
    if not conf:
        raise config.SaltCloudConfigError("the provider has no personal_access_token")
    return get_driver(Provider.DIGITAL_OCEAN)(conf["personal_access_token"], api_version="v2")


def _retry(what, fun, *args, **kwargs):
    delay = 2.0
    last = ""
    for _attempt in range(RETRIES):
        try:
            return fun(*args, **kwargs)
        except BaseHTTPError as ex:
            code = getattr(ex, "code", None)
            if code == 404:
                raise SaltCloudNotFound(f"{what}: {ex}") from None
            if code not in (429,) and (code is None or code < 500):
                raise SaltCloudSystemExit(f"{what} failed ({code}): {ex}") from None
            last = f"{code} {ex}"
        except RequestException as ex:
            last = f"{type(ex).__name__}: {ex}"
        except Exception as ex:  # libcloud raises plain exceptions for some HTTP errors
            text = str(ex)
            if "429" not in text and "50" not in text[:4] and "Timeout" not in type(ex).__name__:
                raise SaltCloudSystemExit(f"{what} failed: {type(ex).__name__}: {ex}") from None
            last = text
        time.sleep(delay)
        delay = min(delay * 2, 60)
    raise SaltCloudSystemExit(f"{what} still failing after {RETRIES} attempts: {last}")


def _state(node):
    return str(node.state.value if hasattr(node.state, "value") else node.state)


def _brief(node):
    return {
        "id": str(node.id),
        "image": str(
            node.extra.get("image", {}).get("slug") or node.extra.get("image", {}).get("name") or ""
        ),
        "size": str(node.extra.get("size_slug") or ""),
        "state": _state(node),
        "private_ips": list(node.private_ips or []),
        "public_ips": list(node.public_ips or []),
    }


def _nodes():
    return {n.name: n for n in _retry("list nodes", get_conn().list_nodes)}


def _node(name):
    node = _nodes().get(name)
    if node is None:
        raise SaltCloudNotFound(f"no droplet named {name!r}")
    return node


def list_nodes(call=None):
    """Return id, image, size, state, private_ips, public_ips of every droplet."""
    if call == "action":
        raise SaltCloudSystemExit("The list_nodes function must be called with -f or --function.")
    return {name: _brief(n) for name, n in sorted(_nodes().items())}


def list_nodes_full(call=None):
    """Return libcloud's extra data of every droplet plus the list_nodes fields."""
    if call == "action":
        raise SaltCloudSystemExit(
            "The list_nodes_full function must be called with -f or --function."
        )
    return {name: {**n.extra, "name": name, **_brief(n)} for name, n in sorted(_nodes().items())}


def list_nodes_select(call=None):
    """Return the query.selection fields of every droplet."""
    return __utils__["cloud.list_nodes_select"](
        list_nodes_full("function"), __opts__.get("query.selection"), call
    )


def show_instance(name, call=None):
    """Show one droplet (``-a show_instance NAME``)."""
    if call != "action":
        raise SaltCloudSystemExit("The show_instance action must be called with -a or --action.")
    node = _node(name)
    return {**node.extra, "name": name, **_brief(node)}


def avail_images(call=None):
    """Return the images by id."""
    if call == "action":
        raise SaltCloudSystemExit("The avail_images function must be called with -f or --function.")
    images = _retry("list images", get_conn().list_images)
    return {str(i.extra.get("slug") or i.id): {"id": str(i.id), "name": i.name} for i in images}


def avail_sizes(call=None):
    """Return the sizes by slug."""
    if call == "action":
        raise SaltCloudSystemExit("The avail_sizes function must be called with -f or --function.")
    sizes = _retry("list sizes", get_conn().list_sizes)
    return {s.id: {"ram": s.ram, "disk": s.disk, "price": s.price} for s in sizes}


def avail_locations(call=None):
    """Return the regions by slug."""
    if call == "action":
        raise SaltCloudSystemExit(
            "The avail_locations function must be called with -f or --function."
        )
    return {
        loc.id: {"name": loc.name} for loc in _retry("list locations", get_conn().list_locations)
    }


def _fire(name, kind, message, payload):
    __utils__["cloud.fire_event"](
        "event",
        message,
        f"salt/cloud/{name}/{kind}",
        args=payload,
        sock_dir=__opts__.get("sock_dir"),
        transport=__opts__.get("transport"),
    )


def _pick(items, wanted, what):
    for item in items:
        extra = getattr(item, "extra", None)
        slug = extra.get("slug") if isinstance(extra, dict) else None
        if wanted in (str(item.id), item.name, slug):
            return item
    raise SaltCloudNotFound(f"no {what} {wanted!r}")


def create(vm_):
    """Create a droplet through libcloud, wait until it runs with an address, deploy."""
    name = vm_["name"]
    keys = ["name", "profile", "provider", "driver"]
    _fire(
        name, "creating", "starting create", __utils__["cloud.filter_event"]("creating", vm_, keys)
    )
    conn = get_conn()
    wanted = {
        "size": config.get_cloud_config_value("size", vm_, __opts__),
        "image": config.get_cloud_config_value("image", vm_, __opts__),
        "location": config.get_cloud_config_value("location", vm_, __opts__, default="nyc3"),
    }
    size = _pick(_retry("list sizes", conn.list_sizes), wanted["size"], "size")
    image = _pick(_retry("list images", conn.list_images), wanted["image"], "image")
    location = _pick(_retry("list locations", conn.list_locations), wanted["location"], "location")
    _fire(
        name,
        "requesting",
        "requesting instance",
        {
            "kwargs": __utils__["cloud.filter_event"](
                "requesting", {"name": name, **wanted}, ["name", "size", "image", "location"]
            )
        },
    )

    def create_once():
        existing = _nodes().get(name)
        return existing or conn.create_node(name=name, size=size, image=image, location=location)

    node = _retry("create node", create_once)

    def running():
        current = _nodes().get(name)
        if current is None or current.state != NodeState.RUNNING or not current.public_ips:
            return None
        return current

    node = __utils__["cloud.wait_for_ip"](running, timeout=1800, interval=10)
    vm_["ssh_host"] = node.public_ips[0]
    deployed = __utils__["cloud.bootstrap"](vm_, __opts__)
    _fire(
        name, "created", "created instance", __utils__["cloud.filter_event"]("created", vm_, keys)
    )
    return {**node.extra, "name": name, **_brief(node), "deployed": deployed.get("deployed", False)}


def destroy(name, call=None):
    """Destroy the droplet called *name*."""
    if call == "function":
        raise SaltCloudSystemExit(
            "The destroy action must be called with -d, --destroy, -a or --action."
        )
    _fire(name, "destroying", "destroying instance", {"name": name})
    node = _node(name)
    ok = _retry("destroy node", get_conn().destroy_node, node)
    _fire(name, "destroyed", "destroyed instance", {"name": name})
    return {"id": str(node.id), "deleted": bool(ok)}
