"""The corpus of stock-cloud HOT templates: validate, create and delete on the default world."""

from pathlib import Path

import pytest

from sdk import exception
from simulator.world import World
from tests.library.conftest import outputs

TEMPLATES = sorted((Path(__file__).parent / "templates").glob("*.yaml"))


def test_the_corpus_is_not_empty():
    assert len(TEMPLATES) >= 3


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.stem)
def test_template_validates_creates_and_deletes_without_leaks(world, path):
    described = world.validate_template(str(path))
    assert described["Resources"]
    stack = world.create_stack("corpus", str(path))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert all(value not in (None, "") for value in outputs(stack).values())
    assert world.cloud.leaks(world.baseline)  # something was really created
    stack = world.delete_stack("corpus")
    assert stack.state == "DELETE_COMPLETE", stack.status_reason
    assert world.cloud.leaks(world.baseline) == []


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.stem)
def test_template_runs_are_deterministic(path):
    def run():
        with World(seed=7) as w:
            stack = w.create_stack("corpus", str(path))
            return outputs(stack), [
                (e.time, e.resource_name, e.state) for e in w.stack_events("corpus")
            ]

    assert run() == run()


def test_user_parameters_naming_missing_entities_fail_clearly(world):
    # Properties are validated (custom constraints against the fake cloud) before any
    # resource is touched, as Heat does: the stack is refused, nothing is created.
    path = str(Path(__file__).parent / "templates" / "web_server_with_volume.yaml")
    before = world.cloud.inventory()
    with pytest.raises(exception.StackValidationFailed) as info:
        world.create_stack("bad", path, parameters={"image": "windows", "flavor": "m1.small"})
    assert "resources.server.properties.image" in str(info.value)
    assert "The Image (windows) could not be found." in str(info.value)
    assert world.store.get_stack("bad") is None
    assert world.cloud.inventory() == before
