"""The CloudFormation-style functions HOT 2013-05-23 still accepts.

``Ref``, ``Fn::Select`` (kept until 2015-04-30), ``Fn::Join``, ``Fn::Split``,
``Fn::Replace``, ``Fn::Base64``, ``Fn::MemberListToMap`` and
``Fn::ResourceFacade``; and those only the CloudFormation formats have: ``Fn::FindInMap``,
``Fn::GetAtt``, ``Ref`` in a condition, ``Fn::Not``. ``Fn::GetAZs`` gives the
fake compute service's zones.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

from simulator.template.functions import Function, ResourceView, resolve
from simulator.template.functions_conditions import Not
from simulator.template.functions_core import GetAttr

_MEMBER = re.compile(r"\.member\.([0-9]+)\.(.*)", re.DOTALL)


class Ref(Function):
    """``{Ref: name}``: a parameter's value, or a resource's reference id."""

    __slots__ = ()

    def check(self) -> None:
        """The name is a declared parameter or a resource."""
        if isinstance(self.args, str):
            if (
                self.args not in self.scope.param_names
                and self.args not in self.scope.template.resource_names
            ):
                raise self.error(f'"{self.args}" is neither a parameter nor a resource')
        elif not isinstance(self.args, Function):
            raise self.error(f'The argument of "{self.fn_name}" must be a name')

    def _is_param(self, name: Any) -> bool:
        return name in self.scope.param_names

    def dependencies(self) -> Iterator[str]:
        """Yield the resource referred to (not parameters)."""
        if isinstance(self.args, str) and not self._is_param(self.args):
            yield self.args

    def result(self, view: ResourceView) -> Any:
        """Return the parameter value or the resource's reference id."""
        name = resolve(self.args, view)
        if self._is_param(name):
            return (self.scope.parameters or {}).get(name)
        return view.reference_id(name)


class Select(Function):
    """``{Fn::Select: [index_or_key, list_or_map]}``; a missing item gives ``''``."""

    __slots__ = ()

    def check(self) -> None:
        """Arguments are a list of two."""
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(
                f'Arguments to "{self.fn_name}" must be of the form [index, collection]'
            )

    def result(self, view: ResourceView) -> Any:
        """Pick the item."""
        index, collection = resolve(self.args, view)
        if collection is None:
            return ""
        if isinstance(collection, dict):
            if not isinstance(index, str):
                raise self.error(f'"{self.fn_name}" index of a map must be a string')
            return collection.get(index, "")
        if isinstance(collection, list):
            try:
                i = int(index)
            except (TypeError, ValueError):
                raise self.error(f'"{self.fn_name}" index of a list must be an integer') from None
            return collection[i] if 0 <= i < len(collection) else ""
        raise self.error(f'"{self.fn_name}" collection must be a list or a map')


class Join(Function):
    """``{Fn::Join: [delimiter, [string, ...]]}``."""

    __slots__ = ()

    def check(self) -> None:
        """Arguments are a list of two."""
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form [delimiter, list]')

    def result(self, view: ResourceView) -> str:
        """Join the strings."""
        delim, items = resolve(self.args, view)
        if not isinstance(delim, str) or not isinstance(items, list):
            raise self.error(f'Arguments to "{self.fn_name}" must be [delimiter, list]')
        for item in items:
            if item is not None and not isinstance(item, str):
                raise self.error(f"Items to join must be strings, not {item!r:.200}")
        return delim.join("" if i is None else i for i in items)


class Split(Function):
    """``{Fn::Split: [delimiter, string]}``."""

    __slots__ = ()

    def check(self) -> None:
        """Arguments are a list of two."""
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(
                f'Arguments to "{self.fn_name}" must be of the form [delimiter, string]'
            )

    def result(self, view: ResourceView) -> list[str]:
        """Split the string."""
        delim, text = resolve(self.args, view)
        if not isinstance(delim, str) or not delim or not isinstance(text, str):
            raise self.error(f'Arguments to "{self.fn_name}" must be [delimiter, string]')
        return text.split(delim)


class Replace(Function):
    """``{Fn::Replace: [{placeholder: value}, template]}``."""

    __slots__ = ()

    def check(self) -> None:
        """Arguments are a list of two."""
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form [map, string]')

    def result(self, view: ResourceView) -> str:
        """Replace every placeholder, longest first."""
        mapping, text = resolve(self.args, view)
        if not isinstance(mapping, dict) or not isinstance(text, str):
            raise self.error(f'Arguments to "{self.fn_name}" must be [map, string]')
        for key in sorted(sorted(mapping), key=len, reverse=True):
            value = mapping[key]
            if value is None:
                value = ""
            if not isinstance(value, (str, int, float)):
                raise self.error(f'"{self.fn_name}" values must be strings or numbers')
            text = text.replace(key, str(value))
        return text


class Base64(Function):
    """``{Fn::Base64: string}``: returns the string unchanged, as Heat does."""

    __slots__ = ()

    def result(self, view: ResourceView) -> str:
        """Return the string."""
        value = resolve(self.args, view)
        if not isinstance(value, str):
            raise self.error(f'The argument of "{self.fn_name}" must be a string')
        return value


class MemberListToMap(Function):
    """``{Fn::MemberListToMap: [key_name, value_name, ['.member.0.key=k', ...]]}``."""

    __slots__ = ()

    def check(self) -> None:
        """Arguments are a list of three."""
        if not isinstance(self.args, list) or len(self.args) != 3:
            raise self.error(
                f'Arguments to "{self.fn_name}" must be of the form [key_name, value_name, list]'
            )

    def result(self, view: ResourceView) -> dict[str, Any]:
        """Pair up ``.member.N.<key_name>`` and ``.member.N.<value_name>`` entries.

        As in Heat, only items whose name starts with ``.member.N.`` count
        (``Members.member.0.Key=x`` is ignored), a later item with the same name
        wins, and a member without both a key and a value gives no pair.
        """
        key_name, value_name, members = resolve(self.args, view)
        if not isinstance(members, list):
            raise self.error(f'The third argument of "{self.fn_name}" must be a list')
        named: dict[str, str] = {}
        for member in members:
            if not isinstance(member, str) or "=" not in member:
                raise self.error(f'"{self.fn_name}" items must look like ".member.0.Key=value"')
            lhs, value = member.split("=", 1)
            named[lhs] = value
        fields: dict[int, dict[str, str]] = {}
        for lhs, value in named.items():
            match = _MEMBER.match(lhs)
            if match:
                fields.setdefault(int(match.group(1)), {})[match.group(2)] = value
        return {
            f[key_name]: f[value_name]
            for _, f in sorted(fields.items())
            if key_name in f and value_name in f
        }


class CfnResourceFacade(Function):
    """``{Fn::ResourceFacade: Metadata|DeletionPolicy|UpdatePolicy}``."""

    __slots__ = ()

    KINDS = {
        "Metadata": "metadata",
        "DeletionPolicy": "deletion_policy",
        "UpdatePolicy": "update_policy",
    }

    def check(self) -> None:
        """The kind is one of the three; outside a nested stack it is an error."""
        if self.args not in self.KINDS:
            raise self.error(
                f'Incorrect argument to "{self.fn_name}": should be one of: {", ".join(self.KINDS)}'
            )
        if not self.scope.checking and self.scope.parent is None:
            raise self.error(
                f'"{self.fn_name}" can only be used in a template that is used as a '
                f"resource type (a nested stack)"
            )

    def result(self, view: ResourceView) -> Any:
        """Ask the view for the parent resource's data."""
        return view.resource_facade(self.KINDS[self.args])


class GetAZs(Function):
    """``{Fn::GetAZs: region}``: the compute availability zones (the region is ignored, as in Heat).

    A view that knows the cloud's zones answers ``availability_zones()``;
    otherwise the answer is ``["nova"]``, the one zone every plugsim world's
    fake compute service reports (and what Heat answers without a stack).
    """

    __slots__ = ()

    #: The zones when the view cannot tell (the fake clouds' single zone).
    DEFAULT_ZONES = ("nova",)

    def result(self, view: ResourceView) -> list[str]:
        """The zone names."""
        resolve(self.args, view)
        zones = getattr(view, "availability_zones", None)
        return list(zones()) if callable(zones) else list(self.DEFAULT_ZONES)


# --- functions only the CloudFormation formats have (see simulator.template.cfn_format) ------


class FindInMap(Function):
    """``{Fn::FindInMap: [map_name, key, value]}``: a value of the ``Mappings`` section."""

    __slots__ = ()

    def check(self) -> None:
        """Arguments are a list of three; a literal map name must be a mapping."""
        if not isinstance(self.args, list) or len(self.args) != 3:
            raise self.error(
                f'Arguments to "{self.fn_name}" must be of the form [map_name, key, value]'
            )
        name = self.args[0]
        if isinstance(name, str) and name not in self._mappings():
            raise self.error(f'The mapping "{name}" does not exist in the Mappings section')

    def _mappings(self) -> dict[str, Any]:
        return getattr(self.scope.template, "raw", {}).get("mappings") or {}

    def result(self, view: ResourceView) -> Any:
        """Look the value up; a missing map, key or value is an error naming all three."""
        name, key, value = resolve(self.args, view)
        try:
            return copy.deepcopy(self._mappings()[name][key][value])
        except (KeyError, TypeError, IndexError):
            raise self.error(
                f'"{self.fn_name}": Mappings has no value for [{name!r}, {key!r}, {value!r}]'
            ) from None


class CfnGetAtt(GetAttr):
    """``{Fn::GetAtt: [resource_name, attribute]}`` (exactly two arguments, no path)."""

    __slots__ = ()

    def check(self) -> None:
        """Arguments are a list of two, then the ``get_attr`` checks."""
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(
                f'Arguments to "{self.fn_name}" must be of the form [resource_name, attribute]'
            )
        super().check()


class ParamRef(Ref):
    """``{Ref: parameter}`` in a condition: parameters (and pseudo parameters) only."""

    __slots__ = ()

    def check(self) -> None:
        """A literal name must be a parameter."""
        if isinstance(self.args, str):
            if not self._is_param(self.args):
                raise self.error(
                    f'"{self.args}" is not a parameter (a condition can only refer to parameters)'
                )
        elif not isinstance(self.args, Function):
            raise self.error(f'The argument of "{self.fn_name}" must be a parameter name')

    def dependencies(self) -> Iterator[str]:
        """Parameters only: no resource."""
        return iter(())


class CfnNot(Not):
    """``{Fn::Not: [condition]}``: the condition comes in a one-item list."""

    __slots__ = ()

    def _items(self) -> list[Any]:
        return self.args

    def check(self) -> None:
        """The argument is a list of exactly one condition."""
        if not isinstance(self.args, list) or len(self.args) != 1:
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form: [condition]')
        self._check_items()
