"""A generated resource project checks each release against the last one (nox ``upgrade``).

The fast tests read what is generated. The slow ones (``pytest -m slow tests/scaffold``) run the
generated ``upgrade`` session itself, through a stand-in for nox that records installs (plugsim and
the project are importable already) and runs its commands: v1 of a project is released (a wheel on
a local package index, or a git tag; no network), changed into a v2 whose rename now replaces the
resource, and the session must fail naming the property; the unchanged v2 must pass, and a project
with no release yet must say there is nothing to upgrade from.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
import types
import zipfile
from pathlib import Path

import pytest

from simulator.scaffold import generate

CHECKOUT = Path(__file__).resolve().parents[2]
PACKAGE = "acme_disk"
TYPE = "Acme::Block::Disk"


def _project(root: Path, **answers: object) -> Path:
    base = {"kind": "resource", "package_name": PACKAGE, "resource_type": TYPE}
    return generate({**base, **answers}, output_dir=root)


def _sessions(project: Path) -> dict[str, ast.FunctionDef]:
    tree = ast.parse((project / "noxfile.py").read_text())
    return {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any(ast.unparse(d) == "nox.session" for d in node.decorator_list)
    }


def test_a_resource_project_has_an_upgrade_session_naming_its_package(tmp_path):
    project = _project(tmp_path)
    sessions = _sessions(project)
    assert sorted(sessions) == ["docs", "lint", "tests", "upgrade"]
    doc = ast.get_docstring(ast.parse((project / "noxfile.py").read_text())) or ""
    assert doc.startswith("nox sessions: ``tests``, ``lint``, ``docs`` and ``upgrade`` (")
    source = ast.unparse(sessions["upgrade"])
    assert f"package = '{PACKAGE}'" in source
    assert "'sdk.testing.previous_release', package, *old" in source
    assert "UPGRADE_FROM" in source


@pytest.mark.parametrize("kind", ["lifecycle", "cloud_driver", "fake_cloud_backend"])
def test_other_kinds_have_no_upgrade_session(tmp_path, kind):
    project = generate({"kind": kind, "package_name": "acme_pkg"}, output_dir=tmp_path)
    assert sorted(_sessions(project)) == ["docs", "lint", "tests"]
    doc = ast.get_docstring(ast.parse((project / "noxfile.py").read_text())) or ""
    assert doc.startswith("nox sessions: ``tests``, ``lint`` and ``docs`` (")
    assert "## Upgrades" not in (project / "README.md").read_text()


def test_the_conformance_class_upgrades_from_the_release_the_session_names(tmp_path):
    project = _project(tmp_path)
    tests = (project / "tests" / "test_resource.py").read_text()
    assert 'UPGRADE_FROM = os.environ.get("PLUGSIM_UPGRADE_FROM") or None' in tests
    assert "    upgrade_from = UPGRADE_FROM\n" in tests
    assert "upgrade_skip_reason" in tests


def test_the_readme_says_how_the_last_release_is_found(tmp_path):
    readme = (_project(tmp_path) / "README.md").read_text()
    assert "## Upgrades" in readme
    assert "nox -s upgrade" in readme
    assert "pip download" in readme
    assert "UPGRADE_FROM" in readme


# --- running the session ---------------------------------------------------------------------


def release_wheel(project: Path, version: str, dest: Path, package: str = PACKAGE) -> Path:
    """A wheel of *project*'s package as it is now: what publishing version *version* uploads."""
    dest.mkdir(parents=True, exist_ok=True)
    dist = f"{package}-{version}"
    wheel = dest / f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path in sorted((project / package).rglob("*.py")):
            archive.write(path, path.relative_to(project).as_posix())
        archive.writestr(
            f"{dist}.dist-info/METADATA",
            f"Metadata-Version: 2.1\nName: {package.replace('_', '-')}\nVersion: {version}\n",
        )
        archive.writestr(
            f"{dist}.dist-info/WHEEL",
            "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        archive.writestr(f"{dist}.dist-info/RECORD", "")
    return wheel


class Session:
    """What the generated session needs of ``nox.Session``: installs are recorded, runs run."""

    def __init__(self, project: Path, env: dict[str, str], posargs: list[str]) -> None:
        self.project, self.env, self.posargs = project, env, posargs
        self.installed: list[tuple[str, ...]] = []
        self.output = ""
        self.code: int | None = None

    def install(self, *args: str) -> None:
        self.installed.append(args)

    def run(self, *args: str) -> None:
        assert args[0] == "python", args
        done = subprocess.run(
            [sys.executable, *args[1:]],
            cwd=self.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        self.output += done.stdout + done.stderr
        self.code = done.returncode


def run_upgrade_session(
    project: Path, index: Path, posargs: list[str] | None = None, **env_extra: str
) -> Session:
    """Import the generated noxfile with a stand-in ``nox`` and run its ``upgrade`` session."""
    fake_nox = types.ModuleType("nox")
    fake_nox.Session = Session  # type: ignore[attr-defined]
    fake_nox.session = lambda f: f  # type: ignore[attr-defined]
    spec = importlib.util.spec_from_file_location("generated_noxfile", project / "noxfile.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    saved = sys.modules.get("nox")
    sys.modules["nox"] = fake_nox
    try:
        spec.loader.exec_module(module)
    finally:
        if saved is None:
            del sys.modules["nox"]
        else:
            sys.modules["nox"] = saved
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UPGRADE_FROM"))}
    env["PYTHONPATH"] = os.pathsep.join([str(project), str(CHECKOUT)])
    env["PIP_NO_INDEX"] = "1"  # the package index is a local directory: no network
    env["PIP_FIND_LINKS"] = str(index)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(env_extra)
    session = Session(project, env, posargs or [])
    module.upgrade(session)
    assert ("-e", ".[test]") in session.installed
    return session


def break_renames(project: Path, package: str = PACKAGE) -> None:
    """v2's bug: the update v1 made in place (a rename; metadata for a container) now replaces."""
    path = project / package / "resource.py"
    text = path.read_text()
    assert text.count("update_allowed=True,") == 1, "the template changed: adapt the bug"
    path.write_text(text.replace("update_allowed=True,", "update_allowed=False,"))


SERVICES = ("entity", "compute", "block_storage", "network", "object_storage")
#: The property each service's project updates in place (what v2's bug stops doing).
IN_PLACE = {"object_storage": "metadata"}


@pytest.fixture(params=SERVICES)
def released(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, Path, str]:
    """A project of each service whose v0.1.0 wheel is on a local package index."""
    service = request.param
    extra = {"with_suspend_resume": True} if service == "compute" else {}
    project = _project(tmp_path / "src", service=service, with_snapshot=True, **extra)
    index = tmp_path / "index"
    release_wheel(project, "0.1.0", index)
    return project, index, service


@pytest.mark.slow
def test_the_session_catches_a_release_that_replaces_on_rename_naming_the_property(released):
    project, index, service = released
    prop = IN_PLACE.get(service, "name")
    break_renames(project)
    session = run_upgrade_session(project, index)
    assert session.code == 1, session.output
    assert f"{PACKAGE} against {PACKAGE} 0.1.0" in session.output
    assert f"PS804 {TYPE}: property '{prop}' was updatable in place and no longer is" in (
        session.output
    )
    assert (
        f"{TYPE}: an update of property {prop}, which the old version makes in place, "
        "replaced the resource" in session.output
    )
    assert "lint --against, upgrade test failed" in session.output


@pytest.mark.slow
def test_the_unchanged_release_passes(released):
    project, index, _ = released
    release_wheel(project, "0.1.1", index)  # the newest release is the one compared with
    session = run_upgrade_session(project, index)
    assert session.code == 0, session.output
    assert f"{PACKAGE} against {PACKAGE} 0.1.1" in session.output
    assert "1 passed" in session.output and "plugsim upgrade: kept working" in session.output


@pytest.mark.slow
def test_a_git_tag_names_the_release_as_a_posarg(tmp_path):
    project = _project(tmp_path / "src", service="block_storage")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(project)]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "v1"], ["tag", "v0.1.0"]):
        subprocess.run([*git, *args], check=True, capture_output=True, timeout=60)
    break_renames(project)
    empty = tmp_path / "empty-index"
    empty.mkdir()
    session = run_upgrade_session(project, empty, ["v0.1.0"])
    assert session.code == 1, session.output
    assert f"{PACKAGE} against git v0.1.0" in session.output
    assert "an update of property name, which the old version makes in place" in session.output


@pytest.mark.slow
def test_before_the_first_release_there_is_nothing_to_upgrade_from(tmp_path):
    project = _project(tmp_path / "src")
    empty = tmp_path / "empty-index"
    empty.mkdir()
    session = run_upgrade_session(project, empty)
    assert session.code == 0, session.output
    assert "has no release of acme-disk yet (a first release?)" in session.output
    # and the test itself, run without the session, skips saying why
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-rs", "-k", "upgrade_from_previous_version"],
        cwd=project,
        env=session.env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no previous release to upgrade from: nox -s upgrade finds the last one" in done.stdout
