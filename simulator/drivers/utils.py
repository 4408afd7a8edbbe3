"""``__utils__`` and ``__salt__`` as the harness injects them into a driver module.

The ``cloud.*`` helpers are :mod:`sdk.cloud_driver`'s (they reach the harness
through the runtime: virtual sleep, the event bus, the simulated deploy);
``http.query`` is done with ``requests`` so the fake REST dialects answer it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import requests

from sdk import cloud_driver as cloud


class UtilsMap(dict):
    """A dict of helpers whose missing keys fail with the list of available ones."""

    def __missing__(self, key: str) -> Any:
        raise KeyError(
            f"__utils__[{key!r}] is not provided by the plugsim harness "
            f"(available: {', '.join(sorted(self))})"
        )


def http_query(
    url: str,
    method: str = "GET",
    params: Mapping[str, Any] | None = None,
    data: Any = None,
    header_dict: Mapping[str, str] | None = None,
    decode: bool = False,
    decode_type: str = "auto",
    status: bool = False,
    headers: bool = False,
    text: bool = False,
    username: str | None = None,
    password: str | None = None,
    verify_ssl: bool = True,
    timeout: float | None = 60,
    **_ignored: Any,
) -> dict[str, Any]:
    """Perform an HTTP request with ``requests`` and return a salt-style result dict.

    The result holds ``status`` / ``headers`` / ``text`` when asked for and
    ``dict`` (the decoded JSON body) with ``decode=True``; an HTTP status of
    400 or more adds ``error`` (and always ``status``). A timeout becomes
    ``{"error": ..., "status": None}``; any other connection failure (such as
    a URL no fake serves) propagates with the URL in its message.
    """
    auth = (username, password) if username is not None else None
    try:
        resp = requests.request(
            method.upper(),
            url,
            params=params,
            data=data,
            headers=dict(header_dict or {}),
            auth=auth,
            verify=verify_ssl,
            timeout=timeout,
        )
    except requests.exceptions.Timeout as ex:
        return {"error": f"{method.upper()} {url}: {type(ex).__name__}: {ex}", "status": None}
    ret: dict[str, Any] = {"body": resp.text}  # Salt's http.query always returns the body
    if status or resp.status_code >= 400:
        ret["status"] = resp.status_code
    if headers:
        ret["headers"] = dict(resp.headers)
    if text:
        ret["text"] = resp.text
    if decode:
        kind = decode_type
        if kind == "auto":
            kind = "json" if "json" in resp.headers.get("Content-Type", "") else "plain"
        if kind == "json":
            try:
                ret["dict"] = resp.json() if resp.content else {}
            except (ValueError, json.JSONDecodeError):
                ret["dict"] = {}
        else:
            ret["text"] = resp.text
    if resp.status_code >= 400:
        ret["error"] = f"HTTP {resp.status_code} {resp.reason or ''}".strip()
    return ret


def build_utils(opts: Mapping[str, Any], cachedir_index: dict[str, Any]) -> UtilsMap:
    """Return the ``__utils__`` mapping for a driver loaded with *opts*."""

    def filter_event(tag: str, data: Mapping[str, Any], defaults: Any) -> dict[str, Any]:
        return cloud.filter_event(tag, data, defaults, opts)

    def cachedir_index_add(
        minion_id: str, profile: str, driver: str, provider: str, base: Any = None
    ) -> None:
        cachedir_index[minion_id] = {"profile": profile, "driver": driver, "provider": provider}

    def cachedir_index_del(minion_id: str, base: Any = None) -> None:
        cachedir_index.pop(minion_id, None)

    helpers: dict[str, Callable[..., Any]] = {
        "cloud.fire_event": cloud.fire_event,
        "cloud.filter_event": filter_event,
        "cloud.bootstrap": cloud.bootstrap,
        "cloud.wait_for_ip": cloud.wait_for_ip,
        "cloud.is_public_ip": cloud.is_public_ip,
        "cloud.list_nodes_select": cloud.list_nodes_select,
        "cloud.deploy_script": cloud.deploy_script,
        "cloud.deploy_windows": cloud.deploy_windows,
        "cloud.cachedir_index_add": cachedir_index_add,
        "cloud.cachedir_index_del": cachedir_index_del,
        "http.query": http_query,
    }
    return UtilsMap(helpers)


def build_salt(opts: Mapping[str, Any]) -> UtilsMap:
    """Return a minimal ``__salt__``: ``config.get`` reading the global settings."""

    def config_get(key: str, default: Any = "") -> Any:
        value: Any = opts
        for part in key.split(":"):
            if not isinstance(value, Mapping) or part not in value:
                return default
            value = value[part]
        return value

    return UtilsMap({"config.get": config_get})
