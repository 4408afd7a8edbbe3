"""Loading HOT templates: YAML/JSON text, files or dicts -> checked :class:`Template`.

:func:`load_template` checks everything that does not need parameter values:
the version, the section names and shapes, each resource's and output's keys,
the parameter declarations and groups, and every intrinsic function (shape of
its arguments, whether the version has it, literal references to parameters,
resources, conditions and files). Errors are
:class:`sdk.exception.StackValidationFailed` naming the file and the path.

YAML is read with PyYAML's safe loader (the C one when available), with
timestamps kept as strings so ``heat_template_version: 2016-10-14`` and
date-like values stay text, as in Heat.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml

from sdk import exception
from simulator.template import versions
from simulator.template.capabilities import Capabilities, parse_capabilities
from simulator.template.parameters import PSEUDO_PARAMETERS, ParamSchema, parse_schema

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """The safe loader, with timestamps left as strings."""


def _timestamp_as_text(loader: Any, node: Any) -> str:
    return loader.construct_scalar(node)


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)

_TEMPLATE_SUFFIXES = (".yaml", ".yml", ".json", ".template", ".hot")


def _text_keys(value: Any) -> Any:
    """Return *value* with every mapping key a string, as JSON (and Heat's database) keeps it.

    YAML reads ``on:``/``yes:``/``off:`` as booleans and ``1:`` as an integer; Heat
    stores templates as JSON, where such keys become ``"true"``, ``"1"`` ... A
    *value* ``on`` stays the boolean (``condition: on`` is the literal true).
    """
    if isinstance(value, dict):
        return {
            (k if isinstance(k, str) else json.dumps(k)): _text_keys(v) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_text_keys(v) for v in value]
    return value


def parse_text(text: str, source: str | None, what: str = "template") -> Any:
    """Parse YAML (or JSON) text; errors name the file, line and column."""
    try:
        if text.lstrip().startswith("{"):
            try:
                return json.loads(text)
            except ValueError:
                pass
        return _text_keys(yaml.load(text, Loader=_Loader))  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as ex:
        mark = getattr(ex, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(ex, "problem", None) or str(ex)
        if "nesting depth" in problem:  # PyYAML >= 6.0.3 limits nesting itself
            message = f"The {what} is nested too deeply to be read{where}"
        else:
            message = f"The {what} is not valid YAML{where}: {problem}"
        raise exception.StackValidationFailed(message, source=source, path=[]) from None
    except RecursionError:
        raise exception.StackValidationFailed(
            f"The {what} is nested too deeply to be read", source=source, path=[]
        ) from None


def read_source(
    src: Any, source: str | None, what: str = "template"
) -> tuple[Any, str | None, Path | None]:
    """Return ``(raw data, source name, directory)`` for a dict, text or a path."""
    if isinstance(src, dict):
        return src, source, None
    if isinstance(src, os.PathLike) or (
        isinstance(src, str)
        and "\n" not in src
        and not src.lstrip().startswith("{")
        and (src.endswith(_TEMPLATE_SUFFIXES) or os.path.isfile(src))
    ):
        path = Path(os.fspath(src))
        name = source or str(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise exception.StackValidationFailed(
                f"The {what} file does not exist", source=name, path=[]
            ) from None
        except (OSError, UnicodeDecodeError) as ex:
            raise exception.StackValidationFailed(
                f"The {what} file cannot be read: {ex}", source=name, path=[]
            ) from None
        return parse_text(text, name, what), name, path.resolve().parent
    if isinstance(src, str):
        return parse_text(src, source, what), source, None
    raise exception.StackValidationFailed(
        f"A {what} must be a map, YAML/JSON text or a file path, not {type(src).__name__}",
        source=source,
        path=[],
    )


class Template:
    """A loaded, checked HOT template.

    Attributes: ``raw`` (the dict), ``version`` (canonical date), ``spec``
    (:class:`~simulator.template.versions.VersionSpec`), ``source`` (file name
    or None), ``base_dir`` (directory for ``get_file`` and relative template
    resources, or None), ``files`` (the ``files`` map), ``description``,
    ``capabilities``.
    """

    def __init__(
        self,
        raw: dict[str, Any],
        version: str,
        *,
        source: str | None = None,
        files: dict[str, Any] | None = None,
        base_dir: Path | None = None,
    ) -> None:
        self.raw = raw
        self.version = version
        self.spec = versions.get_spec(version)
        self.source = source
        self.files = dict(files or {})
        self.base_dir = base_dir
        self._file_cache: dict[str, str] = {}
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
        return frozenset(self.parameters_schema()) | frozenset(PSEUDO_PARAMETERS)

    def fail(self, message: str, path: list[Any]) -> exception.StackValidationFailed:
        """Return a StackValidationFailed naming *path* and this template's file."""
        return exception.StackValidationFailed(message, path=path, source=self.source)

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
        base = self.base_dir.resolve()
        target = (base / local).resolve()
        if not target.is_relative_to(base):
            raise self.fail(
                f'get_file: "{key}" is outside the template\'s directory ({base}); only files '
                f"in that tree (or the files map) can be read",
                path,
            )
        try:
            content = target.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise self.fail(f'get_file: no such file "{key}" (looked in {base})', path) from None
        except (OSError, UnicodeDecodeError) as ex:
            raise self.fail(f'get_file: cannot read "{key}": {ex}', path) from None
        self._file_cache[key] = content
        return content

    def __repr__(self) -> str:
        """Show version and source."""
        return f"<Template {self.version} {self.source or '(inline)'}>"


def load_template(
    src: Any,
    *,
    files: dict[str, Any] | None = None,
    source: str | None = None,
    base_dir: str | os.PathLike[str] | None = None,
) -> Template:
    """Load and check a template from a dict, YAML/JSON text or a path (str/Path).

    ``get_file`` and relative template resources are read from the template's
    directory: the file's own directory, else *base_dir*, else the directory of
    *source* when that names an existing file.
    """
    raw, source, found_dir = read_source(src, source)
    if found_dir is None and base_dir is not None:
        found_dir = Path(base_dir).resolve()
    if found_dir is None and source is not None and os.path.isfile(source):
        found_dir = Path(source).resolve().parent
    base_dir = found_dir
    if not isinstance(raw, dict):
        kind = (
            "a list"
            if isinstance(raw, list)
            else (
                "empty"
                if raw is None
                else "a string"
                if isinstance(raw, str)
                else type(raw).__name__
            )
        )
        raise exception.StackValidationFailed(
            f"The template must be a map of sections (heat_template_version, resources, ...), "
            f"but it is {kind}",
            source=source,
            path=[],
        )
    if "heat_template_version" not in raw:
        hint = ""
        if "AWSTemplateFormatVersion" in raw or "HeatTemplateFormatVersion" in raw:
            hint = " (CloudFormation-format templates are not supported by plugsim)"
        raise exception.StackValidationFailed(
            f"The template has no heat_template_version{hint}", source=source, path=[]
        )
    version = versions.canonical(raw["heat_template_version"])
    if version is None:
        raise exception.StackValidationFailed(
            f"Unknown heat_template_version {raw['heat_template_version']!r}; supported: "
            f"{', '.join(versions.supported_versions())}",
            path=["heat_template_version"],
            source=source,
        )
    tmpl = Template(raw, version, source=source, files=files, base_dir=base_dir)
    from simulator.template.checks import check_template

    check_template(tmpl)
    return tmpl
