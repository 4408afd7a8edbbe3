"""A loaded HOT template: its sections, parameter schemas and files (:class:`Template`).

:func:`simulator.template.loader.load_template` builds and checks one; everything that reads a
template (checks, definitions, functions through their scope) uses this class.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sdk import exception
from simulator.limits import DEFAULTS, Limits
from simulator.template import cfn_format, versions
from simulator.template import files as template_files
from simulator.template.capabilities import Capabilities, parse_capabilities
from simulator.template.parameters import (
    CFN_PSEUDO_PARAMETERS,
    PSEUDO_PARAMETERS,
    ParamSchema,
    parse_schema,
)


class Template:
    """A loaded, checked template (HOT, or CFN mapped onto HOT's sections).

    Attributes: ``raw`` (the dict, HOT-shaped), ``version`` (canonical date, or
    ``<key>.<version>`` for the CFN formats), ``spec``
    (:class:`~simulator.template.versions.VersionSpec`), ``source`` (file name
    or None), ``base_dir`` (directory for ``get_file`` and relative template
    resources, or None), ``files`` (the ``files`` map), ``description``,
    ``capabilities``, ``limits``; ``original`` is the dict as written (the CFN
    one for a CFN template, else ``raw``).
    """

    def __init__(
        self,
        raw: dict[str, Any],
        version: str,
        *,
        source: str | None = None,
        files: dict[str, Any] | None = None,
        base_dir: Path | None = None,
        limits: Limits = DEFAULTS,
        original: dict[str, Any] | None = None,
    ) -> None:
        self.raw = raw
        self.original = raw if original is None else original
        self.version = version
        self.spec = versions.get_spec(version)
        self.source = source
        self.files = dict(files or {})
        self.base_dir = base_dir
        #: the :class:`simulator.limits.Limits` files and resources are checked against
        self.limits = limits
        self._file_cache: dict[str, str] = {}
        #: get_file key -> the file it was read from (only keys read from disk)
        self._file_paths: dict[str, str] = {}
        self._param_schemas: dict[str, ParamSchema] | None = None

    # --- sections ------------------------------------------------------------

    @property
    def description(self) -> str:
        """The template's description ('' when absent)."""
        return self.raw.get("description") or ""

    @property
    def capabilities(self) -> dict[str, Any]:
        """The optional top-level ``capabilities`` section ({} when absent)."""
        return self.raw.get("capabilities") or {}

    def capability_annotation(self) -> Capabilities:
        """The ``capabilities`` section parsed (tag-based pairs and declared resource types)."""
        return parse_capabilities(self.raw.get("capabilities"), source=self.source)

    @property
    def resources(self) -> dict[str, Any]:
        """The raw ``resources`` section."""
        return self.raw.get("resources") or {}

    @property
    def outputs(self) -> dict[str, Any]:
        """The raw ``outputs`` section."""
        return self.raw.get("outputs") or {}

    @property
    def conditions(self) -> dict[str, Any]:
        """The raw ``conditions`` section."""
        return self.raw.get("conditions") or {}

    @property
    def parameter_groups(self) -> list[Any]:
        """The raw ``parameter_groups`` section."""
        return self.raw.get("parameter_groups") or []

    @property
    def mappings(self) -> dict[str, Any]:
        """The raw ``Mappings`` section of a CFN template ({} when absent)."""
        return self.raw.get("mappings") or {}

    @property
    def resource_names(self) -> dict[str, Any]:
        """The resource names (a dict view, fast membership), template order."""
        return self.resources

    def parameters_schema(self) -> dict[str, ParamSchema]:
        """Return ``{name: ParamSchema}`` in template order."""
        if self._param_schemas is None:
            spec, raw = self.spec, self.raw.get("parameters") or {}
            self._param_schemas = {
                name: parse_schema(name, data, spec, self.fail) for name, data in raw.items()
            }
        return self._param_schemas

    def param_names(self) -> frozenset[str]:
        """Declared parameter names plus the pseudo parameters."""
        pseudo = CFN_PSEUDO_PARAMETERS if self.spec.is_cfn else PSEUDO_PARAMETERS
        return frozenset(self.parameters_schema()) | frozenset(pseudo)

    def pseudo_parameters(self, stack_name: str, stack_id: str, project_id: str) -> dict[str, str]:
        """The pseudo parameters' values: ``OS::stack_name`` ... or, in CFN, ``AWS::StackName`` ...

        As in Heat, ``AWS::StackId`` is the stack's ARN and ``AWS::Region`` is
        ``ap-southeast-1``.
        """
        if self.spec.is_cfn:
            return {
                "AWS::StackId": f"arn:openstack:heat::{project_id}:stacks/{stack_name}/{stack_id}",
                "AWS::StackName": stack_name,
                "AWS::Region": "ap-southeast-1",
            }
        return {
            "OS::stack_name": stack_name,
            "OS::stack_id": stack_id,
            "OS::project_id": project_id,
        }

    def display_path(self, path: list[Any]) -> list[Any]:
        """Return *path* as the template writes it (the CFN keys for a CFN template)."""
        return cfn_format.cfn_path(path) if self.spec.is_cfn else path

    def fail(self, message: str, path: list[Any]) -> exception.StackValidationFailed:
        """Return a StackValidationFailed naming *path* and this template's file."""
        return exception.StackValidationFailed(
            message, path=self.display_path(path), source=self.source
        )

    # --- files -------------------------------------------------------------------

    def read_file(self, key: str, path: list[Any]) -> str:
        """Return the content of ``get_file`` *key* (the ``files`` map, then the template's tree)."""
        if key in self.files:
            content = self.files[key]
            return content.decode("utf-8") if isinstance(content, bytes) else str(content)
        if key in self._file_cache:
            return self._file_cache[key]
        local = key
        if "://" in key:
            scheme, _, rest = key.partition("://")
            if scheme != "file":
                raise self.fail(
                    f'get_file cannot fetch "{key}": plugsim reads local files only '
                    f"(or pass the content in the files map)",
                    path,
                )
            local = rest
        if self.base_dir is None:
            raise self.fail(
                f'get_file: "{key}" is not in the files map and the template was not loaded '
                f"from a file, so there is no directory to read it from",
                path,
            )
        where = dict(source=self.source, path=path)
        target = template_files.inside(self.base_dir, local, "get_file:", **where)
        if not os.path.lexists(target):
            raise self.fail(f'get_file: no such file "{key}" (looked in {self.base_dir})', path)
        content = template_files.read_text(target, f"get_file: {key}", limits=self.limits, **where)
        self._file_cache[key] = content
        self._file_paths[key] = str(target)
        return content

    def files_unchanged(self) -> bool:
        """True when every file ``get_file`` read from disk still holds what was read then (a
        template shared by the stacks of a plan, :mod:`simulator.plan`, must see an edit)."""
        for key, target in list(self._file_paths.items()):
            try:
                now = template_files.read_text(target, f"get_file: {key}", limits=self.limits)
            except exception.PlugsimError:
                return False
            if now != self._file_cache.get(key):
                return False
        return True

    def __repr__(self) -> str:
        """Show version and source."""
        return f"<Template {self.version} {self.source or '(inline)'}>"
