"""Plug-ins with one planted bug each, for the verdict and replay tests (issue 30).

``ForgetfulServer.handle_delete`` forgets the cloud object; ``NeverReadyServer``'s
``check_create_complete`` never finishes; ``LateIdServer`` records its physical id only
after a second call, so a fault injected there leaks the server.
"""

from __future__ import annotations

from typing import Any

from sdk import exception, properties
from sdk.resource import Resource

S = properties.Schema


class GoodServer(Resource):
    """A well-behaved compute server."""

    default_client_name = "compute"
    entity = "servers"
    properties_schema = {
        "name": S(S.STRING, "Server name.", update_allowed=True, default="v"),
        "image": S(S.STRING, "Image.", default="cirros"),
    }

    def handle_create(self) -> str:
        server = self.client().servers.create(
            self.properties["name"], self.properties["image"], "m1.small"
        )
        self.resource_id_set(server.id)
        return server.id

    def check_create_complete(self, server_id: str) -> bool:
        try:
            return self.client().servers.get(server_id).status == "ACTIVE"
        except exception.NotFound:
            return False

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


class ForgetfulServer(GoodServer):
    """Bug: delete forgets the server."""

    def handle_delete(self) -> Any:
        return None


class NeverReadyServer(GoodServer):
    """Bug: waits for a status the cloud never reaches."""

    def check_create_complete(self, server_id: str) -> bool:
        return self.client().servers.get(server_id).status == "RUNNING"


class LateIdServer(GoodServer):
    """Bug: reads the server back before recording its id; a fault there leaks it."""

    def handle_create(self) -> str:
        server = self.client().servers.create(
            self.properties["name"], self.properties["image"], "m1.small"
        )
        self.client().servers.get(server.id)
        self.resource_id_set(server.id)
        return server.id


def resource_mapping() -> dict[str, type]:
    return {
        "Bug::Forgetful": ForgetfulServer,
        "Bug::NeverReady": NeverReadyServer,
        "Bug::LateId": LateIdServer,
        "Bug::Good": GoodServer,
    }
