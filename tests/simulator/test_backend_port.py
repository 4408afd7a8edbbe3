"""The cloud backend port: backends are loaded, saved and restored through their entry point."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import pytest
from backend_port_tiny import TinyBackend

from fake_clouds import FakeCloud
from sdk import exception
from simulator import backend as port
from simulator.clock import VirtualClock
from simulator.drivers.harness import DriverHarness
from simulator.store import Store
from simulator.world import World

ROOT = Path(__file__).resolve().parents[2]
TINY = "backend_port_tiny"


@pytest.fixture
def extra_backends(monkeypatch):
    """Install entry points next to the real ones: {name: 'module:attr'}."""
    real = importlib.metadata.entry_points
    extra: dict[str, str] = {}

    def entry_points(**kwargs):
        found = real(**kwargs)
        if kwargs.get("group") != port.ENTRY_POINT_GROUP:
            return found
        mine = [
            importlib.metadata.EntryPoint(n, v, port.ENTRY_POINT_GROUP) for n, v in extra.items()
        ]
        return [ep for ep in found if ep.name not in extra] + mine

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    return extra


def bump(world: World, times: int = 1) -> int:
    client = world.client_plugin("counter").client()
    return [client.bump() for _ in range(times)][-1]


@pytest.mark.parametrize("target", [f"{TINY}:TinyBackend", f"{TINY}:tiny_factory"])
def test_a_second_backend_is_loaded_saved_and_restored_as_itself(tmp_path, extra_backends, target):
    extra_backends["tiny"] = target
    path = tmp_path / "world.db"
    with World(Store(str(path)), seed=3, backend="tiny") as world:
        assert isinstance(world.cloud, TinyBackend)
        assert world.cloud.clock is world.clock
        assert bump(world, 2) == 2
        world.clock.advance(30)
    with World.open(path) as again:
        assert isinstance(again.cloud, TinyBackend) and not isinstance(again.cloud, FakeCloud)
        assert again.cloud.restored
        assert again.backend == "tiny"
        assert again.cloud.clock is again.clock and again.clock.now() == 30
        assert bump(again) == 3
    store = Store(str(path))
    try:
        assert store.get_meta("backend") == "tiny"
        assert store.get_meta("cloud")["count"] == 3
    finally:
        store.close()


def test_faults_given_when_reopening_reach_the_restored_backend(tmp_path, extra_backends):
    extra_backends["tiny"] = f"{TINY}:TinyBackend"
    path = tmp_path / "world.db"
    World(Store(str(path)), backend="tiny").close()
    with World.open(path, faults="refuse") as world:
        with pytest.raises(exception.ServiceUnavailable, match="counter refuses"):
            bump(world)


def test_the_default_world_is_restored_by_the_default_backend(tmp_path):
    path = tmp_path / "world.db"
    with World(Store(str(path)), seed=5) as world:
        server = world.cloud.client("nova").servers.create("a", image="cirros", flavor="1")
        saved = world.cloud.to_state()
    with World.open(path) as again:
        assert isinstance(again.cloud, FakeCloud) and again.backend == "default"
        assert again.cloud.to_state() == saved
        assert again.cloud.client("nova").servers.get(server.id).name == "a"


def test_reopening_a_world_with_another_backend_is_refused(tmp_path, extra_backends):
    extra_backends["tiny"] = f"{TINY}:TinyBackend"
    path = tmp_path / "world.db"
    World(Store(str(path)), backend="tiny").close()
    with pytest.raises(exception.ConfigurationError) as info:
        World.open(path, backend="default")
    assert str(info.value) == (
        f"{path}: this world was created with the fake cloud backend 'tiny'; "
        "use a new --state to run on 'default'"
    )


def test_a_factory_returning_service_classes_gets_a_world_of_those_services(
    tmp_path, extra_backends
):
    extra_backends["compute-only"] = f"{__name__}:compute_only"
    path = tmp_path / "world.db"
    with World(Store(str(path)), backend="compute-only") as world:
        assert world.cloud.service_names() == ["compute"]
    with World.open(path) as again:
        assert again.cloud.service_names() == ["compute"]


def compute_only(**kwargs):
    """A factory in the iterable-of-services style."""
    from fake_clouds.core.registry import service_class

    return [service_class("compute")]


def not_a_backend(**kwargs):
    """A factory whose result fits no part of the port."""
    return 42


def test_bad_backends_are_named_in_one_line(extra_backends):
    clock = VirtualClock()
    with pytest.raises(
        exception.ConfigurationError, match=r"No fake cloud backend 'nope' .*known: "
    ):
        port.load_backend("nope", seed=0, clock=clock)
    extra_backends["broken"] = "no_such_module_xyz:factory"
    with pytest.raises(
        exception.PluginLoadError,
        match=r"'broken' \(no_such_module_xyz:factory\) failed to load: ModuleNotFoundError",
    ):
        port.load_backend("broken", seed=0, clock=clock)
    extra_backends["int"] = f"{__name__}:not_a_backend"
    with pytest.raises(
        exception.PluginLoadError, match="'int' returned int, which is not a CloudBackend"
    ):
        port.load_backend("int", seed=0, clock=clock)
    assert {"broken", "default", "int"} <= set(port.available_backends())


def test_restore_refuses_a_backend_that_cannot_restore(extra_backends):
    extra_backends["forgetful"] = f"{__name__}:forgetful"
    with pytest.raises(exception.PluginLoadError, match="'forgetful' cannot restore a saved world"):
        port.restore_backend("forgetful", {}, seed=0, clock=VirtualClock())


class Forgetful(TinyBackend):
    """A backend whose class cannot rebuild itself."""

    from_state = None  # type: ignore[assignment]


def forgetful(*, seed, clock, faults=None):
    return Forgetful(seed, clock, faults)


def test_the_harness_runs_on_any_backend(extra_backends):
    extra_backends["tiny"] = f"{TINY}:TinyBackend"
    tiny = port.load_backend("tiny", seed=1, clock=VirtualClock(5.0))
    harness = DriverHarness({}, cloud=tiny, salt_mode=False)
    assert harness.clock is tiny.clock and harness.now() == 5.0
    assert harness.rest is None and harness.rest_report() is None
    with pytest.raises(Exception, match="no server of the fake cloud has the address 10.0.0.9"):
        harness.deployer("ssh", {"host": "10.0.0.9"})


def test_the_harness_builds_the_default_backend_through_the_entry_point():
    harness = DriverHarness({}, seed=4, salt_mode=False)
    assert isinstance(harness.cloud, FakeCloud)
    assert harness.rest is not None and "REST call(s) served" in harness.rest_report().format()


def _mypy(*files: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(Path(__file__).parent)])}
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-incremental", *files],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


PORT_USERS = (
    "simulator/backend.py",
    "simulator/world.py",
    "simulator/drivers/harness.py",
    "simulator/drivers/deploy.py",
    str(Path(__file__).with_name("backend_port_tiny.py")),
)


@pytest.mark.material
def test_mypy_checks_the_port_its_users_and_both_backends():
    result = _mypy(*PORT_USERS)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.material
def test_mypy_catches_a_backend_that_does_not_fit_the_port(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        "from simulator.backend import CloudBackend\n"
        "from simulator.clock import VirtualClock\n\n\n"
        "class NoServers:\n"
        "    clock = VirtualClock()\n\n\n"
        "backend: CloudBackend = NoServers()\n"
    )
    result = _mypy(str(planted))
    assert result.returncode == 1
    assert 'variable has type "CloudBackend"' in result.stdout
