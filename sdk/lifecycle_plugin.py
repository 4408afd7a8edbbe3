"""Stack lifecycle plug-ins: code the engine runs before and after stack actions.

A lifecycle plug-in is a class derived from :class:`LifecyclePlugin`,
registered through the entry-point group ``plugsim.stack_lifecycle_plugins``.
For every stack action (create, update, delete, suspend, resume, ...) the
engine calls :meth:`LifecyclePlugin.do_pre_op` of every registered plug-in
before the action starts and :meth:`LifecyclePlugin.do_post_op` after it ends.

The contract the engine keeps:

* Plug-ins run in ascending :meth:`~LifecyclePlugin.get_ordinal` order; plug-ins
  with equal ordinals run in the order of their registration names (the
  entry-point name, or ``module.Class`` for one given as ``module:Class``), so
  the order never depends on discovery or hash order. An ordinal that is not an
  int is a configuration error naming the plug-in.
* If a plug-in's ``do_pre_op`` raises, the action does not start. The engine
  then calls ``do_post_op`` (with ``is_stack_failure=True``) of every plug-in
  whose ``do_pre_op`` already ran, so that each can undo what it prepared, and
  the stack action fails with the pre-op error.
* ``do_post_op`` runs whether the action succeeded or failed;
  ``is_stack_failure`` tells which.
* A ``do_post_op`` that raises fails the action too; the remaining post-ops
  still run.
* Plug-ins observe; they must not modify the stack, its template or its
  resources (only its status fields). In strict mode (``--strict-lifecycle``
  and always under the pytest plugin) a change fails the action, naming the
  plug-in and the field. Every call is recorded as an event.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LifecyclePlugin", "DEFAULT_ORDINAL"]

#: The ordinal of a plug-in that does not override :meth:`LifecyclePlugin.get_ordinal`.
DEFAULT_ORDINAL = 100


class LifecyclePlugin:
    """Base class of stack lifecycle plug-ins.

    Subclasses override :meth:`do_pre_op`, :meth:`do_post_op` or both. The
    base implementations intentionally do nothing and return None: a plug-in
    that only cares about the end of actions overrides only ``do_post_op``.
    """

    def do_pre_op(
        self, context: Any, stack: Any, current_stack: Any = None, action: str | None = None
    ) -> None:
        """Run before the stack action *action* starts.

        :param context: the request context of the operation.
        :param stack: the stack the action runs on, as it is now.
        :param current_stack: for update, restore and rollback, the definition
            the stack is moving to; None otherwise.
        :param action: the stack action name, e.g. ``'CREATE'``.
        :raises Exception: to veto the action; the engine then runs the
            post-ops of the plug-ins already processed with
            ``is_stack_failure=True`` and fails the action.
        """
        return None

    def do_post_op(
        self,
        context: Any,
        stack: Any,
        current_stack: Any = None,
        action: str | None = None,
        is_stack_failure: bool = False,
    ) -> None:
        """Run after the stack action *action* ended (or was vetoed by a pre-op).

        :param context: the request context of the operation.
        :param stack: the stack the action ran on.
        :param current_stack: for update, restore and rollback, the definition
            the stack moved (or tried to move) to; None otherwise.
        :param action: the stack action name, e.g. ``'CREATE'``.
        :param is_stack_failure: True when the action failed or a pre-op
            vetoed it.
        """
        return None

    def get_ordinal(self) -> int:
        """Return this plug-in's position in the calling order (lower runs first)."""
        return DEFAULT_ORDINAL
