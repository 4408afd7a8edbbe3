"""The scaffold as a new plug-in author meets it (issue #26).

Generated projects point at the plugsim that generated them (README, nox, CI),
pass ruff and ``--inclusion`` whatever their name, and interactive ``plugsim
new`` asks only its kind's questions, checking each answer as it is given.
"""

from __future__ import annotations

import json
import keyword
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator import scaffold
from simulator.scaffold import generate, new

from .conftest import KINDS

CHECKOUT = Path(__file__).resolve().parents[2]
#: Names across the alphabet: the lifecycle template's import list must sort for each.
NAMES = ("aardvark_audit", "myco_audit", "stack_guard", "zebra_hook")
MODULES = {
    "resource": "resource.py",
    "lifecycle": "lifecycle.py",
    "cloud_driver": "driver.py",
    "fake_cloud_backend": "backend.py",
}


def _camel(name: str) -> str:
    return "".join(part.title() for part in name.split("_"))


def _answers(kind: str, name: str) -> dict[str, object]:
    answers: dict[str, object] = {"kind": kind, "package_name": name}
    if kind == "resource":
        answers["resource_type"] = f"{_camel(name)}::Service::Thing"
    return answers


def readme_commands(project: Path) -> list[str]:
    """The commands of the README's first ``sh`` block."""
    text = (project / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert block is not None, text
    return [line for line in block.group(1).splitlines() if line.strip()]


# --- where plugsim comes from ---------------------------------------------------------------


def test_a_checkout_records_its_own_path_as_the_plugsim_source():
    assert scaffold.plugsim_source() == f"-e {shlex.quote(str(CHECKOUT))}"


@pytest.mark.parametrize(
    ("direct_url", "expected"),
    [
        ('{"url": "file:///opt/plugsim", "dir_info": {"editable": true}}', "-e /opt/plugsim"),
        ('{"url": "file:///opt/plugsim", "dir_info": {}}', "/opt/plugsim"),
        (
            '{"url": "file:///tmp/d/plugsim-0.1.0-py3-none-any.whl", "archive_info": {}}',
            "/tmp/d/plugsim-0.1.0-py3-none-any.whl",
        ),
        (
            '{"url": "https://github.com/o/plugsim", "vcs_info": {"vcs": "git", '
            '"commit_id": "abc123"}}',
            "git+https://github.com/o/plugsim@abc123",
        ),
        (None, "plugsim"),
    ],
)
def test_an_installed_plugsim_records_where_it_was_installed_from(direct_url, expected):
    assert scaffold.source_from_direct_url(direct_url) == expected


def test_the_readme_nox_and_ci_install_the_generating_plugsim(tmp_path):
    project = generate({"package_name": "acme_pkg"}, output_dir=tmp_path)
    source = scaffold.plugsim_source()
    commands = readme_commands(project)
    assert commands == [
        f"python -m pip install {source} -e '.[test,docs]'",
        "python -m pytest && plugsim lint --inclusion acme_pkg",
    ]
    readme = (project / "README.md").read_text()
    assert "on PyPI" in readme and "plugsim_source=plugsim" in readme
    noxfile = (project / "noxfile.py").read_text()
    assert f'PLUGSIM = os.environ.get("PLUGSIM", {json.dumps(source)})' in noxfile
    assert "session.install(*shlex.split(PLUGSIM))" in noxfile
    ci = yaml.safe_load((project / ".github" / "workflows" / "ci.yml").read_text())
    assert ci["jobs"]["nox"]["env"]["PLUGSIM"] == source


def test_plugsim_source_can_be_given_for_pypi(tmp_path):
    project = generate(
        {"package_name": "acme_pkg", "plugsim_source": "plugsim"}, output_dir=tmp_path
    )
    assert readme_commands(project)[0] == "python -m pip install plugsim -e '.[test,docs]'"
    ci = yaml.safe_load((project / ".github" / "workflows" / "ci.yml").read_text())
    assert ci["jobs"]["nox"]["env"]["PLUGSIM"] == "plugsim"


# --- every kind, names across the alphabet: ruff and --inclusion -----------------------------


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(CHECKOUT)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=600, check=False
    )


@pytest.mark.material
@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_passes_ruff_and_inclusion_for_names_across_the_alphabet(tmp_path, kind):
    ruff = str(Path(sys.executable).parent / "ruff")
    for name in NAMES:
        project = generate(_answers(kind, name), output_dir=tmp_path)
        checked = _run([ruff, "check", "--no-cache", "."], project)
        assert checked.returncode == 0, f"{name}: {checked.stdout}{checked.stderr}"
        formatted = _run([ruff, "format", "--check", "--no-cache", "."], project)
        assert formatted.returncode == 0, f"{name}: {formatted.stdout}{formatted.stderr}"
        linted = _run([sys.executable, "-m", "sdk.lint", "--inclusion", name], project)
        assert linted.returncode == 0, f"{name}: {linted.stdout}{linted.stderr}"
        assert "Found 0 errors, 0 warnings and 0 infos" in linted.stdout


# --- interactive plugsim new -------------------------------------------------------------------


def _prompts(output: str) -> list[str]:
    """The questions asked, in order (each prompt line up to its default/colon)."""
    asked = []
    for line in output.splitlines():
        match = re.match(r"^([A-Z].+?)(?: \[[^\]]*\])?: ", line)
        if match and not line.startswith("Error"):
            # a choice prompt lists its choices: "Licence (MIT, BSD-3-Clause)"
            asked.append(re.sub(r" \([^)]*, [^)]*\)$", "", match.group(1)))
    return asked


def test_a_lifecycle_plugin_is_asked_only_its_own_questions(tmp_path):
    answers = ["lifecycle", "Myco Audit", "", "Ann Author", "ann@example.org", "MIT"]
    result = CliRunner().invoke(new, ["-o", str(tmp_path)], input="\n".join(answers) + "\n")
    assert result.exit_code == 0, result.output
    assert _prompts(result.output) == [
        "Which kind of plug-in",
        "Project name (human readable)",
        "Python package name (an identifier)",
        "Author",
        "Author e-mail",
        "Licence",
    ]
    project = tmp_path / "myco_audit"
    assert (project / "myco_audit" / "lifecycle.py").is_file()
    assert 'license = { text = "MIT" }' in (project / "pyproject.toml").read_text()
    assert result.output.rstrip().splitlines()[-2:] == [
        f"created {project}",
        f"next: edit {project / 'myco_audit' / 'lifecycle.py'}, then: cd {project} && "
        f"{readme_commands(project)[0]} && python -m pytest",
    ]


def test_a_resource_plugin_asks_suspend_only_for_compute(tmp_path):
    answers = [
        "resource",
        "Stack Guard",
        "stack_guard",
        "Acme::Guard::Stack",
        "network",
        "UNSUPPORTED",
        "y",
        "n",
        "Ann Author",
        "ann@example.org",
        "Apache-2.0",
    ]
    result = CliRunner().invoke(new, ["-o", str(tmp_path)], input="\n".join(answers) + "\n")
    assert result.exit_code == 0, result.output
    asked = _prompts(result.output)
    assert "Suspend and resume (compute service only)?" not in asked
    assert asked[3:8] == [
        "Resource type name (Vendor::Service::Thing)",
        "Fake-cloud service the plug-in talks to",
        "Support status (UNSUPPORTED passes plugsim lint --inclusion)",
        "Update in place (handle_update)?",
        "Snapshot and restore?",
    ]
    assert (tmp_path / "stack_guard" / "stack_guard" / "resource.py").is_file()


def test_each_bad_answer_is_refused_as_given_and_asked_again(tmp_path):
    answers = [
        "plugin",  # not a kind
        "resource",
        "Zebra Hook",
        "Zebra-Hook",  # not an identifier
        "zebra_hook",
        "Zebra::Hook",  # two parts
        "OS::Zebra::Hook",  # reserved namespace
        "Zebra::Hook::Thing",
        "compute",
        "UNSUPPORTED",
        "y",
        "y",
        "n",
        "Ann Author",
        "ann",  # not an e-mail address
        "ann@example.org",
        "MIT",
    ]
    result = CliRunner().invoke(new, ["-o", str(tmp_path)], input="\n".join(answers) + "\n")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert errors == [
        "Error: 'plugin' is not one of 'resource', 'lifecycle', 'cloud_driver', "
        "'fake_cloud_backend'.",
        "Error: package_name 'Zebra-Hook' is not a Python identifier: use lowercase letters, "
        "digits and underscores, not starting with a digit (e.g. 'acme_widgets')",
        "Error: resource_type 'Zebra::Hook' is not of the form Vendor::Service::Thing (three or "
        "more parts joined by '::', each a letter followed by letters, digits or underscores)",
        "Error: resource_type 'OS::Zebra::Hook': the OS:: namespace belongs to the bundled "
        "OpenStack types; use your vendor name as the first part",
        "Error: email 'ann' is not an e-mail address",
    ]
    source = (tmp_path / "zebra_hook" / "zebra_hook" / "resource.py").read_text()
    assert 'return {"Zebra::Hook::Thing": Thing}' in source
    assert "def handle_suspend" in source


def test_an_existing_project_directory_is_refused_once_and_the_name_asked_again(tmp_path):
    (tmp_path / "myco_audit").mkdir()
    answers = ["lifecycle", "Myco Audit", "myco_audit", "myco_audit2", "A", "a@b.org", "MIT"]
    result = CliRunner().invoke(new, ["-o", str(tmp_path)], input="\n".join(answers) + "\n")
    assert result.exit_code == 0, result.output
    errors = [line for line in result.output.splitlines() if "already exists" in line]
    assert errors == [
        f'Error: "{tmp_path / "myco_audit"}" directory already exists '
        "(choose another package name, or pass --overwrite to write over it)"
    ]
    assert (tmp_path / "myco_audit2" / "myco_audit2" / "lifecycle.py").is_file()


def test_no_input_into_an_existing_directory_says_error_once(tmp_path):
    args = ["--no-input", "-o", str(tmp_path), "package_name=acme_pkg"]
    assert CliRunner().invoke(new, args).exit_code == 0
    result = CliRunner().invoke(new, args)
    assert result.exit_code == 1
    assert result.output == (
        f'Error: "{tmp_path / "acme_pkg"}" directory already exists '
        "(pass --overwrite to write over it)\n"
    )


def test_kind_given_on_the_command_line_is_not_asked(tmp_path):
    answers = ["Zebra Hook", "", "A", "a@b.org", "MIT"]
    result = CliRunner().invoke(
        new, ["--kind", "cloud_driver", "-o", str(tmp_path)], input="\n".join(answers) + "\n"
    )
    assert result.exit_code == 0, result.output
    assert _prompts(result.output)[0] == "Project name (human readable)"
    assert (tmp_path / "zebra_hook" / "zebra_hook" / "driver.py").is_file()


def test_answers_given_as_key_value_are_not_asked(tmp_path):
    answers = ["lifecycle", "A", "a@b.org", "MIT"]
    result = CliRunner().invoke(
        new,
        ["-o", str(tmp_path), "project_name=Aardvark Audit", "package_name=aardvark_audit"],
        input="\n".join(answers) + "\n",
    )
    assert result.exit_code == 0, result.output
    assert "Project name (human readable)" not in _prompts(result.output)
    assert (tmp_path / "aardvark_audit" / "aardvark_audit" / "lifecycle.py").is_file()


@settings(max_examples=40, deadline=None)
@given(
    st.from_regex(r"[a-z][a-z0-9]{0,12}(_[a-z0-9]{1,12}){0,2}", fullmatch=True).filter(
        lambda name: not keyword.iskeyword(name)  # the template's checks refuse those
    )
)
def test_the_lifecycle_tests_imports_pass_ruff_for_any_name(package):
    """The template sorts (and wraps) its import list as ruff does, digits and case included."""
    import jinja2

    path = scaffold.find_template() / "{{cookiecutter.package_name}}" / "tests"
    camel = package.replace("_", " ").title().replace(" ", "")
    environment = jinja2.Environment(keep_trailing_newline=True)  # as cookiecutter renders
    rendered = environment.from_string((path / "test_lifecycle.py").read_text()).render(
        cookiecutter={"package_name": package, "__camel_name": camel}
    )
    ruff = str(Path(sys.executable).parent / "ruff")
    config = [
        "--isolated",
        "--line-length=100",
        "--config",
        f"lint.isort.known-first-party=['{package}']",
        "--config",
        "lint.isort.known-third-party=['sdk']",
    ]
    for command in (
        ["check", "--select", "I,E501", *config],
        ["format", "--check", *config],
    ):
        proc = subprocess.run(
            [ruff, *command, "--stdin-filename", "tests/test_lifecycle.py", "-"],
            input=rendered,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 0, f"{package}: {proc.stdout}{proc.stderr}"
