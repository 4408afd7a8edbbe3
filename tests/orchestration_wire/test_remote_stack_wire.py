"""OS::Heat::Stack errors on the wire in Heat's words (heat-tempest-plugin's test_remote_stack):
no template path before them, and the remote Heat's answer as heatclient words it."""

from __future__ import annotations

import pytest

REMOTE = "heat_template_version: 2013-05-23\nresources:\n  r:\n    type: OS::Heat::RandomString\n"


def _root(region="RegionOne"):
    return {
        "heat_template_version": "2013-05-23",
        "resources": {
            "my_stack": {
                "type": "OS::Heat::Stack",
                "properties": {
                    "context": {"region_name": region},
                    "template": {"get_file": "remote_stack.yaml"},
                },
            }
        },
    }


def test_an_unknown_region_is_heats_message_without_a_path(heat):
    from heatclient import exc as heat_exc

    with pytest.raises(heat_exc.HTTPBadRequest) as info:
        heat.stacks.create(
            stack_name="r1", template=_root("DARKHOLE"), files={"remote_stack.yaml": REMOTE}
        )
    assert str(info.value) == (
        'ERROR: Cannot establish connection to Heat endpoint at region "DARKHOLE" due to '
        '"publicURL endpoint for orchestration service in DARKHOLE region not found"'
    )


def test_an_invalid_section_of_the_remote_template_is_the_remote_heats_answer(heat):
    from heatclient import exc as heat_exc

    bad = REMOTE.replace("resources", "resource")
    with pytest.raises(heat_exc.HTTPBadRequest) as info:
        heat.stacks.create(stack_name="r2", template=_root(), files={"remote_stack.yaml": bad})
    assert str(info.value) == (
        'ERROR: Failed validating stack template using Heat endpoint at region "RegionOne" '
        'due to "ERROR: The template section is invalid: resource"'
    )
