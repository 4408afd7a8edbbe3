{%- set cls = cookiecutter.__camel_name -%}
"""A fake cloud backend: a built-in fake-cloud service plus a gadget service of its own.

plugsim builds it through the ``plugsim.fake_clouds`` entry point of the
project's ``pyproject.toml``::

    from fake_clouds import load_backend

    cloud = load_backend("{{ cookiecutter.package_name }}", seed=7)
    gadget = cloud.client("{{ cookiecutter.package_name }}").create("g1", colour="red")

A gadget is ``BUILDING`` for a sampled while (latency key
``{{ cookiecutter.package_name }}.gadget.create``), then ``READY``; deleting it
takes a while too. At most 10 gadgets may exist (quota ``gadgets``).
"""

from __future__ import annotations

from typing import Any

from fake_clouds import FakeCloud, Service, operation, register_service
from sdk import exception

COLOURS = ("red", "green", "blue")


class GadgetClient:
    """The Python client of the gadget service (dicts in, dicts out)."""

    def __init__(self, service: Any) -> None:
        self.service = service

    def create(self, name: str, colour: str = "red") -> dict[str, Any]:
        """Order a gadget."""
        return self.service.create_gadget(name, colour)

    def get(self, gadget_id: str) -> dict[str, Any]:
        """Return one gadget (NotFound when there is none)."""
        return self.service.get_gadget(gadget_id)

    def list(self) -> list[dict[str, Any]]:
        """Return every gadget."""
        return self.service.list_gadgets()

    def delete(self, gadget_id: str) -> None:
        """Start deleting a gadget."""
        self.service.delete_gadget(gadget_id)


@register_service
class {{ cls }}Service(Service):
    """Gadgets: named, coloured, built and scrapped in virtual time."""

    name = "{{ cookiecutter.package_name }}"
    kinds = {"gadget": "BROKEN"}
    default_quotas = {"gadgets": 10}
    client_class = GadgetClient

    @operation("gadgets.create", kind="gadget")
    def create_gadget(self, name: str, colour: str = "red") -> dict[str, Any]:
        """Create a gadget: BUILDING now, READY after a sampled build time."""
        if not isinstance(name, str) or not name:
            raise exception.BadRequest("A gadget needs a non-empty name")
        if colour not in COLOURS:
            raise exception.BadRequest(f"Unknown colour {colour!r} (known: {', '.join(COLOURS)})")
        self._check_quota("gadgets", self._count("gadget"))
        gadget = self._create("gadget", name, "BUILDING", {"colour": colour})
        self._start(gadget, "create", "BUILDING", "READY")
        return gadget.view()

    @operation("gadgets.get", kind="gadget", id_arg="gadget_id")
    def get_gadget(self, gadget_id: str) -> dict[str, Any]:
        """Return one gadget."""
        return self._get("gadget", gadget_id, label="Gadget").view()

    @operation("gadgets.list", kind="gadget")
    def list_gadgets(self) -> list[dict[str, Any]]:
        """Return the gadgets in creation order."""
        return [g.view() for g in self._list("gadget")]

    @operation("gadgets.delete", kind="gadget", id_arg="gadget_id")
    def delete_gadget(self, gadget_id: str) -> None:
        """Scrap a gadget (SCRAPPING, then gone); a busy gadget is a Conflict."""
        gadget = self._get("gadget", gadget_id, label="Gadget")
        self._require_status(gadget, ("READY", "BROKEN"), "delete")
        self._start(gadget, "delete", "SCRAPPING", None)


def backend(**kwargs: Any) -> FakeCloud:
    """The backend factory: a world with the {{ cookiecutter.service }} and gadget services."""
    return FakeCloud(services=["{{ cookiecutter.service }}", {{ cls }}Service], **kwargs)
