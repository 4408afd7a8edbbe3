"""Plug-ins for the oracle tests: one correct ``Box`` and ``Server``, and one planted bug each.

``Box`` is a widget on the generic entity service with two updatable
properties (``size`` and ``tier``); ``GoodServer`` is a compute server that
suspends, resumes and snapshots. Each broken variant carries exactly one bug
of a class the oracles of :mod:`sdk.testing.oracles` must catch.
"""

from __future__ import annotations

from typing import Any

from sample_plugins import SampleServer

from sdk import attributes, constraints, exception, properties
from sdk.resource import Resource

S = properties.Schema


class Box(Resource):
    """A correct widget: create, update in place, delete."""

    default_client_name = "entity"
    entity = "entities"

    properties_schema = {
        "label": S(
            S.STRING, "Label.", default="box", constraints=[constraints.Length(min=1, max=20)]
        ),
        "size": S(
            S.INTEGER,
            "Size.",
            default=1,
            update_allowed=True,
            constraints=[constraints.Range(1, 9)],
        ),
        "tier": S(
            S.STRING,
            "Tier.",
            default="bronze",
            update_allowed=True,
            constraints=[constraints.AllowedValues(["bronze", "silver", "gold"])],
        ),
    }
    attributes_schema = {"size": attributes.Schema("The size the cloud holds.")}

    def _fields(self) -> dict[str, Any]:
        return {"size": self.properties["size"], "tier": self.properties["tier"]}

    def handle_create(self) -> str:
        box = self.client().entities.create("box", self._fields(), name=self.properties["label"])
        self.resource_id_set(box.id)
        return box.id

    def check_create_complete(self, box_id: str) -> bool:
        try:
            return self.client().entities.get(box_id).status == "ACTIVE"
        except exception.NotFound:
            return False

    def handle_update(self, json_snippet=None, tmpl_diff=None, prop_diff=None) -> None:
        if prop_diff:
            self.client().entities.update(self.resource_id, dict(prop_diff))

    def check_update_complete(self, token: Any = None) -> bool:
        return self.client().entities.get(self.resource_id).status == "ACTIVE"

    def handle_delete(self) -> Any:
        if self.resource_id is None:
            return None
        try:
            self.client().entities.delete(self.resource_id)
        except exception.NotFound:
            return None
        return self.resource_id

    def check_delete_complete(self, box_id: Any) -> bool:
        if box_id is None:
            return True
        try:
            self.client().entities.get(box_id)
        except exception.NotFound:
            return True
        return False

    def _resolve_attribute(self, name: str) -> Any:
        return getattr(self.client().entities.get(self.resource_id), name, None)


class ReplacingBox(Box):
    """Broken: an in-place update makes a new object (same name), deletes the old one."""

    def handle_update(self, json_snippet=None, tmpl_diff=None, prop_diff=None) -> None:
        fields = {**self._fields(), **dict(prop_diff or {})}
        new = self.client().entities.create("box", fields, name=self.properties["label"])
        self.client().entities.delete(self.resource_id)
        self.resource_id_set(new.id)

    def check_update_complete(self, token: Any = None) -> bool:
        return self.client().entities.get(self.resource_id).status == "ACTIVE"


class DeafBox(Box):
    """Broken: the update of ``size`` never reaches the cloud (only ``tier`` is sent)."""

    def handle_update(self, json_snippet=None, tmpl_diff=None, prop_diff=None) -> None:
        if prop_diff and "tier" in prop_diff:
            self.client().entities.update(self.resource_id, {"tier": prop_diff["tier"]})


class KeyErrorBox(Box):
    """Broken: ``handle_update`` knows only ``size``; ``tier`` (added later) is a KeyError."""

    CLOUD_FIELDS = {"size": "size"}

    def handle_update(self, json_snippet=None, tmpl_diff=None, prop_diff=None) -> None:
        fields = {self.CLOUD_FIELDS[k]: v for k, v in (prop_diff or {}).items()}
        self.client().entities.update(self.resource_id, fields)


class ImageKeyErrorBox(KeyErrorBox):
    """Broken: ``image`` (an object the cloud must hold) was added later; ``handle_update``
    knows ``size`` and ``tier`` only, so an image change is a KeyError."""

    CLOUD_FIELDS = {"size": "size", "tier": "tier"}
    properties_schema = {
        **Box.properties_schema,
        "image": S(
            S.STRING,
            "Image the box copies (one the cloud holds).",
            update_allowed=True,
            constraints=[constraints.CustomConstraint("glance.image")],
        ),
    }


class PickyKeyErrorBox(KeyErrorBox):
    """Broken as ``KeyErrorBox`` (a KeyError on ``tier``), and its validation refuses any size
    but 1, so a change of every property at once never reaches ``handle_update``."""

    def validate(self) -> None:
        super().validate()
        if self.properties["size"] != 1:
            raise exception.StackValidationFailed(
                error_message="only size 1 is on offer",
                path=["resources", self.name, "properties", "size"],
            )


class LateIdBox(Box):
    """Broken: the id is recorded only once the box is ACTIVE, so a poll that fails before
    leaves the engine unaware of the box (a retried create makes a second one)."""

    def handle_create(self) -> str:
        box = self.client().entities.create("box", self._fields(), name=self.properties["label"])
        return box.id

    def check_create_complete(self, box_id: str) -> bool:
        if self.client().entities.get(box_id).status != "ACTIVE":
            return False
        self.resource_id_set(box_id)
        return True


class NamedBox(Box):
    """Correct: a box whose ``name`` changes in place; its ``name`` attribute mirrors the
    cloud object's name."""

    properties_schema = {
        **Box.properties_schema,
        "name": S(
            S.STRING,
            "Name.",
            default="box",
            update_allowed=True,
            constraints=[constraints.Length(min=1, max=20)],
        ),
    }
    attributes_schema = {
        **Box.attributes_schema,
        "name": attributes.Schema("The name the cloud holds."),
    }

    def handle_create(self) -> str:
        box = self.client().entities.create("box", self._fields(), name=self.properties["name"])
        self.resource_id_set(box.id)
        return box.id

    def handle_update(self, json_snippet=None, tmpl_diff=None, prop_diff=None) -> None:
        diff = dict(prop_diff or {})
        name = diff.pop("name", None)
        if diff or name:
            self.client().entities.update(self.resource_id, diff, name=name)


class CachedNameBox(NamedBox):
    """Broken: the ``name`` attribute is the first one read, kept in resource data."""

    def _resolve_attribute(self, name: str) -> Any:
        if name != "name":
            return super()._resolve_attribute(name)
        if "name" not in self.data():
            self.data_set("name", super()._resolve_attribute(name))
        return self.data()["name"]


class ChattyBox(Box):
    """Broken: pushes its fields to the cloud on every update the engine considers, changed or not."""

    async def update(self, after: Any, before: Any = None, *args: Any, **kwargs: Any) -> Any:
        out = await super().update(after, before, *args, **kwargs)
        self.client().entities.update(self.resource_id, self._fields())
        return out


class DoublingBox(Box):
    """Broken: reads the object back before recording its id; a retried create makes a second."""

    def handle_create(self) -> str:
        box = self.client().entities.create("box", self._fields(), name=self.properties["label"])
        box = self.client().entities.get(box.id)
        self.resource_id_set(box.id)
        return box.id


class ReadBackBox(Box):
    """Correct: the same read-back as ``DoublingBox`` but the id is recorded first."""

    def handle_create(self) -> str:
        box = self.client().entities.create("box", self._fields(), name=self.properties["label"])
        self.resource_id_set(box.id)
        box = self.client().entities.get(box.id)
        return box.id


class GoodServer(SampleServer):
    """Correct: the sample server with a name the cloud accepts (never empty)."""

    properties_schema = {
        **SampleServer.properties_schema,
        "name": S(
            S.STRING,
            "Server name.",
            update_allowed=True,
            default="sample",
            constraints=[constraints.Length(min=1, max=64)],
        ),
    }


class ImagelessRestoreServer(GoodServer):
    """Broken: restore brings back the definition but never the image the snapshot made."""

    def handle_restore(self, defn: Any, restore_data: Any) -> Any:
        return defn


class EarlyServer(GoodServer):
    """Broken: says the create is complete at the first poll, while the server still builds."""

    def check_create_complete(self, server_id: str) -> bool:
        return True


class RecreatingBox(Box):
    """Broken: a poll that fails makes the box again (the first one is forgotten)."""

    def check_create_complete(self, box_id: str) -> bool:
        try:
            return self.client().entities.get(self.resource_id).status == "ACTIVE"
        except exception.Conflict:
            again = self.client().entities.create(
                "box", self._fields(), name=self.properties["label"]
            )
            self.resource_id_set(again.id)
            return False


class LooseServer(SampleServer):
    """Broken: its ``name`` takes the empty string, which the cloud refuses."""


class LazySuspendServer(GoodServer):
    """Broken: suspend and resume complete without asking the cloud."""

    def handle_suspend(self) -> None:
        return None

    def check_suspend_complete(self, token: Any = None) -> bool:
        return True

    def handle_resume(self) -> None:
        return None

    def check_resume_complete(self, token: Any = None) -> bool:
        return True


class CachedStatusServer(GoodServer):
    """Broken: the ``status`` attribute is the one seen at create, kept in resource data."""

    def check_create_complete(self, server_id: str) -> bool:
        done = super().check_create_complete(server_id)
        if done:
            self.data_set("status", self.client().servers.get(server_id).status)
        return done

    def _resolve_attribute(self, name: str) -> Any:
        if name == "status":
            return self.data().get("status")
        return super()._resolve_attribute(name)


class StaleRestoreServer(GoodServer):
    """Broken: restore keeps the definition the server has now, not the snapshot's."""

    def handle_restore(self, defn: Any, restore_data: Any) -> Any:
        return self.t
