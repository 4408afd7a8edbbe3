"""The ``plugsim`` pytest plugin (entry point ``pytest11``; disable with ``-p no:plugsim``).

Fixtures
    ``plugsim_seed``      the test's seed (derived from the session seed and the node id)
    ``plugsim_env``       a :class:`sdk.testing.harness.PlugsimEnv` (worlds, types, coverage)
    ``plugsim_world``     the test's default world (fresh per test, seeded)
    ``virtual_clock``     that world's :class:`simulator.clock.VirtualClock`
    ``fake_cloud``        that world's :class:`fake_clouds.core.FakeCloud`
    ``stack_factory``     ``stack_factory(template, environment=(), parameters=None, **kw)``
    ``resource_harness``  ``resource_harness(ResourceClass, properties, **kw)``

Markers
    ``@pytest.mark.faults(...)``   fault rules (mappings, a list) or a preset name
    ``@pytest.mark.latency(...)``  a latency spec, or one number for every call and transition
    ``@pytest.mark.seed(N)``       the test's seed, whatever the session seed
    ``@pytest.mark.world(W)``      a world file (relative to the test file) or preset

Options
    ``--plugsim-seed N``, ``--plugsim-faults SPEC``, ``--plugsim-report PATH``,
    ``--plugsim-wall-limit SECONDS``, ``--plugsim-world FILE|PRESET``

Ini options
    ``plugsim_world``: the world file (relative to the ini file) or preset of every test

Nothing here is autouse: a test that asks for no plugsim fixture runs untouched.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from sdk import exception
from sdk.testing.report import Coverage
from sdk.testing.watchdog import DEFAULT_WALL_LIMIT
from simulator.rng import derive_seed

if TYPE_CHECKING:  # the harness imports the engine: loaded when a fixture is first used
    from sdk.testing._world import PlugsimWorld
    from sdk.testing.harness import PlugsimEnv, ResourceHarness, StackHandle
    from simulator.clock import VirtualClock

COVERAGE_KEY = pytest.StashKey[Coverage]()
SEED_KEY = pytest.StashKey[int]()
USED_KEY = pytest.StashKey[bool]()

MARKERS = (
    "faults(*rules_or_preset): fault rules or a preset name for this test's fake cloud",
    "latency(spec): latency model for this test's fake cloud (a number: every call/transition)",
    "seed(n): run this test with seed n",
    "world(file_or_preset): the world file (relative to the test file) or preset this test's "
    "fake cloud starts from",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the ``--plugsim-*`` options."""
    group = parser.getgroup("plugsim", "plugsim simulated clouds")
    group.addoption(
        "--plugsim-seed",
        type=int,
        default=None,
        help="session seed; each test's seed derives from it and the test id (default 0)",
    )
    group.addoption(
        "--plugsim-faults",
        default=None,
        help="fault preset, profile path or YAML rules for every test's fake cloud",
    )
    group.addoption(
        "--plugsim-world",
        default=None,
        metavar="FILE|PRESET",
        help="world file or preset (default, devstack) every test's fake cloud starts from",
    )
    parser.addini(
        "plugsim_world",
        "world file (relative to the ini file) or preset every test's fake cloud starts from",
        default="",
    )
    group.addoption(
        "--plugsim-report",
        default=None,
        metavar="PATH",
        help="PATH ending in .json: write the lifecycle coverage matrix there; any other PATH is "
        "a directory: coverage.json plus one HTML page per failing plugsim test",
    )
    group.addoption(
        "--plugsim-wall-limit",
        type=float,
        default=DEFAULT_WALL_LIMIT,
        metavar="SECONDS",
        help=f"fail a test whose plug-in handler blocks longer (default {DEFAULT_WALL_LIMIT:g})",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers and the session's coverage matrix."""
    for line in MARKERS:
        config.addinivalue_line("markers", line)
    config.stash[COVERAGE_KEY] = Coverage()


def session_seed(config: pytest.Config) -> int:
    """The session seed (``--plugsim-seed``, default 0)."""
    value = config.getoption("--plugsim-seed", None)
    return 0 if value is None else int(value)


def item_seed(item: pytest.Item) -> int:
    """The seed of *item*: its ``seed`` marker, else derived from session seed and node id."""
    marker = item.get_closest_marker("seed")
    if marker is not None:
        if (
            len(marker.args) != 1
            or isinstance(marker.args[0], bool)
            or not isinstance(marker.args[0], int)
        ):
            raise exception.ConfigurationError(
                f"{item.nodeid}: @pytest.mark.seed takes one integer, got {marker.args!r}"
            )
        return marker.args[0]
    return derive_seed(session_seed(item.config), item.nodeid) % (2**31)


def item_world(item: pytest.Item) -> str | None:
    """The world of *item*: its ``world`` marker, else ``--plugsim-world``, else the ini option.

    A relative file name is taken from the test file's directory (marker) or the
    ini file's (ini option); a name that is no file there is passed on as it is
    (a preset, or a path relative to the working directory).
    """
    import os

    marker = item.get_closest_marker("world")
    if marker is not None:
        if len(marker.args) != 1 or not isinstance(marker.args[0], str | os.PathLike):
            raise exception.ConfigurationError(
                f"{item.nodeid}: @pytest.mark.world takes one file name or preset, "
                f"got {marker.args!r}"
            )
        return _relative(str(marker.args[0]), os.path.dirname(str(item.path)))
    option = item.config.getoption("--plugsim-world", None)
    if option:
        return str(option)
    ini = str(item.config.getini("plugsim_world") or "")
    if ini:
        base = item.config.inipath.parent if item.config.inipath else item.config.rootpath
        return _relative(ini, str(base))
    return None


def _relative(name: str, base: str) -> str:
    import os

    candidate = os.path.join(base, name)
    return candidate if not os.path.isabs(name) and os.path.isfile(candidate) else name


def _faults(item: pytest.Item) -> Any:
    marker = item.get_closest_marker("faults")
    if marker is None:
        return item.config.getoption("--plugsim-faults", None)
    args = marker.args
    if len(args) == 1 and isinstance(args[0], str | list | tuple):
        return list(args[0]) if isinstance(args[0], tuple) else args[0]
    if args and all(isinstance(a, dict) for a in args):
        return list(args)
    raise exception.ConfigurationError(
        f"{item.nodeid}: @pytest.mark.faults takes a preset name, a list of rules "
        f"or rule mappings, got {args!r}"
    )


def _latency(item: pytest.Item) -> Any:
    marker = item.get_closest_marker("latency")
    if marker is None:
        return None
    if marker.kwargs and not marker.args:
        return dict(marker.kwargs)
    if len(marker.args) == 1:
        spec = marker.args[0]
        if isinstance(spec, int | float) and not isinstance(spec, bool):
            return uniform_latency(spec)
        return spec
    raise exception.ConfigurationError(
        f"{item.nodeid}: @pytest.mark.latency takes one spec (or a number), got {marker.args!r}"
    )


def uniform_latency(seconds: float) -> dict[str, dict[str, float]]:
    """A latency spec giving every call and every transition exactly *seconds*."""
    from fake_clouds.core.latency import DEFAULT_LATENCY

    return {
        section: {key: seconds for key in [*DEFAULT_LATENCY[section], "*"]}
        for section in ("calls", "transitions")
    }


def replay_command(item: pytest.Item) -> str:
    """The command line that runs *item* again with the same seed and faults.

    The test is named by its file's path from the directory pytest was started in (absolute when
    the file lies elsewhere), so the line works from there whatever pytest's rootdir was.
    """
    parts = [
        "python",
        "-m",
        "pytest",
        _node_path(item),
        f"--plugsim-seed={session_seed(item.config)}",
    ]
    faults = item.config.getoption("--plugsim-faults", None)
    if faults:
        parts.append(f"--plugsim-faults={faults}")
    world = item.config.getoption("--plugsim-world", None)
    if world:
        parts.append(f"--plugsim-world={world}")
    return shlex.join(parts)


def _node_path(item: pytest.Item) -> str:
    """*item*'s node id with its file named from the invocation directory."""
    _, sep, rest = item.nodeid.partition("::")
    path = os.fspath(item.path)
    start = os.fspath(item.config.invocation_params.dir)
    relative = os.path.relpath(path, start)
    name = path if relative.startswith(os.pardir) else relative
    return f"{name}{sep}{rest}"


@pytest.fixture
def plugsim_seed(request: pytest.FixtureRequest) -> int:
    """The test's seed (``seed`` marker, else derived from the session seed and node id)."""
    seed = item_seed(request.node)
    request.node.stash[SEED_KEY] = seed
    request.node.stash[USED_KEY] = True
    return seed


@pytest.fixture
def plugsim_env(request: pytest.FixtureRequest, plugsim_seed: int) -> Iterator[PlugsimEnv]:
    """A :class:`PlugsimEnv` for this test; every world it opens is closed afterwards."""
    from sdk.testing.harness import PlugsimEnv

    item = request.node
    env = PlugsimEnv(
        plugsim_seed,
        faults=_faults(item),
        latency=_latency(item),
        wall_limit=item.config.getoption("--plugsim-wall-limit", DEFAULT_WALL_LIMIT),
        coverage=item.config.stash[COVERAGE_KEY],
        world=item_world(item),
    )
    env.replay = replay_command(item)
    yield env
    env.close()


@pytest.fixture
def plugsim_world(plugsim_env: PlugsimEnv) -> PlugsimWorld:
    """The test's default simulated world (fresh per test, seeded)."""
    return plugsim_env.world


@pytest.fixture
def virtual_clock(plugsim_world: PlugsimWorld) -> VirtualClock:
    """The virtual clock of the test's world."""
    return plugsim_world.clock


@pytest.fixture
def fake_cloud(plugsim_world: PlugsimWorld) -> Any:
    """The fake cloud of the test's world (faults/latency from markers and options)."""
    return plugsim_world.cloud


@pytest.fixture
def openstack_connection(plugsim_world: PlugsimWorld, tmp_path: Any) -> Iterator[Any]:
    """An ``openstack.connection.Connection`` on the fake cloud's OpenStack wire.

    ``clouds.yaml`` is written to the test's ``tmp_path``; ``conn.plugsim_wire``
    is the serving :class:`fake_clouds.openstack.WireApp`. Needs ``plugsim[openstack]``.
    """
    pytest.importorskip("openstack")
    from sdk.testing.openstack_wire import openstack_connection as connect

    cloud = plugsim_world.fake_cloud("the openstack_connection fixture")
    with connect(cloud, tmp_path / "clouds.yaml") as conn:
        yield conn


@pytest.fixture
def stack_factory(plugsim_env: PlugsimEnv) -> Callable[..., StackHandle]:
    """``stack_factory(template, environment=(), parameters=None, **kw)`` -> StackHandle."""
    return plugsim_env.stack


@pytest.fixture
def resource_harness(plugsim_env: PlugsimEnv) -> Callable[..., ResourceHarness]:
    """``resource_harness(ResourceClass, properties, **kw)`` -> ResourceHarness."""
    return plugsim_env.harness


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[Any]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Add the seed and the replay command to the report of a failing plugsim test."""
    report = yield
    if report.failed and item.stash.get(USED_KEY, False):
        seed = item.stash.get(SEED_KEY, None)
        text = f"seed: {seed} (session seed {session_seed(item.config)})\n"
        text += f"replay: {replay_command(item)}"
        directory = report_directory(item.config)
        env = getattr(item, "funcargs", {}).get("plugsim_env")
        verdict = None
        if env is not None and call.excinfo is not None:
            from sdk.testing.verdict import VerdictFailure, verdict_of_failure

            verdict = verdict_of_failure(env, call.excinfo.value)
            if verdict is not None and not isinstance(call.excinfo.value, VerdictFailure):
                # the failure itself did not say it (its replay line is the section's)
                text += "\n" + verdict.render(include_replay=False)
        if directory is not None and env is not None:
            from sdk.testing.report_pages import write_failure_pages

            pages = write_failure_pages(directory, item.nodeid, report.when, env, text, verdict)
            for path in pages:
                text += f"\nreport: {path}"
        report.sections.append(("plugsim", text))
    return report


def report_directory(config: pytest.Config) -> str | None:
    """The ``--plugsim-report`` directory (None when the option names a .json file or is unset)."""
    path = config.getoption("--plugsim-report", None)
    if not path or str(path).lower().endswith(".json"):
        return None
    return str(path)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Print the lifecycle coverage matrix and write ``--plugsim-report``."""
    coverage = config.stash.get(COVERAGE_KEY, None)
    if coverage is None:
        return
    path = config.getoption("--plugsim-report", None)
    directory = report_directory(config)
    if directory is not None:
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, "coverage.json")
    if coverage.plugins():
        terminalreporter.write_sep("=", "plugsim lifecycle coverage")
        for line in coverage.lines():
            terminalreporter.write_line(line)
    if path:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(coverage.to_json())
        terminalreporter.write_line(f"plugsim coverage report written to {path}")
