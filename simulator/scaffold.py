"""``plugsim new``: scaffold a plug-in project from the ``cookiecutter-plugin`` template.

The command wraps cookiecutter so that authors need not know where the
template lives::

    plugsim new --kind resource --no-input package_name=acme_dns resource_type=Acme::DNS::Zone

The answers are checked with the template's own pre-generation hook
(``hooks/pre_gen_project.py``) before cookiecutter writes anything, so a bad
answer is one clear line and no half-written project.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import click

from sdk import exception

#: The template directory's name in a checkout of plugsim.
TEMPLATE_DIR_NAME = "cookiecutter-plugin"
#: Environment variable naming a template directory (wins over the checkout's).
TEMPLATE_ENV = "PLUGSIM_PLUGIN_TEMPLATE"


class ScaffoldError(exception.PlugsimError):
    """The template cannot be found or the answers are invalid."""


def find_template(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Return the template directory.

    The first of: *explicit*, ``$PLUGSIM_PLUGIN_TEMPLATE``, the checkout's
    ``cookiecutter-plugin/`` (editable installs), or the copy a built plugsim
    ships as ``simulator/cookiecutter-plugin/`` (``setup.py`` puts it in the
    wheel; a checkout has no such directory). Raises :class:`ScaffoldError`
    saying how to pass ``--template PATH`` when none holds a ``cookiecutter.json``.
    """
    if explicit is not None or os.environ.get(TEMPLATE_ENV):
        source = "--template" if explicit is not None else TEMPLATE_ENV
        path = Path(explicit if explicit is not None else os.environ[TEMPLATE_ENV])
        if (path / "cookiecutter.json").is_file():
            return path
        raise ScaffoldError(f"{source} {path}: no cookiecutter.json there (not a plug-in template)")
    checkout = Path(__file__).resolve().parents[1] / TEMPLATE_DIR_NAME
    installed = Path(__file__).resolve().parent / TEMPLATE_DIR_NAME
    for path in (checkout, installed):
        if (path / "cookiecutter.json").is_file():
            return path
    raise ScaffoldError(
        f"the plug-in template is not installed (looked for {checkout}/cookiecutter.json); "
        f"pass --template PATH with the {TEMPLATE_DIR_NAME}/ directory of a plugsim checkout"
    )


def template_defaults(template: Path) -> dict[str, Any]:
    """The template's ``cookiecutter.json`` (choice lists keep their order)."""
    path = template / "cookiecutter.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as ex:
        raise ScaffoldError(f"{path}: cannot read the template settings: {ex}") from None
    if not isinstance(data, dict):
        raise ScaffoldError(f"{path}: expected a JSON object")
    return data


def answer_keys(template: Path) -> list[str]:
    """The keys an author may set (``key=value``): the public ones, sorted."""
    return sorted(k for k in template_defaults(template) if not k.startswith("_"))


def _hook(template: Path) -> ModuleType:
    path = template / "hooks" / "pre_gen_project.py"
    spec = importlib.util.spec_from_file_location("_plugsim_pre_gen_project", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise ScaffoldError(f"{path}: the template has no pre-generation hook")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parse_answers(pairs: Sequence[str], template: Path) -> dict[str, Any]:
    """Turn ``key=value`` arguments into answers; unknown keys and bad forms are errors."""
    defaults = template_defaults(template)
    known = answer_keys(template)
    answers: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ScaffoldError(f"{pair!r}: expected key=value (keys: {', '.join(known)})")
        if key not in known:
            raise ScaffoldError(f"unknown answer {key!r} (keys: {', '.join(known)})")
        if isinstance(defaults[key], bool):
            lowered = value.strip().lower()
            if lowered in ("1", "true", "yes", "y", "on"):
                answers[key] = True
            elif lowered in ("0", "false", "no", "n", "off"):
                answers[key] = False
            else:
                raise ScaffoldError(f"{key}={value!r}: expected yes or no")
            continue
        answers[key] = value
    return answers


def resolved_answers(template: Path, answers: Mapping[str, Any]) -> dict[str, Any]:
    """The answers cookiecutter would use with no prompting: defaults, then *answers*.

    Choice lists become their first entry; ``{{ cookiecutter.x }}`` defaults are
    not rendered (the hook does not read them).
    """
    out: dict[str, Any] = {}
    for key, default in template_defaults(template).items():
        if key.startswith("_"):
            continue
        out[key] = default[0] if isinstance(default, list) else default
    out.update(answers)
    return out


def validate_answers(template: Path, answers: Mapping[str, Any]) -> None:
    """Run the template's checks on the complete *answers*; raise with every problem."""
    errors = _hook(template).validate(dict(answers))
    if errors:
        raise ScaffoldError("; ".join(errors))


def generate(
    answers: Mapping[str, Any],
    *,
    output_dir: str | os.PathLike[str] = ".",
    template: str | os.PathLike[str] | None = None,
    no_input: bool = True,
    overwrite: bool = False,
) -> Path:
    """Generate a plug-in project; return its directory.

    With *no_input* the answers not given take the template's defaults and are
    validated before anything is written. Raises :class:`ScaffoldError` for a
    missing template, invalid answers or an existing project directory.
    """
    from cookiecutter.exceptions import CookiecutterException, OutputDirExistsException
    from cookiecutter.main import cookiecutter

    tpl = find_template(template)
    if no_input:
        validate_answers(tpl, resolved_answers(tpl, answers))
    try:
        result = cookiecutter(
            str(tpl),
            no_input=no_input,
            extra_context=dict(answers),
            output_dir=os.fspath(output_dir),
            overwrite_if_exists=overwrite,
        )
    except OutputDirExistsException as ex:
        raise ScaffoldError(f"{ex} (pass --overwrite to write over it)") from None
    except (CookiecutterException, ValueError) as ex:
        raise ScaffoldError(f"cookiecutter failed: {ex}") from None
    return Path(result)


@click.command("new")
@click.option(
    "--kind",
    type=click.Choice(["resource", "lifecycle", "cloud_driver", "fake_cloud_backend"]),
    help="The kind of plug-in (asked for when missing, unless --no-input).",
)
@click.option("--no-input", is_flag=True, help="Ask nothing: the defaults and KEY=VALUE answers.")
@click.option(
    "--output-dir",
    "-o",
    type=click.Path(file_okay=False),
    default=".",
    show_default=True,
    help="Where the project directory is created.",
)
@click.option(
    "--template",
    type=click.Path(),
    default=None,
    help=f"The template directory (default: ${TEMPLATE_ENV}, else the checkout's "
    f"{TEMPLATE_DIR_NAME}/).",
)
@click.option("--overwrite", is_flag=True, help="Write into an existing project directory.")
@click.argument("answers", nargs=-1, metavar="[KEY=VALUE]...")
def new(
    kind: str | None,
    no_input: bool,
    output_dir: str,
    template: str | None,
    overwrite: bool,
    answers: tuple[str, ...],
) -> None:
    """Scaffold a plug-in project (pyproject, module, tests, docs, noxfile, CI)."""
    try:
        tpl = find_template(template)
        given = parse_answers(answers, tpl)
        if kind is not None:
            given["kind"] = kind
        project = generate(
            given, output_dir=output_dir, template=tpl, no_input=no_input, overwrite=overwrite
        )
    except ScaffoldError as ex:
        raise click.ClickException(str(ex)) from None
    click.echo(f"created {project}")
    click.echo(f"next: cd {project} && python -m pip install -e '.[test,docs]' && python -m pytest")
