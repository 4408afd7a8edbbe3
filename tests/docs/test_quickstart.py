"""The quickstart shows the README's two commands and what the scaffold commands really print."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from simulator.cli import main

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "quickstart.rst"
_BLOCK = re.compile(r"^\.\. code-block:: (\w+)\n\n((?:(?:   .*)?\n)+)", re.M)


def _blocks(language: str) -> list[list[str]]:
    text = PAGE.read_text(encoding="utf-8")
    return [
        [line[3:] for line in body.rstrip("\n").splitlines()]
        for lang, body in _BLOCK.findall(text)
        if lang == language
    ]


def _readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n\s*(.+?)\n\s*```", readme)


def test_the_set_up_commands_are_the_readme_s_two_commands_verbatim():
    commands = _readme_commands()
    assert len(commands) == 2 and commands[0].startswith("python3 -m venv")
    assert [block[0] for block in _blocks("sh")] == commands


@pytest.fixture()
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # cookiecutter's replay files
    monkeypatch.delenv("COOKIECUTTER_CONFIG", raising=False)


@pytest.mark.usefixtures("_home")
def test_the_plugsim_new_example_prints_what_the_page_shows(tmp_path, monkeypatch):
    # the page's plugsim checkout is /home/you/plugsim, wherever this one is
    monkeypatch.setattr("simulator.scaffold.plugsim_source", lambda: f"-e {tmp_path}/plugsim")
    session = next(b for b in _blocks("console") if b[0].startswith("$ plugsim new"))
    args = shlex.split(session[0].removeprefix("$ "))[1:]
    shown = "\n".join(session[1:]).replace("/home/you", str(tmp_path))

    result = CliRunner().invoke(main, [*args, "-o", str(tmp_path)])

    assert result.exit_code == 0, result.output
    assert result.output.rstrip("\n") == shown
    assert (tmp_path / "acme_dns" / "acme_dns" / "resource.py").is_file()
    assert "Acme::DNS::Zone" in (tmp_path / "acme_dns" / "acme_dns" / "resource.py").read_text()


@pytest.mark.usefixtures("_home")
def test_the_lint_examples_print_what_the_page_shows(tmp_path, monkeypatch):
    assert (
        CliRunner()
        .invoke(
            main,
            ["new", "--kind", "resource", "--no-input", "-o", str(tmp_path)]
            + ["package_name=acme_dns", "resource_type=Acme::DNS::Zone"],
        )
        .exit_code
        == 0
    )
    monkeypatch.chdir(tmp_path / "acme_dns")
    sessions = [b for b in _blocks("console") if b[0].startswith("$ plugsim lint")]
    assert [b[0] for b in sessions] == [
        "$ plugsim lint acme_dns",
        "$ plugsim lint --inclusion acme_dns",
    ]
    for session in sessions:
        args = shlex.split(session[0].removeprefix("$ "))[1:]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        printed = [line.rstrip() for line in result.output.rstrip("\n").splitlines()]
        assert printed == [line.rstrip() for line in session[1:]]
