"""``plugsim new``: scaffold a plug-in project from the ``cookiecutter-plugin`` template.

The command wraps cookiecutter so that authors need not know where the
template lives::

    plugsim new --kind resource --no-input package_name=acme_dns resource_type=Acme::DNS::Zone

The answers are checked with the template's own pre-generation hook
(``hooks/pre_gen_project.py``) before cookiecutter writes anything, so a bad
answer is one clear line and no half-written project. Interactively, ``plugsim
new`` asks only the questions of the chosen kind and checks each answer as it
is given, asking again after a bad one.

The generated project installs plugsim from where the generating plugsim came
from (:func:`plugsim_source`: this checkout, the wheel or git URL it was
installed from, else ``plugsim`` from PyPI); the ``plugsim_source`` answer
overrides it (``plugsim_source=plugsim`` once plugsim is published).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import unquote, urlparse

import click

from sdk import exception

#: The template directory's name in a checkout of plugsim.
TEMPLATE_DIR_NAME = "cookiecutter-plugin"
#: Environment variable naming a template directory (wins over the checkout's).
TEMPLATE_ENV = "PLUGSIM_PLUGIN_TEMPLATE"


#: The plug-in kinds, in the order offered.
KINDS = ("resource", "lifecycle", "cloud_driver", "fake_cloud_backend")
#: The questions every kind is asked, before and after its own.
COMMON_FIRST = ("project_name", "package_name")
COMMON_LAST = ("author", "email", "license")
#: Each kind's own questions (the answers its files use), in cookiecutter.json's order.
KIND_QUESTIONS: dict[str, tuple[str, ...]] = {
    "resource": (
        "resource_type",
        "service",
        "support_status",
        "with_update",
        "with_suspend_resume",
        "with_snapshot",
    ),
    "lifecycle": (),
    "cloud_driver": (),
    "fake_cloud_backend": ("service",),
}
#: The module an author edits first, per kind (inside the package).
KIND_MODULES = {
    "resource": "resource.py",
    "lifecycle": "lifecycle.py",
    "cloud_driver": "driver.py",
    "fake_cloud_backend": "backend.py",
}


class ScaffoldError(exception.PlugsimError):
    """The template cannot be found or the answers are invalid."""


def source_from_direct_url(text: str | None) -> str:
    """pip arguments that install plugsim again, from its PEP 610 ``direct_url.json``.

    An editable directory is ``-e PATH``, another directory or a wheel its
    path, a VCS checkout ``git+URL@COMMIT``; without the file (installed from
    an index) it is ``plugsim``.
    """
    if not text:
        return "plugsim"
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return "plugsim"
    url = str(data.get("url", ""))
    vcs = data.get("vcs_info")
    if isinstance(vcs, dict):
        commit = vcs.get("commit_id")
        return f"{vcs.get('vcs', 'git')}+{url}" + (f"@{commit}" if commit else "")
    parsed = urlparse(url)
    if parsed.scheme != "file":
        return url or "plugsim"
    path = shlex.quote(unquote(parsed.path))
    if (data.get("dir_info") or {}).get("editable"):
        return f"-e {path}"
    return path


def plugsim_source() -> str:
    """pip arguments that install the plugsim running now, recorded in generated projects.

    A checkout (``pyproject.toml`` beside ``simulator/``) is ``-e PATH``;
    an installed plugsim is what its ``direct_url.json`` says
    (:func:`source_from_direct_url`); else ``plugsim`` (PyPI).
    """
    checkout = Path(__file__).resolve().parents[1]
    pyproject = checkout / "pyproject.toml"
    if pyproject.is_file() and re.search(
        r'^name\s*=\s*"plugsim"', pyproject.read_text(encoding="utf-8"), re.M
    ):
        return f"-e {shlex.quote(str(checkout))}"
    try:
        text = importlib.metadata.distribution("plugsim").read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        text = None
    return source_from_direct_url(text)


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


def answer_problems(template: Path, key: str, answers: Mapping[str, Any]) -> list[str]:
    """The template's complaints about the answer *key*, the others taking their defaults."""
    errors = _hook(template).validate(resolved_answers(template, answers))
    return [message for message in errors if message.startswith(f"{key} ")]


def _exists_message(path: Path, hint: str) -> str:
    return f'"{path}" directory already exists ({hint})'


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
    validated before anything is written. ``plugsim_source`` defaults to
    :func:`plugsim_source`. Raises :class:`ScaffoldError` for a missing
    template, invalid answers or an existing project directory.
    """
    from cookiecutter.exceptions import CookiecutterException, OutputDirExistsException
    from cookiecutter.main import cookiecutter

    tpl = find_template(template)
    answers = {"plugsim_source": plugsim_source(), **answers}
    if no_input:
        answers = with_derived_names(answers)
        resolved = resolved_answers(tpl, answers)
        validate_answers(tpl, resolved)
        target = Path(output_dir) / str(resolved["package_name"])
        if target.exists() and not overwrite:
            raise ScaffoldError(_exists_message(target, "pass --overwrite to write over it"))
    try:
        result = cookiecutter(
            str(tpl),
            no_input=no_input,
            extra_context=dict(answers),
            output_dir=os.fspath(output_dir),
            overwrite_if_exists=overwrite,
        )
    except OutputDirExistsException as ex:
        text = str(ex).removeprefix("Error: ")
        raise ScaffoldError(f"{text} (pass --overwrite to write over it)") from None
    except (CookiecutterException, ValueError) as ex:
        raise ScaffoldError(f"cookiecutter failed: {ex}") from None
    return Path(result)


#: Words a project name often ends with that say nothing about the package.
_FILLER_WORDS = ("plug-in", "plugin", "plug-ins", "plugins")


def _name_words(project_name: str) -> list[str]:
    """The project name's words, transliterated to ASCII, fillers dropped, a letter first.

    Words that start with a digit move behind the others ("3par volumes" ->
    ``["volumes", "3par"]``), since a package or type name cannot start with one.
    """
    from text_unidecode import unidecode

    words = re.findall(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*", unidecode(project_name))
    while words and words[-1].lower() in _FILLER_WORDS:
        words.pop()
    parts = [part for word in words for part in word.split("-")]
    return [w for w in parts if w[0].isalpha()] + [w for w in parts if not w[0].isalpha()]


def _type_part(word: str) -> str:
    """A word as part of a type name: acronyms ("DNS") kept, others capitalised."""
    return word if any(c.isupper() for c in word[1:]) else word[:1].upper() + word[1:].lower()


def derived_names(project_name: str) -> dict[str, str]:
    """The package, distribution and resource type names a project name suggests.

    ``"Acme DNS"`` gives ``acme_dns``, ``acme-dns`` and ``Acme::DNS::Thing``;
    accents are transliterated (``"Café"`` -> ``cafe``), and a name with no
    usable word falls back to the template's ``example_widget``.
    """
    words = _name_words(project_name)
    if not words or not words[0][0].isalpha():
        return {
            "package_name": "example_widget",
            "project_slug": "example-widget",
            "resource_type": "Example::Widget::Thing",
        }
    package = "_".join(w.lower() for w in words)[:40].rstrip("_")
    vendor = _type_part(words[0])
    service = "".join(_type_part(w) for w in words[1:])
    if not service or not service[0].isalpha():
        service = vendor + service
    return {
        "package_name": package,
        "project_slug": package.replace("_", "-"),
        "resource_type": f"{vendor}::{service}::Thing",
    }


def with_derived_names(answers: Mapping[str, Any]) -> dict[str, Any]:
    """*answers* with the package name and resource type derived from the project name.

    Only the names not given are filled in, and only when a project name is given.
    """
    out = dict(answers)
    if "project_name" in out:
        derived = derived_names(str(out["project_name"]))
        for key in ("package_name", "resource_type"):
            out.setdefault(key, derived[key])
    return out


def _ask_one(
    template: Path, key: str, answers: dict[str, Any], output_dir: str, overwrite: bool
) -> Any:
    """Ask for *key* until the answer passes the template's checks; return it."""
    defaults = template_defaults(template)
    prompt = defaults.get("__prompts__", {}).get(key, key)
    default = defaults[key]
    while True:
        if isinstance(default, bool):
            return click.confirm(prompt, default=default)
        if isinstance(default, list):
            value: Any = click.prompt(prompt, type=click.Choice(default), default=default[0])
        else:
            if key in ("package_name", "resource_type"):
                default = derived_names(str(answers.get("project_name", "")))[key]
            value = click.prompt(prompt, default=default).strip()
        problems = answer_problems(template, key, {**answers, key: value})
        if key == "package_name" and not problems and not overwrite:
            target = Path(output_dir) / value
            if target.exists():
                hint = "choose another package name, or pass --overwrite to write over it"
                problems = [_exists_message(target, hint)]
        if not problems:
            return value
        for message in problems:
            click.echo(f"Error: {message}", err=True)


def ask(
    template: Path, given: Mapping[str, Any], output_dir: str = ".", overwrite: bool = False
) -> dict[str, Any]:
    """Ask the questions of the chosen kind that *given* does not answer; return all answers.

    The kind is asked first (unless given), then the common questions and the
    kind's own: ``with_suspend_resume`` only for the compute service.
    """
    answers = dict(given)
    if "kind" not in answers:
        answers["kind"] = _ask_one(template, "kind", answers, output_dir, overwrite)
    kind = str(answers["kind"])
    for key in (*COMMON_FIRST, *KIND_QUESTIONS.get(kind, ()), *COMMON_LAST):
        if key in answers:
            continue
        if key == "with_suspend_resume" and answers.get("service") != "compute":
            answers[key] = False
            continue
        answers[key] = _ask_one(template, key, answers, output_dir, overwrite)
    return answers


def _echo_names(answers: Mapping[str, Any]) -> None:
    """Say which names the project will get, before anything is written."""
    package = str(answers["package_name"])
    line = f"package {package}, distribution {package.replace('_', '-')}"
    if answers.get("kind") == "resource":
        line += f", type {answers['resource_type']}"
    click.echo(line)


def rerun_command(answers: Mapping[str, Any], output_dir: str) -> str:
    """A ``plugsim new --no-input`` command line that gives *answers* again."""
    words = ["plugsim", "new", "--no-input", "-o", output_dir]
    for key, value in answers.items():
        text = ("yes" if value else "no") if isinstance(value, bool) else str(value)
        words.append(f"{key}={text}")
    return shlex.join(words)


@click.command("new")
@click.option(
    "--kind",
    type=click.Choice(list(KINDS)),
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
    """Scaffold a plug-in project (pyproject, module, tests, docs, noxfile, CI).

    Without --no-input, asks the questions of the chosen kind (those not given
    as KEY=VALUE), checking each answer as it is given. The project installs
    plugsim from where this plugsim came from (plugsim_source=plugsim for PyPI).
    """
    asked = False
    given: dict[str, Any] = {}
    try:
        tpl = find_template(template)
        given = parse_answers(answers, tpl)
        if kind is not None:
            given["kind"] = kind
        if not no_input:
            given = ask(tpl, given, output_dir, overwrite)
            asked = True
        else:
            given = with_derived_names(given)
            names = resolved_answers(tpl, {"plugsim_source": plugsim_source(), **given})
            validate_answers(tpl, names)
            if overwrite or not (Path(output_dir) / str(names["package_name"])).exists():
                _echo_names(names)
        project = generate(given, output_dir=output_dir, template=tpl, overwrite=overwrite)
    except ScaffoldError as ex:
        message = str(ex)
        if asked:
            message += f"; your answers again: {rerun_command(given, output_dir)}"
        raise click.ClickException(message) from None
    resolved = resolved_answers(tpl, {"plugsim_source": plugsim_source(), **given})
    module = project / str(resolved["package_name"]) / KIND_MODULES[str(resolved["kind"])]
    install = f"python -m pip install {resolved['plugsim_source']} -e '.[test,docs]'"
    click.echo(f"created {project}")
    click.echo(f"next: edit {module}, then: cd {project} && {install} && python -m pytest")
