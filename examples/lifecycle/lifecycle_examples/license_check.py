"""Consult the license server before an application is deployed.

A stack tagged ``license=<product>`` checks out one seat of *product* per
server from the fake cloud's license service before it is created or
updated; a denial fails the action with the service's message. The seats are
given back when the action fails or the stack is deleted or abandoned.
"""

from __future__ import annotations

from typing import Any

from sdk import exception
from sdk.lifecycle_plugin import LifecyclePlugin

SERVER = "OS::Nova::Server"


def _product(tags: list[str]) -> str | None:
    for tag in tags:
        key, _, value = tag.partition("=")
        if key == "license" and value:
            return value
    return None


class LicenseCheck(LifecyclePlugin):
    """Seats from the license service for every server of a licensed stack."""

    def get_ordinal(self) -> int:
        """Run after the (cheap) placement plug-ins, so a veto there costs no seat."""
        return 200

    def do_pre_op(
        self, context: Any, stack: Any, current_stack: Any = None, action: str | None = None
    ) -> None:
        """Check out one seat per server; a denial vetoes the action."""
        product = _product(stack.tags)
        if product is None or action not in ("CREATE", "UPDATE", "ADOPT", "RESTORE"):
            return
        target = current_stack if current_stack is not None else stack
        seats = len(target.resources_of_type(SERVER))
        client = context.client_plugin("license").client()
        try:
            client.licenses.checkout(product, seats, holder=stack.id)
        except exception.ClientError as ex:
            raise RuntimeError(str(ex)) from None

    def do_post_op(
        self,
        context: Any,
        stack: Any,
        current_stack: Any = None,
        action: str | None = None,
        is_stack_failure: bool = False,
    ) -> None:
        """Give the seats back when a create failed or the stack is gone."""
        product = _product(stack.tags)
        if product is None:
            return
        gone = action in ("DELETE", "ABANDON") and not is_stack_failure
        if gone or (is_stack_failure and action in ("CREATE", "ADOPT")):
            context.client_plugin("license").client().licenses.release(stack.id, product)
