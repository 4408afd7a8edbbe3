"""Test-wide settings: no wall-clock verdicts, and the trust decisions of a developer.

Hypothesis's deadline and too-slow health check turn a busy machine into a
failing test; timing goals belong to benchmarks here, so the suite's profile
drops both (it still shrinks and replays failures as usual).

The command line runs a project's code only once the user has trusted the
project (:mod:`simulator.project_trust`). A developer of plugsim trusts the
bundled examples (``plugsim trust examples/three-tier examples/campaign``);
the tests do the same in a trust file of their own, never the user's.

Tests marked ``material`` (the Sphinx build of these docs, the bundled
library's whole lint, the Heat differential and lifecycle runs, thousand-seed
campaigns, the mutation regression, the browser test, ...) run real material
for tens of seconds each; they are left out of the default run and run when
the ``-m`` expression names them: ``pytest -n auto -m material`` (``nox -s
material``, and a step of its own in CI). See docs/contributing.rst.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings


def _share_compiled_modules() -> None:
    """Compile plugsim's own modules once per test run, not once per child process.

    With ``PYTHONDONTWRITEBYTECODE`` set (as on the development container), every
    ``plugsim`` or ``python -m sdk.lint`` child the tests start compiled the package
    from source again (about a second of CPU a child). The first test process (xdist's
    controller, or pytest alone) compiles ``simulator``, ``sdk`` and ``fake_clouds``
    once into a directory of its own, removed when it exits, and names it in
    ``PYTHONPYCACHEPREFIX`` for the workers and children to read. Nothing else is
    written: a test that rewrites a plug-in file within the same second at the same size
    (hypothesis does) must never import a stale copy, so bytecode writing stays off.
    A run that writes bytecode, or names its own prefix, is left as it is.
    """
    if not sys.dont_write_bytecode or sys.pycache_prefix or os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    import compileall

    root = Path(__file__).resolve().parents[1]
    prefix = tempfile.mkdtemp(prefix="plugsim-tests-pycache-")
    atexit.register(shutil.rmtree, prefix, ignore_errors=True)
    sys.pycache_prefix = prefix
    for package in ("simulator", "sdk", "fake_clouds"):
        compileall.compile_dir(root / package, quiet=2)
    os.environ["PYTHONPYCACHEPREFIX"] = prefix


_share_compiled_modules()

settings.register_profile(
    "plugsim-tests", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("plugsim-tests")

#: Markers of the tiers that run only when the ``-m`` expression names them.
OPT_IN_TIERS = {
    "material": "runs real material for tens of seconds (docs build, whole-library lint, Heat "
    "differential and lifecycle runs, thousand-seed campaigns, mutants, browser); left out of "
    "the default run, run with -m material",
}


def pytest_configure(config: pytest.Config) -> None:
    """Register the opt-in tier markers."""
    for name, text in OPT_IN_TIERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")


def _named_files(config: pytest.Config) -> set[Path]:
    """The test files the command line names one by one (a file or a node id, not a folder)."""
    base = Path(config.invocation_params.dir)
    named = (base / arg.split("::", 1)[0] for arg in config.args)
    return {path.resolve() for path in named if path.is_file()}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave each opt-in tier out unless the ``-m`` expression or the command line names it.

    ``pytest tests/heat/test_types_diff.py`` (or one of its node ids) runs that file's
    material tests: naming the file is asking for them.
    """
    markexpr = config.getoption("markexpr", "") or ""
    named = _named_files(config)
    for name in OPT_IN_TIERS:
        if name in markexpr:
            continue
        left_out = [
            item
            for item in items
            if item.get_closest_marker(name) is not None and Path(item.path).resolve() not in named
        ]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            dropped = {id(item) for item in left_out}
            items[:] = [item for item in items if id(item) not in dropped]


ROOT = Path(__file__).resolve().parents[1]
#: The checkout's example projects whose plugsim.yaml lists plug-ins.
TRUSTED_EXAMPLES = ("examples/three-tier", "examples/campaign")


@pytest.fixture(scope="session")
def _example_trust_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from simulator import project_trust

    path = tmp_path_factory.mktemp("trust") / "trusted-projects.json"
    saved = project_trust.TRUST_FILE_ENV
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(saved, str(path))
        for example in TRUSTED_EXAMPLES:
            project_trust.trust(ROOT / example)
    return path


@pytest.fixture(autouse=True)
def _trusted_examples(_example_trust_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from simulator.project_trust import TRUST_FILE_ENV

    monkeypatch.setenv(TRUST_FILE_ENV, str(_example_trust_file))


@pytest.fixture(scope="session")
def _session_world_key(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("world-key") / "world.key"


@pytest.fixture(autouse=True)
def _test_world_key(_session_world_key: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Worlds that seal secrets use a key of the test session's own, never the user's."""
    from simulator.world_key import KEY_FILE_ENV

    monkeypatch.setenv(KEY_FILE_ENV, str(_session_world_key))


@pytest.fixture(scope="session")
def checkout_import_edges() -> tuple:
    """``tools/importgraph.py``'s edges over this checkout, read once per test process.

    Reading every module's imports costs about 3 CPU seconds; the floors, the circles, the
    SDK core's and the lint package's checks and the engine's seams all ask for the same
    edges (an edge is an immutable record, so sharing them is safe).
    """
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "_checkout_importgraph", ROOT / "tools" / "importgraph.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return tuple(module.graph(ROOT))
