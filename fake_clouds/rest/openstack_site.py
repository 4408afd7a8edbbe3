"""The world's OpenStack wire at the auth URL a salt-cloud provider names.

An OpenStack cloud is self-hosted: a providers file names its keystone
(``auth_url: https://keystone.example.com:5000/v3``) and the catalog the
token carries names the rest. :class:`OpenStackSite` serves the world's
OpenStack wire (:class:`fake_clouds.openstack.app.WireApp`, at its own base
URL, the catalog's) and answers the provider's auth URL with the wire's
keystone: a path under keystone's root (the auth URL without its ``/v3``;
DevStack's ``http://HOST/identity`` is a root) is the same path under the
wire's ``/identity``.

The credentials a provider names (``auth.username``/``password``/
``project_name``, their domains) are accepted by default, like the REST
dialects accept a providers file's tokens: :meth:`OpenStackSite.accept`
adds that user and project to the world's keystone as part of its initial
state (fixed ids, the ``member`` and ``admin`` roles, no random draw, no
fault, not a leak).

Two compatibilities of the real services the wire lacks are added here,
each only filling what is missing (so they fall away as the wire grows):
Neutron's ``.json`` format suffix (``GET /v2.0/networks.json``, which
shade - Salt's openstack driver's client - sends) is the same call without
it, and Nova's ``GET /servers/{id}/os-security-groups`` gives each group's
``id``, ``description``, ``tenant_id`` and ``rules`` (shade reads the id).
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any
from urllib.parse import urlsplit

import requests

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD")
_JSON_SUFFIX = re.compile(r"^(/network/v2\.0/[^?]*?)\.json(\?.*)?$")
_SERVER_GROUPS = re.compile(r"^/compute/v2\.1/servers/[^/?]+/os-security-groups/?(\?.*)?$")


def keystone_root(auth_url: str) -> str:
    """Return keystone's root behind an ``auth_url``: the URL without a ``/v3`` (or ``/v2.0``) end.

    A providers file names keystone either by its versioned endpoint
    (``https://keystone.example.com:5000/v3``) or by its root, as DevStack
    serves it (``http://HOST/identity``), where keystoneauth discovers the
    version from the root's version list. Both name the same service.
    """
    root = auth_url.rstrip("/")
    for suffix in ("/v3", "/v2.0"):
        if root.endswith(suffix):
            return root[: -len(suffix)]
    return root


class OpenStackSite:
    """The wire of one world, served at its base URL and at a provider's auth URL."""

    def __init__(self, rest: Any, auth_url: str | None = None) -> None:
        """Serve *rest*'s world on *rest*'s mock (and *auth_url*'s keystone, if given)."""
        from fake_clouds.openstack.app import WireApp

        self.app = WireApp(rest.cloud)
        base = self.app.base_url
        pattern = re.compile(re.escape(base) + r"(/.*)?$")
        for method in METHODS:
            rest.mock.add_callback(method, pattern, callback=self._wire)
        self.auth_url = None
        if auth_url and not auth_url.startswith(base):
            parts = urlsplit(auth_url)
            self.auth_url = keystone_root(auth_url)
            origin = f"{parts.scheme}://{parts.netloc}"
            alias = re.compile(re.escape(self.auth_url) + r"(/.*)?(\?.*)?$")
            for method in METHODS:
                rest.mock.add_callback(method, alias, callback=self._keystone)
            self.origin = origin

    def accept(self, auth: Any) -> None:
        """Let the user/password/project of a provider's ``auth`` mapping authenticate."""
        from fake_clouds.core.entities import Entity
        from fake_clouds.identity import SCHEMAS, digest, fixed_id

        if not isinstance(auth, dict):
            return
        user, password = auth.get("username"), auth.get("password")
        project = auth.get("project_name") or auth.get("tenant_name")
        if not all(isinstance(v, str) and v for v in (user, password, project)):
            return
        identity = self.app.cloud.service("identity")
        user_domain = auth.get("user_domain_id") or identity._domain_named(
            auth.get("user_domain_name") or "Default"
        )
        project_domain = auth.get("project_domain_id") or identity._domain_named(
            auth.get("project_domain_name") or "Default"
        )
        user_domain, project_domain = user_domain or "default", project_domain or "default"
        now = self.app.cloud.clock.now()
        store = identity._store

        def add(kind: str, name: str, **attrs: Any) -> str:
            ident = fixed_id(kind, f"{name}@{attrs.get('domain_id') or attrs.get('user_id')}")
            if ident not in store[kind]:
                full = {**copy.deepcopy(SCHEMAS[kind][1]), **attrs}
                store[kind][ident] = Entity(
                    service="identity",
                    kind=kind,
                    id=ident,
                    name=name if kind != "role_assignment" else "",
                    status="ACTIVE",
                    attrs=full,
                    created_at=now,
                    updated_at=now,
                    preseeded=True,
                )
            return ident

        live = [e for e in store["user"].values() if e.name == user and not e.deleted]
        if any(e.attrs.get("domain_id") == user_domain for e in live):
            return  # a user of that name exists: its own password stands
        project_id = next(
            (
                ident
                for ident, e in store["project"].items()
                if e.name == project and e.attrs.get("domain_id") == project_domain
            ),
            None,
        ) or add(
            "project",
            project,
            domain_id=project_domain,
            parent_id=project_domain,
        )
        user_id = add(
            "user",
            user,
            domain_id=user_domain,
            password_digest=digest(password),
            default_project_id=project_id,
        )
        for role in ("member", "admin"):
            add(
                "role_assignment",
                f"{role}:{user_id}",
                role_id=fixed_id("role", role),
                user_id=user_id,
                group_id=None,
                project_id=project_id,
                domain_id=None,
            )

    def _call(self, prepared: requests.PreparedRequest, url: str) -> Any:
        from fake_clouds.openstack.inprocess import call_app

        return call_app(self.app, prepared.method or "GET", url, prepared.headers, prepared.body)

    def _wire(self, prepared: requests.PreparedRequest) -> Any:
        url = prepared.url or ""
        path = url[len(self.app.base_url) :]
        found = _JSON_SUFFIX.match(path)
        if found:
            url = self.app.base_url + found.group(1) + (found.group(2) or "")
        reply = self._call(prepared, url)
        if _SERVER_GROUPS.match(path) and isinstance(reply, tuple) and reply[0] == 200:
            headers = {k: v for k, v in reply[1].items() if k.lower() != "content-length"}
            reply = (reply[0], headers, self._full_groups(reply[2]))
        return reply

    def _full_groups(self, body: bytes) -> bytes:
        """Fill each of a server's security groups from the network service (by name)."""
        cloud = self.app.cloud
        if "network" not in cloud.service_names():
            return body
        known = {g["name"]: g for g in cloud.service("network").list_security_groups()}
        data = json.loads(body or b"{}")
        for group in data.get("security_groups") or []:
            full = known.get(group.get("name"))
            if full is None:
                continue
            group.setdefault("id", full["id"])
            group.setdefault("description", full.get("description", ""))
            group.setdefault("tenant_id", full.get("tenant_id") or full.get("project_id"))
            group.setdefault("rules", [])
        return json.dumps(data).encode()

    def _keystone(self, prepared: requests.PreparedRequest) -> Any:
        url = prepared.url or ""
        rest_of = url[len(self.auth_url or "") :]
        return self._call(prepared, self.app.base_url + "/identity" + rest_of)

    def unserved(self) -> list[tuple[str, str, str, int]]:
        """Return ``(service, method, path, count)`` of every endpoint the wire did not serve."""
        return [(u.service, u.method, u.path, u.count) for u in self.app.unserved()]
