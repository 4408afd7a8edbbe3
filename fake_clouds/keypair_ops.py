"""Keypair operations of the compute service (mixed into
:class:`fake_clouds.compute.ComputeService`).

A keypair's id is its name. Created without a public key, one is generated
(from the ``ids`` stream) and its private key is returned once; an imported
key must be an SSH public key. Fingerprints are the MD5 of the public key.
"""

from __future__ import annotations

import hashlib
from typing import Any

from fake_clouds.core.service import operation
from sdk import exception


def _bad(message: str) -> exception.BadRequest:
    return exception.BadRequest(message, body={"badRequest": {"code": 400, "message": message}})


class KeypairOperations:
    """Keypairs: create (generate or import), show, list, delete."""

    @operation("keypairs.create", kind="keypair", id_arg="name")
    def create_keypair(self: Any, name: str, public_key: str | None = None) -> dict[str, Any]:
        """Create (or import) a keypair; the private key is returned only when generated."""
        if not isinstance(name, str) or not name.strip():
            raise _bad("Keypair name must be a non-empty string")
        self._refresh("keypair")
        if name in self._store["keypair"] and not self._store["keypair"][name].deleted:
            raise exception.Conflict(f"Key pair '{name}' already exists.")
        self._check_quota("key_pairs", self._count("keypair"))
        private = None
        if public_key is None:
            material = self.world.rng.hex_id(64)
            public_key = f"ssh-ed25519 AAAAC3Nza{material} plugsim"
            private = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{material}\n-----END OPENSSH PRIVATE KEY-----\n"
        elif not isinstance(public_key, str) or not public_key.startswith(("ssh-", "ecdsa-")):
            raise _bad(f"Keypair data is invalid: public key for '{name}' is not an SSH key")
        ent = self._create("keypair", name, "ACTIVE", keypair_attrs(public_key), entity_id=name)
        view = ent.view()
        if private is not None:
            view["private_key"] = private
        return view

    @operation("keypairs.get", kind="keypair", id_arg="name")
    def get_keypair(self: Any, name: str) -> dict[str, Any]:
        """Return one keypair by name."""
        return self._get("keypair", name, label="Keypair").view()

    @operation("keypairs.list", kind="keypair")
    def list_keypairs(self: Any) -> list[dict[str, Any]]:
        """Return every keypair."""
        return [e.view() for e in self._list("keypair")]

    @operation("keypairs.delete", kind="keypair", id_arg="name")
    def delete_keypair(self: Any, name: str) -> None:
        """Delete a keypair (at once)."""
        self._start(self._get("keypair", name, label="Keypair"), "delete", None, None)


def keypair_attrs(public_key: str) -> dict[str, Any]:
    """Return the stored attributes of a keypair with *public_key* (fingerprint, type)."""
    digest = hashlib.md5(public_key.encode("utf-8"), usedforsecurity=False).hexdigest()
    fingerprint = ":".join(digest[i : i + 2] for i in range(0, 32, 2))
    return {"public_key": public_key, "fingerprint": fingerprint, "type": "ssh"}
