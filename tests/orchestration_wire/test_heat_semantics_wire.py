"""Heat semantics heat-tempest-plugin's functional tests showed missing, each pinned in-process."""

from __future__ import annotations

from tests.orchestration_wire.test_stacks_wire import _wait

DATED = """heat_template_version: 2015-10-15
resources:
  a:
    type: OS::Heat::TestResource
    properties:
      value: a
outputs:
  out:
    description: Output of a
    value: {get_attr: [a, output]}
"""


def test_a_yaml_text_template_keeps_its_version_date_as_text(heat):
    heat.stacks.create(stack_name="dated", template=DATED)
    st = _wait(heat, "dated", "CREATE")
    assert st.stack_status == "CREATE_COMPLETE"
    assert heat.stacks.template("dated")["heat_template_version"] == "2015-10-15"
    out = heat.stacks.output_show("dated", "out")["output"]
    assert out == {"output_key": "out", "output_value": "a", "description": "Output of a"}
