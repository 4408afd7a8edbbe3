"""End to end: every kind generated with names from A to Z, then installed into a fresh venv
by its README's first command (which points at this checkout, as recorded by ``plugsim
new``), then its README's second command (its own tests and ``--inclusion``), ``python -m
sdk.lint``, ``ruff format`` and a docs build must all pass.

Slow (a virtual environment and a pip install): ``pytest -m slow tests/scaffold``.
pip's wheel cache is reused, so after the first run only the local projects are built.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import venv
from pathlib import Path

import pytest

from simulator.scaffold import generate

from .conftest import KINDS, ORIGINAL_HOME
from .test_first_contact import NAMES, _answers, readme_commands
from .test_upgrade import break_renames, release_wheel

CHECKOUT = Path(__file__).resolve().parents[2]
#: The resource kind once per fake-cloud service, with every optional path it allows.
RESOURCE_VARIANTS = {
    "compute": {"with_suspend_resume": True, "with_snapshot": True},
    "block_storage": {"with_snapshot": True, "with_update": False},
    "network": {},
    "object_storage": {"with_snapshot": True},
}


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 900) -> str:
    proc = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert proc.returncode == 0, (
        f"{' '.join(args)} (in {cwd}) exited {proc.returncode}\n"
        f"--- stdout ---\n{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-4000:]}"
    )
    return proc.stdout


#: A suffix per kind for the package names across the alphabet.
KIND_TAGS = {
    "resource": "res",
    "lifecycle": "lc",
    "cloud_driver": "drv",
    "fake_cloud_backend": "be",
}


def _readme_run(command: str, python: Path, project: Path, env: dict[str, str]) -> str:
    """Run one README command (``python ...`` and ``plugsim ...`` pieces joined by ``&&``) with
    the venv's python and its ``plugsim`` console script."""
    out = ""
    for part in command.split("&&"):
        words = shlex.split(part)
        assert words[0] in ("python", "plugsim"), command
        program = python if words[0] == "python" else python.parent / "plugsim"
        out += _run([str(program), *words[1:]], project, env)
    return out


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], dict]:
    """One fresh venv; every generated project installed by its README's first command."""
    root = tmp_path_factory.mktemp("scaffold-e2e")
    projects: dict[str, Path] = {}
    for kind in KINDS:
        for name in NAMES:
            # one venv holds them all, so each kind's distribution needs a name of its own;
            # the suffix keeps the name's (and its classes') place in the alphabet
            package = f"{name}_{KIND_TAGS[kind]}"
            projects[f"{kind}-{name}"] = generate(
                _answers(kind, package), output_dir=root / "projects"
            )
    for service, extra in RESOURCE_VARIANTS.items():
        answers = {"kind": "resource", "service": service, "package_name": f"acme_{service}"}
        answers["resource_type"] = f"Acme::{service.title().replace('_', '')}::Thing"
        projects[f"resource-{service}"] = generate(
            {**answers, **extra}, output_dir=root / "projects"
        )
    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_CACHE_DIR"] = os.environ.get("PIP_CACHE_DIR", str(ORIGINAL_HOME / ".cache" / "pip"))
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    # Every README's first command is the same: this checkout, then the project itself ('.').
    # They run as one pip call (one resolution instead of twenty editable builds of plugsim).
    firsts = {readme_commands(project)[0] for project in projects.values()}
    assert firsts == {f"python -m pip install -e {CHECKOUT} -e '.[test,docs]'"}, firsts
    (first,) = firsts
    words = shlex.split(first)
    assert words[-2:] == ["-e", ".[test,docs]"], words
    install = [str(python), *words[1:-2], "-q"]
    for project in projects.values():
        install += ["-e", f"{project}[test,docs]"]
    _run(install, root, env, timeout=2400)
    return python, env, projects


NAMES_BY_KIND = [f"{kind}-{name}" for kind in KINDS for name in NAMES]


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", [*NAMES_BY_KIND, *(f"resource-{s}" for s in RESOURCE_VARIANTS)], ids=str
)
def test_a_generated_project_passes_its_own_checks(installed, name):
    python, env, projects = installed
    project = projects[name]
    package = project.name
    out = _readme_run(readme_commands(project)[1], python, project, env)
    assert " passed" in out and "failed" not in out
    assert "Found 0 errors, 0 warnings and 0 infos" in out
    assert "✘" not in out
    out = _run([str(python), "-m", "sdk.lint", package], project, env)
    assert out.splitlines()[-1].startswith("Found 0 errors, 0 warnings and 0 infos")
    _run([str(python), "-m", "ruff", "format", "--check", "."], project, env)
    _run(
        [str(python), "-m", "sphinx", "-q", "-W", "-b", "html", "docs", "docs/_build/html"],
        project,
        env,
    )
    assert (project / "docs" / "_build" / "html" / "index.html").is_file()


@pytest.mark.slow
def test_an_installed_project_checks_its_upgrade_against_the_last_release(installed, tmp_path):
    """Installed, the project's entry point is the new version: the check must not mix it in."""
    python, env, projects = installed
    project = projects["resource-network"]
    package = project.name
    index = tmp_path / "index"
    release_wheel(project, "0.1.0", index, package)
    env = {**env, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(index)}
    check = [str(python), "-m", "sdk.testing.previous_release", package]
    out = _run(check, project, env)
    assert f"{package} against {package} 0.1.0" in out and "kept working" in out
    resource = project / package / "resource.py"
    kept = resource.read_text()
    try:
        break_renames(project, package)
        proc = subprocess.run(
            check, cwd=project, env=env, capture_output=True, text=True, timeout=900, check=False
        )
    finally:
        resource.write_text(kept)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "an update of property name, which the old version makes in place" in proc.stdout
    assert "property 'name' was updatable in place and no longer is" in proc.stdout
