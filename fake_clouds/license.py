"""A fake license server: seat pools per product, checked out by holders.

Operators use it (through a stack lifecycle plug-in) to consult a license
service before an application is deployed::

    svc = cloud.service("license")
    svc.define_pool("db-enterprise", seats=4)
    client = cloud.client("license")
    client.licenses.checkout("db-enterprise", seats=2, holder="stack-id")  # or Conflict
    client.licenses.release("stack-id")

A checkout that would exceed the pool is denied with
:class:`sdk.exception.Conflict` (HTTP 409) naming the product, the seats
asked for and the seats free. Checking out
again for the same holder replaces its previous grant. The state lives in the
service's counters, so it is saved with the world.

The service is not in the default world (its service list is fixed); add it
with :func:`add_license_service`.
"""

from __future__ import annotations

import re
from typing import Any

from fake_clouds.core.registry import register_service
from fake_clouds.core.service import Service, operation
from sdk import exception

_PRODUCT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def _product(value: Any) -> str:
    if not isinstance(value, str) or not _PRODUCT.match(value):
        raise exception.BadRequest(f"Invalid license product {value!r}")
    return value


def _seats(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise exception.BadRequest(f"Invalid seat count {value!r}: a non-negative integer")
    return value


def _holder(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise exception.BadRequest(f"Invalid license holder {value!r}")
    return value


class LicenseManager:
    """``client.licenses``: checkout, release and pool status."""

    def __init__(self, service: LicenseService) -> None:
        self.service = service

    def checkout(self, product: str, seats: int = 1, holder: str = "") -> dict[str, Any]:
        """Take *seats* of *product* for *holder*; denied (Conflict) when too few are free."""
        return self.service.checkout(product, seats, holder)

    def release(self, holder: str, product: str | None = None) -> list[str]:
        """Give back what *holder* holds (of *product*, or of every product)."""
        return self.service.release(holder, product)

    def status(self, product: str) -> dict[str, Any]:
        """Return ``{product, seats, used, free, holders}``."""
        return self.service.pool_status(product)


class LicenseClient:
    """The Python client of the license service."""

    def __init__(self, service: LicenseService) -> None:
        self.licenses = LicenseManager(service)


@register_service
class LicenseService(Service):
    """Seat pools of licensed products."""

    name = "license"
    kinds: dict[str, str] = {}  # noqa: RUF012 - no entities: pools live in the counters
    client_class = LicenseClient

    def _pools(self) -> dict[str, Any]:
        return self.counters.setdefault("pools", {})

    def _pool(self, product: str) -> dict[str, Any]:
        pool = self._pools().get(_product(product))
        if pool is None:
            raise exception.NotFound(f"No license pool for product {product}")
        return pool

    def define_pool(self, product: str, seats: int) -> None:
        """Create or resize the pool of *product* (seats already held stay held)."""
        pool = self._pools().setdefault(_product(product), {"seats": 0, "holders": {}})
        pool["seats"] = _seats(seats)

    @operation("licenses.checkout", kind="license")
    def checkout(self, product: str, seats: int = 1, holder: str = "") -> dict[str, Any]:
        """Grant *seats* of *product* to *holder* or raise Conflict (license denied)."""
        pool = self._pool(product)
        seats, holder = _seats(seats), _holder(holder)
        others = sum(n for h, n in pool["holders"].items() if h != holder)
        free = pool["seats"] - others
        if seats > free:
            raise exception.Conflict(
                f"License denied: {product} needs {seats} seat(s), {free} of {pool['seats']} free"
            )
        pool["holders"][holder] = seats
        return {"product": product, "holder": holder, "seats": seats}

    @operation("licenses.release", kind="license")
    def release(self, holder: str, product: str | None = None) -> list[str]:
        """Release *holder*'s seats; return the products released (sorted)."""
        holder = _holder(holder)
        names = [_product(product)] if product is not None else sorted(self._pools())
        out = []
        for name in names:
            pool = self._pools().get(name)
            if pool is not None and pool["holders"].pop(holder, None) is not None:
                out.append(name)
        return out

    @operation("licenses.status", kind="license")
    def pool_status(self, product: str) -> dict[str, Any]:
        """Return the pool's size, use and holders."""
        pool = self._pool(product)
        used = sum(pool["holders"].values())
        return {
            "product": product,
            "seats": pool["seats"],
            "used": used,
            "free": pool["seats"] - used,
            "holders": dict(sorted(pool["holders"].items())),
        }

    def catalog_kinds(self) -> list[str]:
        """Fault rules may name the ``license`` kind."""
        return ["license"]


def add_license_service(cloud: Any, pools: dict[str, int] | None = None) -> LicenseService:
    """Add the license service to *cloud* (once) and define *pools* (product → seats)."""
    if "license" in cloud.service_names():
        svc = cloud.service("license")
    else:
        svc = cloud.add_service(LicenseService)
    for product, seats in sorted((pools or {}).items()):
        svc.define_pool(product, seats)
    return svc
