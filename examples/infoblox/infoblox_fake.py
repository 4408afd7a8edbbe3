"""A fake Infoblox grid: the part of NIOS's WAPI an IPAM plug-in uses, as a plugsim service.

Heat plug-ins for Infoblox (heat-infoblox) talk to a grid over WAPI, NIOS's REST API:
objects live under ``https://GRID/wapi/vX.Y/<type>``; ``POST`` with a JSON body makes
one and answers its reference (``network/<id>:<cidr>/<view>``) as a JSON string;
``GET`` on the type lists the objects matching the query's fields; ``GET`` or
``DELETE`` on a reference reads or removes that object. This service keeps networks and
network views as entities of the fake cloud (so a leaked network is a leak, and the world
saves and reopens them) and answers WAPI for one grid host through ``serve_http``.

Published as a fake cloud backend (``plugsim.fake_clouds`` entry point naming
:func:`backend`), every world built from it has the built-in services plus this one.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from fake_clouds.core.registry import builtin_service_names
from fake_clouds.core.service import Service

#: The grid this fake answers for (a plug-in's ``grid`` property names it).
GRID_HOST = "nios.example.test"
_URL = re.compile(r"^https://" + re.escape(GRID_HOST) + r"/wapi/v[0-9.]+/(?P<rest>[^?]*)")


class InfobloxGrid(Service):
    """Networks and network views of one Infoblox grid."""

    name = "infoblox"
    kinds = {"network": "ERROR", "networkview": "ERROR"}  # noqa: RUF012 - the Service contract

    # --- WAPI objects ----------------------------------------------------------------------

    def _ref(self, kind: str, ent: Any) -> str:
        label = (
            ent.attrs["network"] + "/" + ent.attrs["network_view"]
            if kind == "network"
            else ent.name
        )
        return f"{kind}/{ent.id}:{label}"

    def _view(self, kind: str, ent: Any) -> dict[str, Any]:
        return {"_ref": self._ref(kind, ent), **ent.attrs}

    def _visible(self, kind: str) -> list[Any]:
        return [e for e in self._list(kind) if not e.deleted]

    def create_object(self, kind: str, body: dict[str, Any]) -> tuple[int, Any]:
        if kind == "network":
            cidr = body.get("network")
            view = body.get("network_view", "default")
            if not isinstance(cidr, str) or "/" not in cidr:
                return 400, _error("Client.Ibap.Proto", f"Invalid value for network: {cidr!r}")
            if any(
                e.attrs["network"] == cidr and e.attrs["network_view"] == view
                for e in self._visible("network")
            ):
                return 400, _error(
                    "Client.Ibap.Data.Conflict",
                    f"The network {cidr} already exists in network view {view}.",
                )
            attrs = {"network": cidr, "network_view": view, "comment": body.get("comment", "")}
            ent = self._create("network", cidr, "ACTIVE", attrs)
        elif kind == "networkview":
            ent = self._create(
                "networkview", str(body.get("name", "")), "ACTIVE", {"name": body.get("name")}
            )
        else:
            return 400, _error("AdmConProtoError", f"Unknown object type ({kind})")
        return 201, self._ref(kind, ent)

    def find(self, kind: str, query: dict[str, str]) -> list[dict[str, Any]]:
        return [
            self._view(kind, e)
            for e in self._visible(kind)
            if all(str(e.attrs.get(k)) == v for k, v in query.items() if not k.startswith("_"))
        ]

    def by_ref(self, ref: str) -> tuple[str, Any] | None:
        kind, _, rest = ref.partition("/")
        ident = rest.split(":", 1)[0]
        if kind not in self.kinds:
            return None
        found = [e for e in self._visible(kind) if e.id == ident]
        return (kind, found[0]) if found else None

    def delete_ref(self, ref: str) -> bool:
        hit = self.by_ref(ref)
        if hit is None:
            return False
        _, ent = hit
        self._start(ent, "delete", None, None)  # gone at once, as NIOS removes it
        return True

    # --- the WAPI over HTTP ----------------------------------------------------------------

    def serve_http(self, mock: Any) -> None:
        """Answer WAPI requests for :data:`GRID_HOST` on the ``responses`` mock."""
        for method in ("GET", "POST", "PUT", "DELETE"):
            mock.add_callback(method, _URL, callback=self._answer)

    def _answer(self, request: Any) -> tuple[int, dict[str, str], str]:
        parts = urlsplit(request.url)
        rest = _URL.match(request.url).group("rest")  # type: ignore[union-attr]
        query = dict(parse_qsl(parts.query))
        method = request.method
        status: int
        body: Any
        if method == "POST" and "/" not in rest:
            status, body = self.create_object(rest, json.loads(request.body or "{}"))
        elif method == "GET" and "/" not in rest:
            status, body = (
                (200, self.find(rest, query))
                if rest in self.kinds
                else (400, _error("AdmConProtoError", f"Unknown object type ({rest})"))
            )
        elif method == "GET":
            hit = self.by_ref(rest)
            status, body = (
                (200, self._view(*hit))
                if hit
                else (404, _error("AdmConDataNotFound", f"Reference {rest} not found"))
            )
        elif method == "DELETE":
            found = self.delete_ref(rest)
            status, body = (
                (200, rest)
                if found
                else (404, _error("AdmConDataNotFound", f"Reference {rest} not found"))
            )
        else:
            status, body = 400, _error("AdmConProtoError", f"{method} is not supported here")
        return status, {"Content-Type": "application/json"}, json.dumps(body)


def _error(code: str, text: str) -> dict[str, str]:
    return {"Error": f"{code}: {text}", "code": code, "text": text}


def backend(**_: Any) -> list[Any]:
    """The ``plugsim.fake_clouds`` entry point: every built-in service, and the grid."""
    return [*builtin_service_names(), InfobloxGrid]
