"""The mutation benchmark's targets and mutants (``tools/mutants.py`` runs them).

A *target* is one plug-in module the benchmark copies into a temporary
directory at run time (the bundled example, a freshly scaffolded plug-in, or
one of Heat 27's in-tree modules from the Heat install), with what
``plugsim conformance`` needs to run its type. A *mutant* is one bug class
planted in one handler by the transformations of :mod:`mutants_ops`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mutants_ops import (
    Op,
    chain,
    defer_call,
    drop_call,
    override,
    prepend,
    rename_and_wrap,
    substitute,
    unwrap,
)

#: The bug classes of issue 30, in report order: ``key -> what the bug is``.
CLASSES: dict[str, str] = {
    "delete_forgets": "delete forgets the cloud object",
    "delete_not_idempotent": "delete of an already-gone object raises",
    "create_leaks": "create leaks its object on a later failure",
    "completion": "completion reported early or never",
    "silent_replacement": "update silently replaces the object",
    "update_not_reaching": "update does not reach the cloud",
    "unexpected_key": "update crashes on a prop_diff key it does not know",
    "suspend_resume_nothing": "suspend/resume does nothing",
    "resource_id_never_set": "resource_id never set",
    "stale_attribute": "attribute served from a cached value",
    "double_create": "a retried create leaves two objects",
    "snapshot_not_restorable": "snapshot cannot be restored",
    "delete_never_created": "delete of a never-created resource crashes",
}


@dataclass(frozen=True)
class Target:
    """One plug-in module and one of its types, as the benchmark runs it."""

    name: str
    source: str  # "example", "scaffold" or "heat"
    file: str  # the module: a repository path, the scaffold's module, or Heat's relative path
    type_name: str
    class_name: str
    properties: dict[str, Any] = field(default_factory=dict)
    companions: dict[str, Any] = field(default_factory=dict)
    updates: dict[str, Any] | None = None
    #: extra ``-k`` words, for a test class whose name another one's contains
    keyword_extra: str = ""
    #: the fake cloud's world (``plugsim --world``): one holding the objects the type's
    #: properties name (volume types for a volume), None for the default world
    world: str | None = None

    @property
    def test_class(self) -> str:
        """The conformance class ``plugsim conformance`` generates for the type."""
        return "Test_" + "".join(ch if ch.isalnum() else "_" for ch in self.type_name)


@dataclass(frozen=True)
class Mutant:
    """One planted bug: its class, the handler it is in, and the transformation."""

    id: str
    target: str
    bug_class: str
    handler: str
    op: Op


EXAMPLE = "examples/three-tier/plugins/example_cloud.py"
TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target("example-network", "example", EXAMPLE, "Example::Net::Network", "Network"),
        Target(
            "example-server",
            "example",
            EXAMPLE,
            "Example::Compute::Server",
            "Server",
            properties={"name": "web", "network": {"get_resource": "net"}},
            companions={"net": {"type": "Example::Net::Network", "properties": {"name": "n"}}},
            # the derived replacing change is an image id the fake cloud does not have
            updates={"update_in_place": {"flavor": "m1.tiny"}, "update_replace": {"name": "web-2"}},
        ),
        Target("example-volume", "example", EXAMPLE, "Example::Storage::Volume", "Volume"),
        Target("scaffold-thing", "scaffold", "resource.py", "Example::Widget::Thing", "Thing"),
        Target(
            "heat-cinder-volume",
            "heat",
            "engine/resources/openstack/cinder/volume.py",
            "OS::Cinder::Volume",
            "CinderVolume",
            properties={"size": 1},
            keyword_extra="not Attachment",
            # devstack's world has volume types: volume_type is drawn from them
            world="devstack",
        ),
        Target(
            "heat-neutron-net",
            "heat",
            "engine/resources/openstack/neutron/net.py",
            "OS::Neutron::Net",
            "Net",
        ),
        Target(
            "heat-nova-server",
            "heat",
            "engine/resources/openstack/nova/server.py",
            "OS::Nova::Server",
            "Server",
            properties={"flavor": "m1.tiny", "image": "cirros"},
        ),
    )
}

# -- bodies of this project's own writing, shared by several mutants --------------------

RETURN_NONE = "def {m}(self, *args, **kwargs):\n    return None\n"
RETURN_TRUE = "def {m}(self, *args, **kwargs):\n    return True\n"
RETURN_FALSE = "def {m}(self, *args, **kwargs):\n    return False\n"

#: handle_update written before the newest update-allowed property (last by name) existed.
UNKNOWN_KEY = """
handled = sorted(k for k, s in self.properties_schema.items() if s.update_allowed)[:-1]
for key in prop_diff or {}:
    if key not in handled:
        raise KeyError(key)
"""

#: _resolve_attribute answering from the first value it read.
CACHED_ATTRIBUTE = """
def _resolve_attribute(self, name):
    import json

    kept = self.data().get("mutant-cache-" + name)
    if kept is not None:
        return json.loads(kept)
    value = self._mutant_original(name)
    self.data_set("mutant-cache-" + name, json.dumps(value, default=str))
    return value
"""

#: handle_create that starts over when anything in it fails, forgetting the first attempt.
RETRY_CREATE = """
def handle_create(self):
    try:
        return self._mutant_original()
    except Exception:
        return self._mutant_original()
"""


def _ret(template: str, method: str) -> str:
    return template.format(m=method)


def _does_nothing(cls: str, action: str) -> Op:
    return chain(
        f"handle_{action} returns at once and check_{action}_complete says done",
        override(cls, f"handle_{action}", _ret(RETURN_NONE, f"handle_{action}"), ""),
        override(
            cls, f"check_{action}_complete", _ret(RETURN_TRUE, f"check_{action}_complete"), ""
        ),
    )


def _forget_delete(cls: str) -> Op:
    return override(
        cls, "handle_delete", _ret(RETURN_NONE, "handle_delete"), "handle_delete returns at once"
    )


def _early(cls: str, method: str = "check_create_complete") -> Op:
    return override(cls, method, _ret(RETURN_TRUE, method), f"{method} says done at the first poll")


def _never(cls: str, method: str) -> Op:
    return override(cls, method, _ret(RETURN_FALSE, method), f"{method} never says done")


def _stale(cls: str) -> Op:
    return rename_and_wrap(
        cls,
        "_resolve_attribute",
        CACHED_ATTRIBUTE,
        "_resolve_attribute keeps the first value it read",
    )


def _unknown_key(cls: str) -> Op:
    return prepend(
        cls,
        "handle_update",
        UNKNOWN_KEY,
        "handle_update raises KeyError on the update-allowed property it was not written for "
        "(the last by name)",
    )


def _no_resource_id(cls: str) -> Op:
    return drop_call(
        cls, "handle_create", "resource_id_set", "handle_create never calls resource_id_set"
    )


# -- the scaffold's and the example's own code (ours to rewrite) -------------------------

SERVER_ID_WHEN_READY = """
def check_create_complete(self, server_id):
    done = self._status(server_id) == "ACTIVE"
    if done:
        self.resource_id_set(server_id)
    return done
"""

SERVER_DELETE_STRICT = """
def handle_delete(self):
    if self.resource_id is None:
        return None
    self.client().servers.delete(self.resource_id)
    return self.resource_id
"""

THING_ID_WHEN_READY = """
def check_create_complete(self, thing_id):
    info = self._fetch(thing_id)
    if self._ready(info):
        self.resource_id_set(thing_id)
        return True
    return False
"""

THING_RECREATE_ON_POLL_ERROR = """
def check_create_complete(self, thing_id):
    try:
        info = self._fetch(self.resource_id)
    except Exception:
        again = self.client().entities.create(
            KIND,
            {"size": self.properties["size"], "zone": self.properties["zone"]},
            name=self.properties["name"],
        )
        self.resource_id_set(again.id)
        return False
    return self._ready(info)
"""

THING_REPLACE_ON_UPDATE = """
def handle_update(self, json_snippet, tmpl_diff, prop_diff):
    if not prop_diff:
        return None
    client = self.client()
    fresh = client.entities.create(
        KIND,
        {"size": self.properties["size"], "zone": self.properties["zone"]},
        name=prop_diff["name"],
    )
    client.entities.delete(self.resource_id)
    self.resource_id_set(fresh.id)
    return fresh.id
"""

THING_DELETE_STRICT = """
def handle_delete(self):
    if self.resource_id is None:
        return None
    self.client().entities.delete(self.resource_id)
    return self.resource_id
"""

THING_DELETE_UNGUARDED = """
def handle_delete(self):
    size = self._fetch(self.resource_id)["size"]
    self.client().entities.delete(self.resource_id)
    return self.resource_id if size else None
"""


def _mutants() -> list[Mutant]:
    out: list[Mutant] = []

    def add(mid: str, target: str, bug: str, handler: str, op: Op) -> None:
        out.append(Mutant(mid, target, bug, handler, op))

    # example: Network (network + subnet, no check_create_complete)
    n, t = "Network", "example-network"
    add(
        "en-delete-drops-call",
        t,
        "delete_forgets",
        "handle_delete",
        drop_call(
            n, "handle_delete", "delete_network", "handle_delete drops the delete_network call"
        ),
    )
    add("en-delete-returns", t, "delete_forgets", "handle_delete", _forget_delete(n))
    add(
        "en-delete-strict",
        t,
        "delete_not_idempotent",
        "handle_delete",
        unwrap(
            n, "handle_delete", "try", "handle_delete lets delete_network's not-found through", 1
        ),
    )
    add(
        "en-create-id-last",
        t,
        "create_leaks",
        "handle_create",
        defer_call(
            n,
            "handle_create",
            "resource_id_set",
            "handle_create records the network's id only after the subnet is made",
        ),
    )
    add(
        "en-create-retry",
        t,
        "double_create",
        "handle_create",
        rename_and_wrap(
            n,
            "handle_create",
            RETRY_CREATE,
            "handle_create starts over when a later call fails, forgetting the first network",
        ),
    )
    add("en-no-id", t, "resource_id_never_set", "handle_create", _no_resource_id(n))
    add(
        "en-delete-assumes-created",
        t,
        "delete_never_created",
        "handle_delete",
        chain(
            "handle_delete has no guard for a missing id and indexes data['subnet_id']",
            substitute(n, "handle_delete", "if self.resource_id is None:", "if False:", ""),
            substitute(
                n, "handle_delete", 'self.data().get("subnet_id")', 'self.data()["subnet_id"]', ""
            ),
        ),
    )
    add(
        "en-never-ready",
        t,
        "completion",
        "check_create_complete",
        _never(n, "check_create_complete"),
    )

    # example: Server (polled create, suspend/resume, status attribute)
    s, t = "Server", "example-server"
    add(
        "es-suspend-nothing",
        t,
        "suspend_resume_nothing",
        "handle_suspend",
        _does_nothing(s, "suspend"),
    )
    add(
        "es-resume-nothing",
        t,
        "suspend_resume_nothing",
        "handle_resume",
        _does_nothing(s, "resume"),
    )
    add("es-create-early", t, "completion", "check_create_complete", _early(s))
    add(
        "es-create-never",
        t,
        "completion",
        "check_create_complete",
        _never(s, "check_create_complete"),
    )
    add("es-stale-status", t, "stale_attribute", "_resolve_attribute", _stale(s))
    add("es-delete-returns", t, "delete_forgets", "handle_delete", _forget_delete(s))
    add(
        "es-delete-strict",
        t,
        "delete_not_idempotent",
        "handle_delete",
        override(
            s,
            "handle_delete",
            SERVER_DELETE_STRICT,
            "handle_delete lets the delete's not-found through",
        ),
    )
    add("es-no-id", t, "resource_id_never_set", "handle_create", _no_resource_id(s))
    add(
        "es-id-when-ready",
        t,
        "create_leaks",
        "check_create_complete",
        chain(
            "the server's id is recorded only once it is ACTIVE (a failed poll leaks it)",
            _no_resource_id(s),
            override(s, "check_create_complete", SERVER_ID_WHEN_READY, ""),
        ),
    )
    add("es-unknown-key", t, "unexpected_key", "handle_update", _unknown_key(s))

    # example: Volume (polled create, delete done in check_delete_complete)
    v, t = "Volume", "example-volume"
    add("ev-create-early", t, "completion", "check_create_complete", _early(v))
    add(
        "ev-delete-drops-call",
        t,
        "delete_forgets",
        "check_delete_complete",
        drop_call(
            v,
            "check_delete_complete",
            "volumes.delete",
            "check_delete_complete drops the volumes.delete call",
        ),
    )
    add(
        "ev-delete-strict",
        t,
        "delete_not_idempotent",
        "check_delete_complete",
        unwrap(
            v,
            "check_delete_complete",
            "try",
            "check_delete_complete lets the get's not-found through",
        ),
    )
    add("ev-no-id", t, "resource_id_never_set", "handle_create", _no_resource_id(v))

    # the scaffolded plug-in (entity service; update in place, check, attributes)
    c, t = "Thing", "scaffold-thing"
    add(
        "st-update-drops-call",
        t,
        "update_not_reaching",
        "handle_update",
        drop_call(
            c, "handle_update", "entities.update", "handle_update drops the entities.update call"
        ),
    )
    add(
        "st-update-replaces",
        t,
        "silent_replacement",
        "handle_update",
        override(
            c,
            "handle_update",
            THING_REPLACE_ON_UPDATE,
            "handle_update makes a new thing, deletes the old one and switches resource_id",
        ),
    )
    add("st-unknown-key", t, "unexpected_key", "handle_update", _unknown_key(c))
    add("st-stale-attr", t, "stale_attribute", "_resolve_attribute", _stale(c))
    add("st-create-early", t, "completion", "check_create_complete", _early(c))
    add(
        "st-update-never",
        t,
        "completion",
        "check_update_complete",
        _never(c, "check_update_complete"),
    )
    add("st-delete-returns", t, "delete_forgets", "handle_delete", _forget_delete(c))
    add(
        "st-delete-strict",
        t,
        "delete_not_idempotent",
        "handle_delete",
        override(
            c,
            "handle_delete",
            THING_DELETE_STRICT,
            "handle_delete lets the delete's not-found through",
        ),
    )
    add(
        "st-delete-unguarded",
        t,
        "delete_never_created",
        "handle_delete",
        override(
            c,
            "handle_delete",
            THING_DELETE_UNGUARDED,
            "handle_delete reads the thing first, with no guard for a missing id",
        ),
    )
    add("st-no-id", t, "resource_id_never_set", "handle_create", _no_resource_id(c))
    add(
        "st-id-when-ready",
        t,
        "create_leaks",
        "check_create_complete",
        chain(
            "the thing's id is recorded only once it is ACTIVE (a failed poll leaks it)",
            _no_resource_id(c),
            override(c, "check_create_complete", THING_ID_WHEN_READY, ""),
        ),
    )
    add(
        "st-recreate-on-poll-error",
        t,
        "double_create",
        "check_create_complete",
        override(
            c,
            "check_create_complete",
            THING_RECREATE_ON_POLL_ERROR,
            "check_create_complete creates the thing again when a poll fails",
        ),
    )

    from mutants_heat import heat_mutants  # here: it imports this module's helpers

    return out + heat_mutants()


MUTANTS: list[Mutant] = _mutants()
