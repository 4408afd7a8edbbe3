"""Reference functions: get_param, get_resource, get_attr, get_file, resource_facade."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sdk import exception
from simulator.template.functions import Function, ResourceView, StaticView, resolve, select_path


def _static(fn: Function, what: str) -> StaticView:
    return StaticView(what, fn.error)


class UserParameterMissing(exception.PlugsimError):
    """A ``get_param`` in an output names a parameter the template does not declare.

    Heat 27's error for that output (the stack itself is created).
    """


class GetParam(Function):
    """``{get_param: name}`` or ``{get_param: [name, key_or_index, ...]}``."""

    __slots__ = ()

    def check(self) -> None:
        """The name is a string (or a function); literal names must be declared."""
        args = self.args
        if isinstance(args, list):
            if not args:
                raise self.error(f'The function "{self.fn_name}" must have arguments')
            name = args[0]
        elif isinstance(args, (str, Function)):
            name = args
        else:
            raise self.error(f'The argument of "{self.fn_name}" must be a name or a list')
        if isinstance(name, str):
            # Heat 27 creates a stack whose output names an undeclared parameter and reports
            # the error on that output (UserParameterMissing) when it is read
            if name not in self.scope.param_names and self.path[:1] != ["outputs"]:
                err = self.error(
                    f'The parameter "{name}" is not defined in the template '
                    f"(declare it in the parameters section)"
                )
                where = [str(p) for p in self.path[:4]]
                if len(where) == 4 and where[0] == "resources" and where[2] == "properties":
                    # Heat answers the property's validation error (UserParameterMissing)
                    err.wire_message = (  # type: ignore[attr-defined]
                        f"Property error: : {'.'.join(where)}: : "
                        f"The Parameter ({name}) was not provided."
                    )
                raise err
        elif not isinstance(name, Function):
            raise self.error(f'The parameter name in "{self.fn_name}" must be a string')

    def result(self, view: ResourceView) -> Any:
        """Return the parameter value, navigated along the optional path.

        A path step that does not exist yields ``''`` (as Heat does).
        """
        args = resolve(self.args, view)
        if isinstance(args, str):
            name, steps = args, []
        else:
            name, steps = args[0], args[1:]
        params = self.scope.parameters or {}
        if isinstance(name, str) and name not in params and name not in self.scope.param_names:
            raise UserParameterMissing(f"The Parameter ({name}) was not provided.")
        if not isinstance(name, str) or name not in params:
            raise self.error(f'The parameter "{name}" is not defined in the template')
        value = params[name]
        for step in steps:
            if not isinstance(step, (str, int)) or isinstance(step, bool):
                raise self.error(f'Path components of "{self.fn_name}" must be strings or integers')
            if isinstance(value, dict):
                if step not in value:
                    return ""
                value = value[step]
            elif isinstance(value, list):
                try:
                    value = value[int(step)]
                except (ValueError, IndexError):
                    return ""
            else:
                return ""
        return value


class GetResource(Function):
    """``{get_resource: name}``: the physical id of another resource."""

    __slots__ = ()

    def check(self) -> None:
        """The name is a string naming a resource of the template (or a function)."""
        if isinstance(self.args, str):
            if self.args not in self.scope.template.resource_names:
                raise self.error(f'The resource "{self.args}" does not exist in the template')
        elif not isinstance(self.args, Function):
            raise self.error(f'The argument of "{self.fn_name}" must be a resource name')

    def target(self) -> str | None:
        """Return the resource name when it can be known without the stack running."""
        if isinstance(self.args, str):
            return self.args
        if self.scope.checking:
            return None
        name = resolve(self.args, _static(self, f'The resource name of "{self.fn_name}"'))
        if not isinstance(name, str):
            raise self.error(f'The argument of "{self.fn_name}" must be a resource name')
        return name

    def dependencies(self) -> Iterator[str]:
        """Yield the referenced resource."""
        name = self.target()
        if name is not None:
            yield name

    def result(self, view: ResourceView) -> Any:
        """Ask the view for the resource's reference id."""
        return view.reference_id(self.target())


class GetAttr(Function):
    """``{get_attr: [resource, attribute, key_or_index, ...]}``.

    From 2015-10-15 the attribute may be left out (``{get_attr: [resource]}``)
    to get a map of every attribute.
    """

    __slots__ = ()

    #: Smallest argument count (2 before 2015-10-15, 1 from then on).
    min_args = 2

    def check(self) -> None:
        """Arguments are a list; literal resource names must exist."""
        args = self.args
        if not isinstance(args, list):
            raise self.error(f'The argument of "{self.fn_name}" must be a list')
        if len(args) < self.min_args:
            form = "[resource_name, attribute, (path), ...]"
            if self.min_args == 1:
                form = "[resource_name] or " + form
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form {form}')
        name = args[0]
        if isinstance(name, str):
            if name not in self.scope.template.resource_names:
                raise self.error(f'The resource "{name}" does not exist in the template')
        elif not isinstance(name, Function):
            raise self.error(f'The resource name in "{self.fn_name}" must be a string')
        if len(args) > 1 and not isinstance(args[1], (str, Function)):
            raise self.error(f'The attribute name in "{self.fn_name}" must be a string')

    def target(self) -> str | None:
        """Return the resource name when it can be known without the stack running."""
        name = self.args[0]
        if isinstance(name, str):
            return name
        if self.scope.checking:
            return None
        name = resolve(name, _static(self, f'The resource name of "{self.fn_name}"'))
        if not isinstance(name, str):
            raise self.error(f'The resource name in "{self.fn_name}" must be a string')
        return name

    def attribute_name(self) -> str | None:
        """Return the literal attribute name (None for all-attributes or a function)."""
        if len(self.args) > 1 and isinstance(self.args[1], str):
            return self.args[1]
        return None

    def dependencies(self) -> Iterator[str]:
        """Yield the referenced resource and any referenced in the path."""
        name = self.target()
        if name is not None:
            yield name
        from simulator.template.functions import dependencies

        yield from dependencies(self.args[1:])

    def result(self, view: ResourceView) -> Any:
        """Ask the view for the attribute (navigated along the path)."""
        name = self.target()
        if len(self.args) == 1:
            return view.attribute(name, None, [])
        attr = resolve(self.args[1], view)
        if not isinstance(attr, str):
            raise self.error(f'The attribute name in "{self.fn_name}" must be a string')
        path = resolve(self.args[2:], view)
        return view.attribute(name, attr, path)


class GetAttrAll(GetAttr):
    """``get_attr`` from 2015-10-15: the attribute name is optional."""

    __slots__ = ()
    min_args = 1


class GetFile(Function):
    """``{get_file: path}``: the content of a file.

    The file comes from the ``files`` map given to
    :func:`~simulator.template.load_template`, or from a path relative to the
    template's own directory. Paths that leave that directory tree (``..``,
    absolute paths elsewhere, symlinks out) are refused.
    """

    __slots__ = ()

    def check(self) -> None:
        """The argument is a string; a literal one is read (and confined) now."""
        if isinstance(self.args, str):
            self.scope.template.read_file(self.args, [*self.path, self.fn_name])
        elif not isinstance(self.args, Function):
            raise self.error(f'The argument of "{self.fn_name}" must be a file name string')

    def result(self, view: ResourceView) -> Any:
        """Return the file's text."""
        key = resolve(self.args, view)
        if not isinstance(key, str):
            raise self.error(f'The argument of "{self.fn_name}" must be a file name string')
        return self.scope.template.read_file(key, [*self.path, self.fn_name])


class ResourceFacade(Function):
    """``{resource_facade: metadata|deletion_policy|update_policy}`` (nested stacks)."""

    __slots__ = ()

    KINDS = ("metadata", "deletion_policy", "update_policy")

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
        return view.resource_facade(self.args)


# The select helper is re-exported for the engine's views.
__all__ = [
    "GetAttr",
    "GetAttrAll",
    "GetFile",
    "GetParam",
    "GetResource",
    "ResourceFacade",
    "select_path",
]
