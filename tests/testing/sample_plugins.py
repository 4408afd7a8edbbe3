"""Sample plug-ins on the fake cloud's compute and entity clients, for the conformance suite.

``SampleServer`` is a well-behaved server plug-in: it waits for ACTIVE, tolerates
eventual consistency, deletes and waits for the server to go, suspends and
resumes, snapshots to an image (a restore boots that image) and cancels a
create by deleting the server.
``SampleZone`` is a small plug-in on the generic entity service.
The broken variants each carry one bug the suite must catch.
"""

from __future__ import annotations

from typing import Any

from sdk import attributes, constraints, exception, properties
from sdk.resource import Resource

S = properties.Schema


class SampleServer(Resource):
    """A compute server."""

    default_client_name = "compute"
    entity = "servers"

    properties_schema = {
        "name": S(S.STRING, "Server name.", update_allowed=True, default="sample"),
        "image": S(S.STRING, "Image name or id.", required=True),
        "flavor": S(
            S.STRING,
            "Flavor; changing it replaces the server.",
            default="m1.small",
            constraints=[constraints.AllowedValues(["m1.tiny", "m1.small", "m1.medium"])],
        ),
        "metadata": S(S.MAP, "Metadata.", update_allowed=True, default={}),
        "key_name": S(S.STRING, "Key pair name (cannot change).", immutable=True),
    }
    attributes_schema = {
        "status": attributes.Schema("The server status."),
        "flavor_id": attributes.Schema("The flavor id."),
    }

    def handle_create(self) -> str:
        server = self.client().servers.create(
            self.properties["name"],
            self.properties["image"],
            self.properties["flavor"],
            metadata=dict(self.properties["metadata"] or {}),
            key_name=self.properties["key_name"] or None,
        )
        self.resource_id_set(server.id)
        return server.id

    def check_create_complete(self, server_id: str) -> bool:
        try:
            server = self.client().servers.get(server_id)
        except exception.NotFound:
            return False  # eventual consistency: not visible yet
        if server.status == "ERROR":
            raise exception.ResourceInError(
                resource_status=server.status, status_reason=str(getattr(server, "fault", ""))
            )
        return server.status == "ACTIVE"

    def handle_create_cancel(self, token: Any) -> None:
        self.data_set("cancelled", "yes")
        if self.resource_id is not None:
            try:
                self.client().servers.delete(self.resource_id)
            except exception.NotFound:
                pass

    def handle_update(self, json_snippet=None, tmpl_diff=None, prop_diff=None) -> None:
        prop_diff = prop_diff or {}
        if "name" in prop_diff:
            self.client().servers.update(self.resource_id, name=prop_diff["name"])
        if "metadata" in prop_diff:
            new = dict(prop_diff["metadata"] or {})
            old = self.client().servers.get(self.resource_id).metadata
            gone = sorted(set(old) - set(new))
            if gone:  # set_meta merges: a key the template dropped goes separately
                self.client().servers.delete_meta(self.resource_id, gone)
            self.client().servers.set_meta(self.resource_id, new)

    def handle_delete(self) -> Any:
        if self.resource_id is None:
            return None
        try:
            self.client().servers.delete(self.resource_id)
        except exception.NotFound:
            return None
        return self.resource_id

    def check_delete_complete(self, server_id: Any) -> bool:
        if server_id is None:
            return True
        try:
            self.client().servers.get(server_id)
        except exception.NotFound:
            return True
        return False

    def handle_suspend(self) -> str:
        self.client().servers.suspend(self.resource_id)
        return self.resource_id

    def check_suspend_complete(self, server_id: str) -> bool:
        return self.client().servers.get(server_id).status == "SUSPENDED"

    def handle_resume(self) -> str:
        self.client().servers.resume(self.resource_id)
        return self.resource_id

    def check_resume_complete(self, server_id: str) -> bool:
        return self.client().servers.get(server_id).status == "ACTIVE"

    def handle_check(self) -> None:
        status = self.client().servers.get(self.resource_id).status
        if status not in ("ACTIVE", "SUSPENDED"):
            raise exception.ResourceInError(resource_status=status)

    def handle_snapshot(self) -> str:
        image_id = self.client().servers.create_image(self.resource_id, f"{self.name}-snap")
        self.data_set("snapshot_image_id", image_id)
        return image_id

    def check_snapshot_complete(self, image_id: str) -> bool:
        return self.client().images.get(image_id).status == "active"

    def handle_restore(self, defn: Any, restore_data: Any) -> Any:
        # the snapshot's definition booting the image the snapshot made (as Heat's server)
        image = ((restore_data or {}).get("resource_data") or {}).get("snapshot_image_id")
        if not image:
            return defn
        return defn.freeze(properties={**defn.properties, "image": image})

    def handle_delete_snapshot(self, snapshot: Any) -> None:
        image_id = (snapshot.get("resource_data") or {}).get("snapshot_image_id")
        if image_id:
            try:
                self.client().images.delete(image_id)
            except exception.NotFound:
                pass

    def handle_snapshot_delete(self, state: Any) -> Any:
        self.client().servers.create_image(self.resource_id, f"{self.name}-final")
        return self.handle_delete()

    def _resolve_attribute(self, name: str) -> Any:
        server = self.client().servers.get(self.resource_id)
        if name == "status":
            return server.status
        if name == "flavor_id":
            return server.flavor["id"]
        return None


class SampleZone(Resource):
    """A DNS-zone-like entity on the generic entity service."""

    default_client_name = "entity"
    entity = "entities"

    properties_schema = {
        "domain": S(
            S.STRING,
            "Zone name.",
            required=True,
            constraints=[constraints.AllowedPattern(r"[a-z]{1,10}\.example")],
        ),
        "ttl": S(
            S.INTEGER,
            "TTL seconds.",
            default=300,
            update_allowed=True,
            constraints=[
                constraints.Range(min=60, max=86400),
                constraints.Modulo(step=60, offset=0),
            ],
        ),
    }
    attributes_schema = {"ttl": attributes.Schema("The zone's TTL.")}

    def handle_create(self) -> str:
        zone = self.client().entities.create(
            "zone", {"ttl": self.properties["ttl"]}, name=self.properties["domain"]
        )
        self.resource_id_set(zone.id)
        return zone.id

    def check_create_complete(self, zone_id: str) -> bool:
        try:
            return self.client().entities.get(zone_id).status == "ACTIVE"
        except exception.NotFound:
            return False

    def handle_update(self, json_snippet=None, tmpl_diff=None, prop_diff=None) -> str:
        self.client().entities.update(self.resource_id, {"ttl": prop_diff["ttl"]})
        return self.resource_id

    def check_update_complete(self, zone_id: str) -> bool:
        return self.client().entities.get(zone_id).status == "ACTIVE"

    def _resolve_attribute(self, name: str) -> Any:
        return self.client().entities.get(self.resource_id).ttl


class LeakyServer(SampleServer):
    """Broken: delete forgets the server (leaks it)."""

    def handle_delete(self) -> Any:
        return None

    def check_delete_complete(self, server_id: Any) -> bool:
        return True


class StrictDeleteServer(SampleServer):
    """Broken: delete fails when the server is already gone."""

    def handle_delete(self) -> Any:
        if self.resource_id is None:
            return None
        self.client().servers.delete(self.resource_id)
        return self.resource_id


class HangingServer(SampleServer):
    """Broken: create blocks the event loop (a synchronous wait that never returns)."""

    def handle_create(self) -> str:
        import threading

        threading.Event().wait()
        return ""
