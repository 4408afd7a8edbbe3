"""An installed (non-editable) plugsim carries the plug-in template: ``plugsim new`` works there.

Slow (a wheel build, a virtual environment and a pip install): ``pytest -m slow
tests/scaffold/test_packaging.py``. pip's cache is reused, so after the first run
nothing but plugsim's own wheel is built.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from .conftest import ORIGINAL_HOME
from .test_first_contact import readme_commands

CHECKOUT = Path(__file__).resolve().parents[2]
TEMPLATE = CHECKOUT / "cookiecutter-plugin"
#: What a copy of the checkout leaves out anywhere (build output, caches).
NOT_BUILT = shutil.ignore_patterns(
    ".git",
    ".hypothesis",
    ".pytest_cache",
    ".ruff_cache",
    ".nox",
    ".venv",
    ".plugsim",
    "__pycache__",
    "*.pyc",
    "*.egg-info",
    "build",
    "dist",
    "_build",
)


def _not_copied(directory: str, names: list[str]) -> set[str]:
    """Build output and caches anywhere, and the checkout's own tests (not the template's)."""
    skipped = set(NOT_BUILT(directory, names))
    if Path(directory) == CHECKOUT:
        skipped.add("tests")
    return skipped


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 900) -> str:
    proc = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert proc.returncode == 0, (
        f"{' '.join(args)} (in {cwd}) exited {proc.returncode}\n"
        f"--- stdout ---\n{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-4000:]}"
    )
    return proc.stdout


def _env(bin_dir: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_CACHE_DIR"] = os.environ.get("PIP_CACHE_DIR", str(ORIGINAL_HOME / ".cache" / "pip"))
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    if bin_dir is not None:
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return env


def _runtime_requirements(wheel: Path) -> list[str]:
    """The wheel's ``Requires-Dist`` lines that no extra guards (what ``plugsim`` needs to run)."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(name).decode("utf-8"))
    return sorted(r for r in metadata.get_all("Requires-Dist", []) if "extra ==" not in r)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """plugsim's wheel, built from a copy of the checkout (the build writes into its source)."""
    root = tmp_path_factory.mktemp("plugsim-wheel")
    source = root / "src"
    shutil.copytree(CHECKOUT, source, ignore=_not_copied)
    out = root / "dist"
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)],
        root,
        _env(),
        timeout=1200,
    )
    (built,) = out.glob("plugsim-*.whl")
    return built


@pytest.mark.slow
def test_the_wheel_ships_every_file_of_the_template(wheel):
    with zipfile.ZipFile(wheel) as archive:
        shipped = {
            n.removeprefix("simulator/cookiecutter-plugin/")
            for n in archive.namelist()
            if n.startswith("simulator/cookiecutter-plugin/")
        }
    expected = {
        p.relative_to(TEMPLATE).as_posix()
        for p in TEMPLATE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert "cookiecutter.json" in expected
    assert shipped == expected


@pytest.mark.slow
def test_plugsim_new_works_from_an_installed_wheel(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    env = _env(env_dir / "bin")
    env["HOME"] = str(tmp_path / "home")  # cookiecutter's replay files
    requirements = _runtime_requirements(wheel)
    assert any(re.match(r"cookiecutter\b", r) for r in requirements), requirements
    _run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], tmp_path, env)
    _run([str(python), "-m", "pip", "install", "-q", *requirements], tmp_path, env, timeout=1200)

    where = _run(
        [str(python), "-c", "import simulator.scaffold as s; print(s.find_template())"],
        tmp_path,
        env,
    ).strip()
    assert Path(where).parent.parent.name == "site-packages", where  # not this checkout
    assert Path(where).parts[-2:] == ("simulator", "cookiecutter-plugin")

    out_dir = tmp_path / "projects"
    plugsim = env_dir / "bin" / "plugsim"
    args = [str(plugsim), "new", "--kind", "resource", "--no-input", "-o", str(out_dir)]
    out = _run([*args, "package_name=acme_zone", "resource_type=Acme::DNS::Zone"], tmp_path, env)

    project = out_dir / "acme_zone"
    assert out.splitlines()[:2] == [
        "package acme_zone, distribution acme-zone, type Acme::DNS::Zone",
        f"created {project}",
    ]
    assert (project / "acme_zone" / "resource.py").is_file()
    assert "Acme::DNS::Zone" in (project / "acme_zone" / "resource.py").read_text()
    assert (project / "pyproject.toml").is_file()
    # the project installs plugsim from the wheel that generated it (plugsim is not on PyPI)
    assert readme_commands(project)[0] == f"python -m pip install {wheel} -e '.[test,docs]'"
