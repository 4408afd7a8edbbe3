"""The cloud driver contract: what a salt-cloud-style driver module needs, without Salt.

A *cloud driver module* is a plain Python module with module-level functions
(``create``, ``destroy``, ``list_nodes`` ...) that salt-cloud - or the plugsim
harness in :mod:`simulator.drivers` - loads and calls. When loaded by the
harness a driver finds ``__opts__``, ``__active_provider_name__``,
``__utils__`` and ``__virtualname__`` in its globals; a driver written for
plugsim may also import the helpers below directly::

    from sdk import cloud_driver as cloud

    def get_configured_provider():
        return cloud.is_provider_configured(
            __opts__, __active_provider_name__ or __virtualname__, ("token",)
        )

This module depends on the standard library only. Its helpers reach the world
through the *runtime* (:func:`current_runtime`): the harness installs one
whose ``sleep`` and ``now`` run on the virtual clock, whose bus records
events and whose deploy hook simulates SSH/WinRM; outside the harness the
real clock and a private bus are used and deployment is refused.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from sdk._cloud_driver_config import (
    SECRET_KEY_NAMES,
    SECRET_KEYS_SETTING,
    candidate_providers,
    get_cloud_config_value,
    is_secret_key,
    missing_settings,
    provider_settings,
    split_provider,
)
from sdk._cloud_driver_deploy import (
    bootstrap,
    deploy_script,
    deploy_settings,
    deploy_windows,
    secret_values,
    strip_secrets,
)
from sdk._cloud_driver_runtime import (
    CloudDriverError,
    CloudEvent,
    ConfigNote,
    DriverRuntime,
    EventBus,
    SaltCloudConfigError,
    SaltCloudExecutionFailure,
    SaltCloudExecutionTimeout,
    SaltCloudNotFound,
    SaltCloudSystemExit,
    current_runtime,
    use_runtime,
)

__all__ = [
    "ACTION_CALL",
    "EVENT_PAYLOAD_KEYS",
    "FUNCTION_CALL",
    "LIST_NODES_FIELDS",
    "REQUIRED_FUNCTIONS",
    "SECRET_KEYS_SETTING",
    "SECRET_KEY_NAMES",
    "CloudDriverError",
    "CloudEvent",
    "ConfigNote",
    "DriverRuntime",
    "EventBus",
    "SaltCloudConfigError",
    "SaltCloudExecutionFailure",
    "SaltCloudExecutionTimeout",
    "SaltCloudNotFound",
    "SaltCloudSystemExit",
    "bootstrap",
    "current_runtime",
    "deploy_script",
    "deploy_settings",
    "deploy_windows",
    "filter_event",
    "fire_event",
    "get_cloud_config_value",
    "is_provider_configured",
    "is_public_ip",
    "is_secret_key",
    "list_nodes_select",
    "provider_settings",
    "secret_values",
    "split_provider",
    "strip_secrets",
    "use_runtime",
    "wait_for_ip",
]

#: Functions every driver module defines.
REQUIRED_FUNCTIONS: tuple[str, ...] = (
    "__virtual__",
    "get_configured_provider",
    "create",
    "destroy",
    "list_nodes",
    "list_nodes_full",
    "list_nodes_select",
    "show_instance",
    "avail_images",
    "avail_sizes",
)

#: The fields ``list_nodes`` returns for every node - exactly these.
LIST_NODES_FIELDS: tuple[str, ...] = ("id", "image", "size", "state", "private_ips", "public_ips")

#: Event kind -> payload keys the event must carry (``salt/cloud/<name>/<kind>``).
EVENT_PAYLOAD_KEYS: dict[str, tuple[str, ...]] = {
    "creating": ("name", "profile", "provider"),
    "requesting": ("kwargs",),
    "deploying": ("kwargs",),
    "created": ("name", "profile", "provider"),
    "destroying": ("name",),
    "destroyed": ("name",),
}

#: The ``call`` value salt-cloud passes to actions (``-a``) and functions (``-f``).
ACTION_CALL = "action"
FUNCTION_CALL = "function"


def fire_event(
    key: str,
    msg: str,
    tag: str,
    sock_dir: str | None = None,
    args: Mapping[str, Any] | None = None,
    transport: str | None = None,
) -> CloudEvent:
    """Fire an event tagged *tag* with payload *args* on the runtime's bus.

    *key*, *sock_dir* and *transport* are accepted for compatibility with
    salt-cloud's helper; the runtime decides where the event goes.
    """
    return current_runtime().bus.fire(tag, args, message=msg)


def filter_event(
    tag: str,
    data: Mapping[str, Any],
    defaults: Iterable[str],
    opts: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Return the items of *data* whose keys are in *defaults* (plus configured extras).

    ``opts["filter_events"][tag]["keys"]`` adds keys for the event kind *tag*;
    with ``use_defaults: False`` there the defaults are dropped.
    """
    keys = list(defaults)
    conf = ((opts or {}).get("filter_events") or {}).get(tag) or {}
    if isinstance(conf, Mapping):
        if conf.get("use_defaults", True) is False:
            keys = []
        keys.extend(str(k) for k in conf.get("keys") or [])
    return {k: data[k] for k in keys if k in data}


def is_provider_configured(
    opts: Mapping[str, Any],
    provider: str,
    required_keys: Sequence[str] = (),
    log_message: bool = True,
    aliases: Mapping[str, Iterable[str]] | None = None,
) -> dict[str, Any] | bool:
    """Return the settings of *provider* when they hold every key in *required_keys*.

    *provider* is ``alias:driver`` (usually ``__active_provider_name__``) or a
    driver name (then the first configured alias of that driver, sorted,
    that is complete wins). Returns False when none is complete; the missing
    keys are noted on the runtime (``current_runtime().notes``) so the
    harness can name them.
    """
    notes = []
    for alias, driver in candidate_providers(opts, provider):
        conf = opts["providers"][alias][driver]
        if not isinstance(conf, Mapping):
            continue
        missing = missing_settings(conf, required_keys, aliases)
        if not missing:
            return conf  # type: ignore[return-value]
        notes.append(ConfigNote(f"{alias}:{driver}", missing))
    if log_message:
        current_runtime().notes.extend(notes or [ConfigNote(str(provider), list(required_keys))])
    return False


def wait_for_ip(
    update_callback: Callable[..., Any],
    update_args: Sequence[Any] | None = None,
    update_kwargs: Mapping[str, Any] | None = None,
    timeout: float = 300,
    interval: float = 5,
    interval_multiplier: float = 1,
    max_failures: int = 10,
) -> Any:
    """Call *update_callback* until it returns something other than None/False.

    Sleeps *interval* seconds between calls (multiplied by
    *interval_multiplier* after each), through the runtime's ``sleep`` - so
    under the harness the waiting costs virtual time only. Raises
    :class:`SaltCloudExecutionTimeout` after *timeout* seconds and
    :class:`SaltCloudExecutionFailure` after *max_failures* exceptions from
    the callback.
    """
    runtime = current_runtime()
    deadline = runtime.now() + float(timeout)
    failures = 0
    delay = float(interval)
    while True:
        try:
            data = update_callback(*(update_args or ()), **(update_kwargs or {}))
        except CloudDriverError:
            raise
        except Exception as ex:
            failures += 1
            if failures >= max_failures:
                raise SaltCloudExecutionFailure(
                    f"wait_for_ip: the callback failed {failures} times; last error: "
                    f"{type(ex).__name__}: {ex}"
                ) from ex
            data = None
        if data is not None and data is not False:
            return data
        if runtime.now() + delay > deadline:
            raise SaltCloudExecutionTimeout(f"Unable to get an IP address in {timeout:g} seconds")
        runtime.sleep(delay)
        delay *= float(interval_multiplier)


def is_public_ip(ip: str) -> bool:
    """Return True when *ip* is a globally routable address (private/loopback/... are not)."""
    try:
        addr = ipaddress.ip_address(str(ip).strip())
    except ValueError:
        return False
    return not (
        addr.is_private
        or addr.is_loopback
        or addr.is_link_local
        or addr.is_reserved
        or addr.is_multicast
        or addr.is_unspecified
    )


def list_nodes_select(
    nodes: Mapping[str, Mapping[str, Any]],
    selection: Iterable[str] | str | None,
    call: str | None = None,
) -> dict[str, dict[str, Any]]:
    """Return, for every node, only the fields named in *selection* (``query.selection``).

    Refuses to run as an action (``call == 'action'``).
    """
    if call == ACTION_CALL:
        raise SaltCloudSystemExit(
            "The list_nodes_select function must be called with -f or --function."
        )
    if selection is None:
        raise SaltCloudConfigError("query.selection is not set: name the fields to show")
    if isinstance(selection, str):
        selection = [s.strip() for s in selection.split(",") if s.strip()]
    fields = list(selection)
    out: dict[str, dict[str, Any]] = {}
    for name in sorted(nodes):
        node = nodes[name]
        if not isinstance(node, Mapping):
            continue
        out[name] = {f: node[f] for f in fields if f in node}
    return out
