"""Heat semantics heat-tempest-plugin's functional tests showed missing, each pinned in-process."""

from __future__ import annotations

import pytest

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


CHILD = """heat_template_version: 2016-10-14
parameters:
  size:
    type: number
    default: 3
    label: How many
    constraints:
      - range: {min: 1, max: 9}
        description: one digit
resources:
  r:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: size}
"""

PARENT = """heat_template_version: 2016-10-14
parameters:
  wanted:
    type: number
    description: needs a value, has none
  flavour:
    type: string
    default: plain
    hidden: true
parameter_groups:
- label: looks
  parameters: [flavour]
resources:
  pw:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: wanted}
  kid:
    type: child.yaml
    properties:
      size: 4
"""


def test_validate_answers_in_heats_shape_without_needing_every_value(heat):
    got = heat.stacks.validate(template=PARENT, files={"child.yaml": CHILD}, show_nested=True)
    assert got["Description"] == "No description"
    assert got["Parameters"] == {
        "wanted": {
            "Type": "Number",
            "Description": "needs a value, has none",
            "NoEcho": "false",
            "Label": "wanted",
        },
        "flavour": {
            "Type": "String",
            "Description": "",
            "NoEcho": "true",
            "Label": "flavour",
            "Default": "plain",
        },
    }
    assert got["ParameterGroups"] == [{"label": "looks", "parameters": ["flavour"]}]
    kid = got["NestedParameters"]["kid"]
    assert kid["Type"] == "child.yaml"
    assert kid["Parameters"]["size"] == {
        "Type": "Number",
        "Description": "",
        "NoEcho": "false",
        "Label": "How many",
        "Default": 3,
        "Value": 4,
        "MinValue": 1,
        "MaxValue": 9,
        "ConstraintDescription": "one digit",
    }
    assert got["Environment"] == {
        "parameters": {},
        "parameter_defaults": {},
        "event_sinks": [],
        "resource_registry": {"resources": {}, "child.yaml": "child.yaml"},
    }


def test_validate_shows_a_value_given_in_the_environment_and_refuses_a_bad_version(heat):
    import pytest
    from heatclient import exc as heat_exc

    got = heat.stacks.validate(template=CHILD, environment={"parameters": {"size": 5}})
    assert got["Parameters"]["size"]["Value"] == 5
    assert got["Environment"]["parameters"] == {"size": 5}
    assert "NestedParameters" not in got
    with pytest.raises(heat_exc.HTTPBadRequest) as info:
        heat.stacks.validate(template=CHILD.replace("2016-10-14", "invalid"))
    assert "The template version is invalid" in str(info.value)


def test_a_full_update_sets_or_clears_tags_and_a_patch_keeps_them(heat):
    heat.stacks.create(stack_name="tg", template=DATED, tags="foo,bar")
    assert _wait(heat, "tg", "CREATE").tags == ["foo", "bar"]
    heat.stacks.update("tg", template=DATED, tags="t1,t2")
    assert _wait(heat, "tg", "UPDATE").tags == ["t1", "t2"]
    heat.stacks.update("tg", existing=True, parameters={})
    assert _wait(heat, "tg", "UPDATE").tags == ["t1", "t2"]
    heat.stacks.update("tg", template=DATED)
    assert not _wait(heat, "tg", "UPDATE").tags


INNER = """heat_template_version: 2015-04-30
parameters:
  value: {type: string}
resources:
  deep:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: value}
"""

OUTER = """heat_template_version: 2015-04-30
parameters:
  given: {type: string}
resources:
  one:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: given}
  two:
    type: OS::Heat::TestResource
    properties:
      value: {get_attr: [one, output]}
  wrap:
    type: inner.yaml
    properties:
      value: fixed
"""


def test_preview_resolves_what_is_known_and_nests_template_resources(heat, session):
    project = session.get_project_id()
    got = heat.stacks.preview(
        stack_name="pv",
        template=OUTER,
        files={"inner.yaml": INNER},
        environment={"parameters": {"given": "abc"}},
    ).to_dict()
    assert got["parent"] is None
    assert got["parameters"]["given"] == "abc"
    assert got["parameters"]["OS::stack_id"] == "None"
    assert got["parameters"]["OS::stack_name"] == "pv"
    one, two, wrap = got["resources"]
    assert one["properties"]["value"] == "abc"
    assert one["properties"]["wait_secs"] == 0 and one["properties"]["fail"] is False
    assert two["properties"]["value"] is None  # another resource's attribute: not known yet
    assert one["required_by"] == ["two"]
    assert "output" in one["attributes"]
    assert one["physical_resource_id"] == "" and one["creation_time"] is None
    assert one["resource_identity"]["tenant"] == project
    [deep] = wrap
    assert deep["stack_name"] == "pv-wrap" and deep["parent_resource"] == "wrap"
    assert deep["properties"]["value"] == "fixed"


def test_cancel_without_rollback_leaves_the_update_failed(heat, world):
    import copy

    from tests.orchestration_wire.conftest import TEMPLATE

    heat.stacks.create(stack_name="cw", template=TEMPLATE, disable_rollback=False)
    _wait(heat, "cw", "CREATE")
    slow = copy.deepcopy(TEMPLATE)
    slow["resources"]["thing"]["properties"]["action_wait_secs"] = {"update": 600}
    slow["resources"]["thing"]["properties"]["value"] = "slow"
    heat.stacks.update("cw", template=slow, disable_rollback=False)
    heat.actions.cancel_without_rollback("cw")
    st = _wait(heat, "cw", "UPDATE")
    assert st.stack_status == "UPDATE_FAILED"
    assert "cancelled" in st.stack_status_reason.lower()
    for _ in range(5):  # no rollback follows
        assert heat.stacks.get("cw").stack_status == "UPDATE_FAILED"
    assert not [e for e in world.stack_events("cw") if e.state.startswith("ROLLBACK")]


def test_a_keypair_takes_a_public_key_file_ending_with_a_newline(heat):
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "key": {
                "type": "OS::Nova::KeyPair",
                "properties": {"name": "k1", "public_key": {"get_file": "k.pub"}},
            }
        },
    }
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFY6 me@here\n"
    heat.stacks.create(stack_name="kp", template=template, files={"k.pub": key})
    assert _wait(heat, "kp", "CREATE").stack_status == "CREATE_COMPLETE"


def test_an_output_error_of_a_nested_stack_names_the_resource_as_heat_does(heat):
    inner = {
        "heat_template_version": "2015-10-15",
        "outputs": {"bad": {"value": {"get_param": "foo"}}},
    }
    outer = {
        "heat_template_version": "2015-10-15",
        "resources": {"kid": {"type": "in.yaml"}},
        "outputs": {"b": {"value": {"get_attr": ["kid", "bad"]}}},
    }
    import json

    heat.stacks.create(stack_name="oe", template=outer, files={"in.yaml": json.dumps(inner)})
    [out] = _wait(heat, "oe", "CREATE").outputs
    assert out["output_value"] is None
    assert out["output_error"] == ("Error in kid output bad: The Parameter (foo) was not provided.")


def test_a_stack_with_a_hidden_tag_is_left_out_of_lists(heat):
    heat.stacks.create(stack_name="seen", template=DATED, tags="foo")
    heat.stacks.create(stack_name="hid", template=DATED, tags="foo,data-processing-cluster")
    assert [s.stack_name for s in heat.stacks.list()] == ["seen"]
    shown = sorted(s.stack_name for s in heat.stacks.list(show_hidden=True))
    assert shown == ["hid", "seen"]
    assert heat.stacks.get("hid").stack_name == "hid"  # still there by name


SUBNET = """heat_template_version: 2015-04-30
resources:
  net:
    type: OS::Neutron::Net
  subnet:
    type: OS::Neutron::Subnet
    properties:
      network: {get_resource: net}
      cidr: 11.11.11.0/24
      POOLS
outputs:
  pools:
    value: {get_attr: [subnet, allocation_pools]}
"""


def test_a_subnets_allocation_pools_change_in_place(heat):
    first = SUBNET.replace("POOLS", "allocation_pools: [{start: 11.11.11.10, end: 11.11.11.250}]")
    heat.stacks.create(stack_name="sn", template=first)
    st = _wait(heat, "sn", "CREATE")
    subnet = heat.resources.get("sn", "subnet").physical_resource_id
    assert st.outputs[0]["output_value"] == [{"start": "11.11.11.10", "end": "11.11.11.250"}]
    narrower = first.replace("11.11.11.250", "11.11.11.100")
    heat.stacks.update("sn", template=narrower)
    st = _wait(heat, "sn", "UPDATE")
    assert st.stack_status == "UPDATE_COMPLETE"
    assert st.outputs[0]["output_value"] == [{"start": "11.11.11.10", "end": "11.11.11.100"}]
    heat.stacks.update("sn", template=SUBNET.replace("POOLS", ""))
    st = _wait(heat, "sn", "UPDATE")
    assert st.stack_status == "UPDATE_COMPLETE"
    assert st.outputs[0]["output_value"] == []
    assert heat.resources.get("sn", "subnet").physical_resource_id == subnet  # never replaced


GROUP = """heat_template_version: 2015-04-30
resources:
  net:
    type: OS::Neutron::Net
  rg:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: member.yaml
        properties:
          network_id: {get_resource: net}
          label: m-%index%
"""

MEMBER = """heat_template_version: 2015-04-30
parameters:
  network_id:
    type: string
  label:
    type: string
resources:
  port:
    type: OS::Neutron::Port
    properties:
      network: {get_param: network_id}
      name: {get_param: label}
"""


def test_preview_shows_a_resource_groups_members_as_heat_does(heat):
    # heat-tempest-plugin's test_preview.test_res_group_with_nested_template
    got = heat.stacks.preview(
        stack_name="pg", template=GROUP, files={"member.yaml": MEMBER}
    ).to_dict()
    net, members = got["resources"]
    assert net["resource_name"] == "net"
    assert [len(m) for m in members] == [1, 1]  # two members, each a template of one port
    ports = [m[0] for m in members]
    assert [p["resource_name"] for p in ports] == ["port", "port"]
    assert [p["properties"]["name"] for p in ports] == ["m-0", "m-1"]


def test_an_undeclared_parameter_in_a_property_is_heats_property_error(heat):
    # heat-tempest-plugin's test_preview.test_basic_fail compares Heat's words
    from heatclient import exc as heat_exc

    broken = {
        "heat_template_version": "2015-04-30",
        "resources": {
            "two": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": {"get_param": "missing"}},
            }
        },
    }
    for call in (heat.stacks.preview, heat.stacks.create):
        with pytest.raises(heat_exc.HTTPBadRequest) as info:
            call(stack_name="bf", template=broken)
        assert (
            "Property error: : resources.two.properties.value: : "
            "The Parameter (missing) was not provided." in str(info.value)
        )
