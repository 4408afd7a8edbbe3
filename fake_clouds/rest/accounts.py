"""Cloud accounts of the REST providers: whose droplet, linode or instance is it.

A real DigitalOcean token, Linode key or Vultr key belongs to one account and
shows only that account's machines; two providers of a salt-cloud providers
file (a ``linode`` and a ``digitalocean`` one, or two DigitalOcean teams) are
two accounts. The fake clouds hold every provider's machines in one world,
so each REST request is answered *as* the account its credential names:
the request runs under a :class:`~fake_clouds.core.scope.Caller` whose project
is the account (``digitalocean:<digest of the token>``), the core stamps what
it creates with that owner and hides other owners' entities from its lists
and lookups - the same project scoping the OpenStack wire uses for keystone
projects. An entity nobody owns (a world file's, the engine's) stays visible
to every account, as before.

The account id carries a digest of the credential, never the credential.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fake_clouds.core.scope import Caller, acting_as


def account_id(provider: str, credential: str) -> str:
    """Return the account a *credential* of *provider* stands for (a digest, not the secret)."""
    digest = hashlib.sha256(credential.encode("utf-8")).hexdigest()[:16]
    return f"{provider}:{digest}"


def credential_of(dialect: Any, req: Any) -> str | None:
    """Return the credential a REST request carries (None: the dialect has no accounts).

    Bearer tokens (DigitalOcean, Linode, Hetzner), Vultr v1's ``api_key`` and
    CloudStack's ``apiKey``. The nova-style ``openstack`` dialect is scoped by
    keystone on the wire instead.
    """
    if dialect.name == "openstack":
        return None
    if dialect.name == "vultr":
        return req.arg("api_key") or req.headers.get("API-Key") or None
    if dialect.name == "cloudstack":
        return dialect.param(req, "apiKey") or None
    header = req.headers.get("Authorization", "")
    return header[len("Bearer ") :] or None if header.startswith("Bearer ") else None


def caller_for(provider: str, credential: str | None) -> Caller | None:
    """Return the caller a request of *provider* with *credential* runs as (None: unscoped)."""
    if not credential:
        return None
    account = account_id(provider, credential)
    return Caller(account, account, frozenset(), lists_all=False)


@contextmanager
def as_account(dialect: Any, req: Any) -> Iterator[None]:
    """Answer *req* as the account its credential names (see the module docstring)."""
    with acting_as(caller_for(dialect.name, credential_of(dialect, req))):
        yield


def declare_keypair(cloud: Any, name: str, public_key: str) -> bool:
    """Make SSH key *name* part of the world's initial state, as a providers file names it.

    A salt-cloud providers file names keys the account already holds
    (DigitalOcean's ``ssh_key_names``, OpenStack's ``ssh_key_name``); like the
    credentials it names, they are the account's before any call: no latency,
    no fault, no random draw, not a leak. A key of that name that exists is
    left as it is. Returns True when the key was added.
    """
    from fake_clouds.core.entities import Entity
    from fake_clouds.keypair_ops import keypair_attrs

    if "compute" not in cloud.service_names():
        return False
    compute = cloud.service("compute")
    compute._refresh("keypair")
    store = compute._store["keypair"]
    if name in store and not store[name].deleted:
        return False
    now = cloud.clock.now()
    store[name] = Entity(
        service="compute",
        kind="keypair",
        id=name,
        name=name,
        status="ACTIVE",
        attrs=keypair_attrs(public_key),
        created_at=now,
        updated_at=now,
        preseeded=True,
    )
    return True


def declared_public_key(name: str, key_file: Any = None) -> str:
    """Return the public key of a declared key: ``KEY_FILE.pub`` when readable, else a stand-in."""
    if isinstance(key_file, str) and key_file:
        try:
            with open(f"{key_file}.pub", encoding="utf-8") as fh:
                text = fh.read().strip()
        except OSError:
            text = ""
        if text.startswith(("ssh-", "ecdsa-")):
            return text
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()
    return f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5{digest} {name}"
