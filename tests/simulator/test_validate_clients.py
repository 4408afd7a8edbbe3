"""``template validate`` checks custom constraints against the world's fake cloud."""

import pytest

from sdk import exception
from simulator.world import World

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "server": {
            "type": "OS::Nova::Server",
            "properties": {"image": "windows-3.1", "flavor": "m1.tiny"},
        }
    },
}


def test_a_missing_image_is_a_validation_error():
    world = World(seed=1)
    try:
        with pytest.raises(exception.StackValidationFailed) as info:
            world.validate_template(TEMPLATE)
        message = str(info.value)
        assert "resources.server.properties.image" in message
        assert "windows-3.1" in message
    finally:
        world.close()


def test_an_existing_image_validates():
    world = World(seed=1)
    try:
        template = {**TEMPLATE, "resources": {"server": {**TEMPLATE["resources"]["server"]}}}
        template["resources"]["server"]["properties"] = {"image": "cirros", "flavor": "m1.tiny"}
        world.validate_template(template)
    finally:
        world.close()
