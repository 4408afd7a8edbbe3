"""Private part of :class:`sdk.resource.Resource`: attribute resolution and references.

Nothing here is public API on its own; :class:`sdk.resource.Resource`
inherits it and documents the behaviour.
"""

from __future__ import annotations

import base64
import hashlib
import logging
from typing import Any

from sdk import _actions
from sdk._core import ResourceCore
from sdk.attributes import select_path

LOG = logging.getLogger("sdk.resource")


def _short_id(seed: str) -> str:
    digest = hashlib.sha256(seed.encode("utf-8")).digest()
    return base64.b32encode(digest).decode("ascii").lower()[:12]


class AttributesMixin(ResourceCore):
    """Attributes (``show`` included), ``get_attr`` paths, names and reference ids."""

    def physical_resource_name(self) -> str:
        """Return a name for the physical resource: ``<stack>-<resource>-<suffix>``.

        The 12-character suffix is derived from the resource's :attr:`uuid`
        (from the stack id and the resource name when it has none), so a
        replacement gets a new name while every run of the same stack gives the
        same names. Names longer
        than :attr:`physical_resource_name_limit` are shortened by
        :meth:`reduce_physical_resource_name`.
        """
        stack_name = str(self.stack.name).rstrip("*")
        suffix = _short_id(self.uuid or f"{self.stack.id}/{self.name}")
        name = f"{stack_name}-{self.name}-{suffix}"
        if self.physical_resource_name_limit:
            name = self.reduce_physical_resource_name(name, self.physical_resource_name_limit)
        return name

    @staticmethod
    def reduce_physical_resource_name(name: str, limit: int) -> str:
        """Shorten *name* to at most *limit* characters, keeping its unique end.

        The result is the first two characters, a hyphen, and as much of the
        end of *name* as fits.
        """
        if len(name) <= limit:
            return name
        if limit < 4:
            raise ValueError(f"A physical resource name limit must be at least 4, not {limit}")
        return name[:2] + "-" + name[len(name) - (limit - 3) :]

    def _note_attribute_error(self, name: str, ex: BaseException) -> None:
        self.attribute_errors[name] = _actions.failure_reason(ex)
        LOG.warning("Resolving attribute %s of %s failed: %s", name, self, ex)

    def _resolve_any_attribute(self, name: str) -> Any:
        """Resolve any attribute: ``show`` via :meth:`_show_resource`, others via
        :meth:`_resolve_attribute`. Not-found errors give None."""
        if name in self.BASE_ATTRIBUTES:
            if self.resource_id is None:
                return None
            try:
                return getattr(self, f"_{name}_resource")()
            except Exception as ex:
                if not self._default_client_plugin().is_not_found(ex):
                    self._note_attribute_error(name, ex)
                return None
        try:
            return self._resolve_attribute(name)
        except Exception as ex:
            if self._default_client_plugin().is_not_found(ex):
                return None
            raise

    def _resolve_attribute(self, name: str) -> Any:
        """Return the value of attribute *name*; override in plug-ins (default None)."""
        return None

    def _show_resource(self) -> dict[str, Any] | None:
        """Return the physical resource's details for the ``show`` attribute.

        Default: ``client().<entity>.get(resource_id)`` as a dict (``to_dict()``
        when it is an object); None without :attr:`entity`.
        """
        if not (self.entity and self.default_client_name):
            return None
        try:
            found = getattr(self.client(), self.entity).get(self.resource_id)
            return found if isinstance(found, dict) else found.to_dict()
        except AttributeError as ex:
            self._note_attribute_error(self.SHOW, ex)
            return None

    def get_attribute(self, key: str, *path: Any) -> Any:
        """Return attribute *key*, then follow *path* into nested maps and lists."""
        value = self.attributes[key]
        return select_path(value, path)

    def FnGetAtt(self, key: str, *path: Any) -> Any:  # noqa: N802 - Heat's name
        """For ``get_attr``: the attribute *key*, optionally navigated by *path*."""
        return self.get_attribute(key, *path)

    def FnGetAtts(self) -> dict[str, Any]:  # noqa: N802 - Heat's name
        """For ``get_attr`` of all attributes: every attribute except ``show``."""
        return {k: self.attributes[k] for k in sorted(self.attributes) if k != self.SHOW}

    def get_reference_id(self) -> str:
        """For ``get_resource``: the resource id, or the resource name before there is one."""
        return str(self.resource_id) if self.resource_id is not None else self.name

    def FnGetRefId(self) -> str:  # noqa: N802 - Heat's name
        """For the intrinsic function ``Ref`` / ``get_resource``."""
        return self.get_reference_id()
