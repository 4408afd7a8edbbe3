"""The mutation benchmark's mutants of Heat 27's in-tree plug-ins.

Each is a transformation of Heat's code (see :mod:`mutants_ops`), applied at run
time to a copy of the module taken from the Heat install ``$PLUGSIM_HEAT_PYTHON``
names: nothing of Heat's is kept in this repository. Where a mutant adds code
(an override), the code is this project's.
"""

from __future__ import annotations

from mutants_catalogue import (
    RETRY_CREATE,
    Mutant,
    _does_nothing,
    _early,
    _forget_delete,
    _no_resource_id,
    _stale,
    _unknown_key,
)
from mutants_ops import Op, drop_call, drop_statement, override, rename_and_wrap, unwrap

NET_REPLACE_ON_UPDATE = """
def handle_update(self, json_snippet, tmpl_diff, prop_diff):
    if not prop_diff:
        return None
    client = self.client()
    body = dict(prop_diff, name=self.physical_resource_name())
    fresh = client.create_network({"network": body})["network"]
    client.delete_network(self.resource_id)
    self.resource_id_set(fresh["id"])
    return None
"""


def heat_mutants() -> list[Mutant]:
    """The mutants of OS::Cinder::Volume, OS::Neutron::Net and OS::Nova::Server."""
    out: list[Mutant] = []

    def add(mid: str, target: str, bug: str, handler: str, op: Op) -> None:
        out.append(Mutant(mid, target, bug, handler, op))

    # Heat 27: OS::Cinder::Volume (transformations of Heat's code, applied to a copy at run time)
    h, t = "CinderVolume", "heat-cinder-volume"
    add("hv-delete-returns", t, "delete_forgets", "handle_delete", _forget_delete(h))
    add("hv-create-early", t, "completion", "check_create_complete", _early(h))
    add("hv-stale-attr", t, "stale_attribute", "_resolve_attribute", _stale(h))
    add(
        "hv-update-drops-call",
        t,
        "update_not_reaching",
        "handle_update",
        drop_call(
            h, "handle_update", "volumes.update", "handle_update drops its volumes.update calls"
        ),
    )
    add("hv-unknown-key", t, "unexpected_key", "handle_update", _unknown_key(h))
    add(
        "hv-restore-ignores-backup",
        t,
        "snapshot_not_restorable",
        "handle_restore",
        drop_statement(
            h,
            "handle_restore",
            "props[self.BACKUP_ID]",
            "handle_restore drops the backup id from the restored properties",
        ),
    )
    add(
        "hv-snapshot-keeps-nothing",
        t,
        "snapshot_not_restorable",
        "handle_snapshot",
        drop_call(
            h, "handle_snapshot", "data_set", "handle_snapshot does not record the backup id"
        ),
    )
    add(
        "hv-no-id",
        t,
        "resource_id_never_set",
        "handle_create",
        override(
            h,
            "resource_id_set",
            "def resource_id_set(self, inst):\n    return None\n",
            "resource_id_set (called by the inherited handle_create) records nothing",
        ),
    )
    add(
        "hv-create-retry",
        t,
        "double_create",
        "handle_create",
        rename_and_wrap(h, "handle_create", RETRY_CREATE, "handle_create runs again when it fails"),
    )

    # Heat 27: OS::Neutron::Net
    h, t = "Net", "heat-neutron-net"
    add(
        "hn-delete-drops-call",
        t,
        "delete_forgets",
        "handle_delete",
        drop_call(
            h, "handle_delete", "delete_network", "handle_delete drops the delete_network call"
        ),
    )
    add(
        "hn-delete-strict",
        t,
        "delete_not_idempotent",
        "handle_delete",
        unwrap(h, "handle_delete", "try", "handle_delete lets delete_network's not-found through"),
    )
    add(
        "hn-update-drops-call",
        t,
        "update_not_reaching",
        "handle_update",
        drop_call(
            h, "handle_update", "update_network", "handle_update drops the update_network call"
        ),
    )
    add(
        "hn-update-replaces",
        t,
        "silent_replacement",
        "handle_update",
        override(
            h,
            "handle_update",
            NET_REPLACE_ON_UPDATE,
            "handle_update makes a new network, deletes the old one and switches resource_id",
        ),
    )
    add("hn-unknown-key", t, "unexpected_key", "handle_update", _unknown_key(h))
    add("hn-create-early", t, "completion", "check_create_complete", _early(h))
    add("hn-stale-attr", t, "stale_attribute", "_resolve_attribute", _stale(h))
    add("hn-no-id", t, "resource_id_never_set", "handle_create", _no_resource_id(h))

    # Heat 27: OS::Nova::Server
    h, t = "Server", "heat-nova-server"
    add(
        "hs-suspend-nothing",
        t,
        "suspend_resume_nothing",
        "handle_suspend",
        _does_nothing(h, "suspend"),
    )
    add(
        "hs-resume-nothing",
        t,
        "suspend_resume_nothing",
        "handle_resume",
        _does_nothing(h, "resume"),
    )
    add("hs-delete-returns", t, "delete_forgets", "handle_delete", _forget_delete(h))
    add(
        "hs-restore-ignores-image",
        t,
        "snapshot_not_restorable",
        "handle_restore",
        drop_statement(
            h,
            "handle_restore",
            "props[self.IMAGE] = image_id",
            "handle_restore drops the snapshot image from the restored properties",
        ),
    )
    add("hs-create-early", t, "completion", "check_create_complete", _early(h))
    add("hs-stale-attr", t, "stale_attribute", "_resolve_attribute", _stale(h))
    add("hs-unknown-key", t, "unexpected_key", "handle_update", _unknown_key(h))
    return out
