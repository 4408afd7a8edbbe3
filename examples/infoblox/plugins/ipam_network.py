"""``Acme::Infoblox::Network``: an IPAM network on an Infoblox grid, over WAPI with requests.

An example plug-in in the style of heat-infoblox's: it talks to the grid itself, so
plugsim needs a fake of the grid's API (``infoblox_fake``) to run it.
"""

from __future__ import annotations

from typing import Any

import requests

from sdk import properties
from sdk.resource import Resource

WAPI = "v2.7"


class IpamNetwork(Resource):
    """A network (a CIDR in a network view) managed on an Infoblox grid."""

    properties_schema = {  # noqa: RUF012 - the plug-in contract
        "grid": properties.Schema(properties.Schema.STRING, "The grid's host name.", required=True),
        "cidr": properties.Schema(properties.Schema.STRING, "The network.", required=True),
        "network_view": properties.Schema(
            properties.Schema.STRING, "The network view.", default="default"
        ),
    }

    def _url(self, path: str) -> str:
        return f"https://{self.properties['grid']}/wapi/{WAPI}/{path}"

    def handle_create(self) -> None:
        body = {"network": self.properties["cidr"], "network_view": self.properties["network_view"]}
        answer = requests.post(self._url("network"), json=body, timeout=30)
        if answer.status_code != 201:
            raise RuntimeError(f"WAPI refused the network: {answer.json().get('text')}")
        self.resource_id_set(answer.json())

    def handle_delete(self) -> None:
        if self.resource_id:
            answer = requests.delete(self._url(self.resource_id), timeout=30)
            if answer.status_code not in (200, 404):
                raise RuntimeError(f"WAPI refused the delete: {answer.json().get('text')}")


def resource_mapping() -> dict[str, Any]:
    return {"Acme::Infoblox::Network": IpamNetwork}
