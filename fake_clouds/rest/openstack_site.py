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

The world's compute service is also answered at
``https://compute.openstack.fake/v2.1`` (:class:`NovaEntry`, the ``openstack``
name of :class:`~fake_clouds.rest.server.RestServer`; an earlier nova-style
dialect of its own answered there): ``{that URL}/servers`` is the wire's
``/compute/v2.1/servers``. A request there carrying the static token
(``plugsim-openstack-token``, or a token the providers file names) runs as the
world's bootstrap admin, with a keystone token the site asks the wire for.

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

from fake_clouds.rest.mount import METHODS, call_wsgi

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
        self.mock = rest.mock
        base = self.app.base_url
        pattern = re.compile(re.escape(base) + r"(/.*)?$")
        for method in METHODS:
            rest.mock.add_callback(method, pattern, callback=self._wire)
        self.auth_url: str | None = None
        self._admin_token: str | None = None
        if auth_url:
            self.serve_auth_url(auth_url)

    def serve_auth_url(self, auth_url: str) -> None:
        """Answer *auth_url* (a providers file's keystone) with the wire's keystone."""
        if self.auth_url is not None or auth_url.startswith(self.app.base_url):
            return
        parts = urlsplit(auth_url)
        self.auth_url = keystone_root(auth_url)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        alias = re.compile(re.escape(self.auth_url) + r"(/.*)?(\?.*)?$")
        for method in METHODS:
            self.mock.add_callback(method, alias, callback=self._keystone)

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

    def _call(self, prepared: requests.PreparedRequest, url: str, headers: Any = None) -> Any:
        method = prepared.method or "GET"
        sent = prepared.headers if headers is None else headers
        return call_wsgi(self.app, self.app.base_url, method, url, sent, prepared.body)

    def admin_token(self) -> str | None:
        """A live keystone token of the world's bootstrap admin (asked for over the wire)."""
        from fake_clouds.identity import ADMIN_PASSWORD

        identity = self.app.cloud.service("identity")
        if self._admin_token is not None and identity.token(self._admin_token) is not None:
            return self._admin_token
        user = {"name": "admin", "domain": {"id": "default"}, "password": ADMIN_PASSWORD}
        body = {
            "auth": {
                "identity": {"methods": ["password"], "password": {"user": user}},
                "scope": {"project": {"name": "admin", "domain": {"id": "default"}}},
            }
        }
        reply = call_wsgi(
            self.app,
            self.app.base_url,
            "POST",
            f"{self.app.auth_url}/auth/tokens",
            {"Content-Type": "application/json"},
            json.dumps(body),
        )
        if not isinstance(reply, tuple) or reply[0] != 201:
            return None
        found = {k.lower(): v for k, v in reply[1].items()}
        self._admin_token = found.get("x-subject-token")
        return self._admin_token

    def nova(self, prepared: requests.PreparedRequest, entry: NovaEntry) -> Any:
        """Answer a request to *entry*'s URL with the wire's compute service."""
        url = prepared.url or ""
        target = f"{self.app.base_url}/compute/v2.1{url[len(entry.base_url) :]}"
        headers = dict(prepared.headers)
        token = headers.get("X-Auth-Token")
        if token is not None and (token == entry.token or token in entry.accepted):
            headers["X-Auth-Token"] = self.admin_token() or token
        return self._call(prepared, target, headers)

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


class NovaEntry:
    """``https://compute.openstack.fake/v2.1``: the wire's compute service under its old URL.

    Stands in :attr:`RestServer.dialects` as ``openstack`` (its base URL,
    static token and accepted tokens, as a dialect has them); the world's
    OpenStack wire (:class:`OpenStackSite`) joins at its first request.
    """

    name = "openstack"
    default_base_url = "https://compute.openstack.fake/v2.1"
    default_token = "plugsim-openstack-token"

    def __init__(self, rest: Any, base_url: str, token: str) -> None:
        """Answer *base_url* on *rest*'s mock with its world's compute service."""
        self.rest = rest
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.accepted: frozenset[str] = frozenset()
        pattern = re.compile(re.escape(self.base_url) + r"(/[^?#]*)?(\?.*)?$")
        for method in METHODS:
            rest.mock.add_callback(method, pattern, callback=self._answer)

    def client_headers(self) -> dict[str, str]:
        """The static token, in keystone's header."""
        return {"X-Auth-Token": self.token}

    def _answer(self, prepared: requests.PreparedRequest) -> Any:
        return self.rest.serve_openstack().nova(prepared, self)
