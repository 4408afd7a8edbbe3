"""Loading templates: YAML/JSON text, files or dicts -> checked :class:`Template`.

HOT templates are read as they are; the CloudFormation formats
(``AWSTemplateFormatVersion`` 2010-09-09, ``HeatTemplateFormatVersion``
2012-12-12) are checked and mapped onto HOT's sections by
:mod:`simulator.template.cfn_format`, so the engine sees one kind of template.

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

import os
from pathlib import Path
from typing import Any

from sdk import exception
from simulator.limits import DEFAULTS, Limits, check_resource_count
from simulator.template import cfn_format, versions
from simulator.template.checks import check_template
from simulator.template.model import Template
from simulator.template.text import read_source


def load_template(
    src: Any,
    *,
    files: dict[str, Any] | None = None,
    source: str | None = None,
    base_dir: str | os.PathLike[str] | None = None,
    limits: Limits = DEFAULTS,
) -> Template:
    """Load and check a template from a dict, YAML/JSON text or a path (str/Path).

    ``get_file`` and relative template resources are read from the template's
    directory: the file's own directory, else *base_dir*, else the directory of
    *source* when that names an existing file. Files and the resource count are
    checked against *limits*.
    """
    raw, source, found_dir = read_source(src, source, limits=limits)
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
    original = raw
    key = cfn_format.version_key(raw)
    if key is not None:

        def fail(message: str, path: list[Any]) -> exception.StackValidationFailed:
            return exception.StackValidationFailed(message, path=path, source=source)

        key, value = cfn_format.check_version(raw, fail)
        version = f"{key}.{value}"
        raw = cfn_format.to_hot(raw, key, fail)
    else:
        if "heat_template_version" not in raw:
            raise exception.StackValidationFailed(
                "The template has no heat_template_version (nor AWSTemplateFormatVersion "
                "or HeatTemplateFormatVersion)",
                source=source,
                path=[],
            )
        found = versions.canonical(raw["heat_template_version"])
        if found is None:
            raise exception.StackValidationFailed(
                "The template version is invalid: unknown heat_template_version "
                f"{raw['heat_template_version']!r}; supported: "
                f"{', '.join(versions.supported_versions())}",
                path=["heat_template_version"],
                source=source,
            )
        version = found
    tmpl = Template(
        raw,
        version,
        source=source,
        files=files,
        base_dir=base_dir,
        limits=limits,
        original=original,
    )
    check_template(tmpl)
    if isinstance(tmpl.resources, dict):
        check_resource_count(len(tmpl.resources), limits, source)
    return tmpl
