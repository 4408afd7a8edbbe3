"""What the compat layer still lacks fails in one line naming the plug-in's file, line and need.

Never a bare ``AttributeError`` such as ``'StackInfo' object has no attribute
'resource_by_refid'``: a Heat name the layer lacks is a
:class:`~simulator.heat_compat.MissingHeatName`, and an endpoint the fake
cloud's client lacks is named with the client.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from simulator.heat_compat import use_heat_plugins
from simulator.store import Store
from simulator.world import World

NEEDY = textwrap.dedent(
    """
    from heat.engine import resource


    class NeedsStackClients(resource.Resource):
        def handle_create(self):
            return self.stack.user_creds_id


    class NeedsResourceMethod(resource.Resource):
        def handle_create(self):
            return self.has_hook("pre-create")


    class NeedsEndpoint(resource.Resource):
        default_client_name = "nova"

        def handle_create(self):
            return self.client().no_such_endpoint.list()


    class NeedsPluginMethod(resource.Resource):
        default_client_name = "nova"

        def handle_create(self):
            return self.client_plugin().get_flavor_id("m1.tiny")


    class NeedsService(resource.Resource):
        def handle_create(self):
            return self.client("no_such_service")


    def resource_mapping():
        return {
            "Test::Needy::StackClients": NeedsStackClients,
            "Test::Needy::ResourceMethod": NeedsResourceMethod,
            "Test::Needy::Endpoint": NeedsEndpoint,
            "Test::Needy::PluginMethod": NeedsPluginMethod,
            "Test::Needy::Service": NeedsService,
        }
    """
)


@pytest.fixture
def needy(tmp_path: Path) -> tuple[Any, Path]:
    path = tmp_path / "needy.py"
    path.write_text(NEEDY, encoding="utf-8")
    world = World(Store(":memory:"), seed=5)
    report = use_heat_plugins(world, path)
    assert not report.errors, report.errors
    yield world, path
    world.close()


def _line_of(path: Path, text: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


@pytest.mark.parametrize(
    ("type_name", "code", "needed"),
    [
        (
            "Test::Needy::StackClients",
            "self.stack.user_creds_id",
            "heat.engine.stack.Stack.user_creds_id",
        ),
        (
            "Test::Needy::ResourceMethod",
            'self.has_hook("pre-create")',
            "heat.engine.resource.Resource.has_hook",
        ),
        (
            "Test::Needy::PluginMethod",
            "get_flavor_id",
            "heat.engine.clients.client_plugin.ClientPlugin.get_flavor_id",
        ),
    ],
)
def test_missing_heat_name_at_run_time_names_file_line_and_name(
    needy: tuple[Any, Path], type_name: str, code: str, needed: str
) -> None:
    world, path = needy
    stack = world.create_stack(
        "s",
        {"heat_template_version": "2018-08-31", "resources": {"r": {"type": type_name}}},
        disable_rollback=True,
    )
    assert (stack.action, stack.status) == ("CREATE", "FAILED")
    reason = stack.status_reason
    assert "\n" not in reason
    assert f"{path}:{_line_of(path, code)}: {needed} is not provided" in reason
    assert "object has no attribute" not in reason


def test_missing_fake_cloud_endpoint_names_client_endpoint_and_line(
    needy: tuple[Any, Path],
) -> None:
    world, path = needy
    stack = world.create_stack(
        "s",
        {
            "heat_template_version": "2018-08-31",
            "resources": {"r": {"type": "Test::Needy::Endpoint"}},
        },
        disable_rollback=True,
    )
    reason = stack.status_reason
    assert (stack.action, stack.status) == ("CREATE", "FAILED")
    assert "object has no attribute" not in reason
    assert f"{path}:{_line_of(path, 'no_such_endpoint')}" in reason
    assert "no_such_endpoint" in reason and "nova" in reason
    assert "fake cloud" in reason


def test_missing_fake_cloud_service_names_service_and_line(needy: tuple[Any, Path]) -> None:
    world, path = needy
    stack = world.create_stack(
        "s",
        {
            "heat_template_version": "2018-08-31",
            "resources": {"r": {"type": "Test::Needy::Service"}},
        },
        disable_rollback=True,
    )
    reason = stack.status_reason
    assert (stack.action, stack.status) == ("CREATE", "FAILED")
    line = _line_of(path, 'self.client("no_such_service")')
    assert f"{path}:{line}: the fake cloud has no 'no_such_service' service" in reason
