"""The kit's expectations that raised false alarms on Heat's own types (issue 30, item 4).

Each test is one expectation the kit had wrong, shown on a small stand-in:
no Heat needed.
"""

from __future__ import annotations

from typing import Any

import pytest

from sdk import exception
from sdk.constraints import CustomConstraint
from sdk.properties import Schema
from sdk.resource import Resource
from sdk.testing.conformance import _read_attribute
from sdk.testing.schema_conformance import _validate, pinned_schema


class _Group:
    """Reads as Heat's ResourceGroup does: ``attributes`` only with a path."""

    def __init__(self) -> None:
        self.reads: list[tuple[Any, ...]] = []

    def FnGetAtt(self, key: str, *path: Any) -> Any:  # noqa: N802 - Heat's name
        self.reads.append((key, *path))
        if key == "attributes" and not path:
            raise exception.InvalidTemplateAttribute(resource="group", key=key)
        if key == "attributes":
            return {"0": {"path": list(path)}}
        if key == "broken":
            raise exception.InvalidTemplateAttribute(resource="group", key="other")
        return ["m0"]


def test_an_attribute_refused_without_a_path_is_read_with_one() -> None:
    group = _Group()
    assert _read_attribute(group, "refs") == ["m0"]
    assert _read_attribute(group, "attributes") == {"0": {"path": ["show"]}}
    assert group.reads == [("refs",), ("attributes",), ("attributes", "show")]


def test_a_refusal_naming_another_attribute_still_fails() -> None:
    with pytest.raises(exception.InvalidTemplateAttribute, match="group other"):
        _read_attribute(_Group(), "broken")


class _Association(Resource):
    """Heat's QoSAssociation's schema: a required list of names only the cloud knows."""

    properties_schema = {
        "qos_specs": Schema(
            Schema.STRING, required=True, constraints=[CustomConstraint("cinder.volume")]
        ),
        "volume_types": Schema(
            Schema.LIST,
            required=True,
            schema=Schema(Schema.STRING, constraints=[CustomConstraint("cinder.snapshot")]),
        ),
    }


def test_a_required_list_of_references_is_pinned_to_placeholders() -> None:
    valid = {
        "qos_specs": {"get_resource": "specs"},
        "volume_types": [{"get_resource": "vtype"}, "gold"],
    }
    generated, pinned = pinned_schema(_Association, valid)
    assert generated == {}
    assert pinned == {"qos_specs": "conformance", "volume_types": ["conformance", "gold"]}
    _validate(_Association, pinned)  # a map would not be a valid String


class _Chain(Resource):
    """Heat's ResourceChain's schema: a list of member type names, changed in place."""

    properties_schema = {
        "resources": Schema(
            Schema.LIST, required=True, update_allowed=True, schema=Schema(Schema.STRING)
        ),
    }

    def handle_update(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any) -> None:
        """Changes in place."""


def test_a_list_of_names_is_changed_with_the_given_names_not_generated_ones() -> None:
    from sdk.testing.cli import derived_updates

    one = derived_updates(_Chain, {"resources": ["OS::Heat::None"]})["update_in_place"]
    assert one == {"resources": ["OS::Heat::None", "OS::Heat::None"]}
    two = derived_updates(_Chain, {"resources": ["A::B", "C::D"]})["update_in_place"]
    assert two == {"resources": ["A::B"]}


class _ChainWithoutItems(_Chain):
    """Heat's own ResourceChain gives its list no item schema at all."""

    properties_schema = {
        "resources": Schema(Schema.LIST, required=True, update_allowed=True),
    }


def test_a_list_without_an_item_schema_reuses_the_given_names_too() -> None:
    from sdk.testing.cli import derived_updates

    change = derived_updates(_ChainWithoutItems, {"resources": ["OS::Heat::None"]})
    assert change["update_in_place"] == {"resources": ["OS::Heat::None", "OS::Heat::None"]}


AFTER_A_COMPANION = """
from sample_plugins import SampleServer
from sdk.testing import ResourceConformance

class TestAfterCompanion(ResourceConformance):
    resource_class = SampleServer
    resource_type = None
    companion_types = {"Sample::First": SampleServer}
    companions = {"first": {"type": "Sample::First", "properties": {"image": "cirros"}}}
    # named after the companion's status: it starts only once the companion has booted
    valid_properties = {"image": "cirros", "name": {"get_attr": ["first", "status"]}}
"""


def test_the_timeout_reaches_a_resource_made_after_a_slow_companion(scratch):
    """A stack timeout of half the resource's own create time, counted from the stack's
    start, used to expire while the companion booted: the cancel handler never ran."""
    scratch.makepyfile(test_after=AFTER_A_COMPANION)
    scratch.runpytest("-k", "test_timeout_cancels_create").assert_outcomes(passed=1)


WITH_A_SIDE_OBJECT = """
from sample_plugins import SampleServer
from sdk.testing import ResourceConformance

class WithKeypair(SampleServer):
    '''Makes a keypair beside its server (as Heat's deployments make a derived config).'''

    def handle_create(self):
        pair = self.client().keypairs.create("side-" + self.physical_resource_name())
        self.data_set("pair", pair.name)
        return super().handle_create()

    def handle_delete(self):
        pair = self.data().get("pair")
        if pair:
            self.client().keypairs.delete(pair)
        return super().handle_delete()

class TestSide(ResourceConformance):
    resource_class = WithKeypair
    valid_properties = {"image": "cirros"}
"""


def test_retain_keeps_what_the_resource_made_beside_its_object(scratch):
    scratch.makepyfile(test_side=WITH_A_SIDE_OBJECT)
    selection = (
        "test_deletion_policy_retain or (test_create and not fails and not rollback and not retry)"
    )
    scratch.runpytest("-k", selection).assert_outcomes(passed=2)


QUOTA_LIKE = """
from sdk import constraints, properties
from sdk.resource import Resource
from sdk.testing import ResourceConformance

class CoresQuota(Resource):
    '''Sets a project's cores, as Heat's OS::Nova::Quota: no call of its ends in .create.'''

    default_client_name = "compute"
    properties_schema = {
        "image": properties.Schema(
            properties.Schema.STRING, "Looked up while validating.", required=True,
            constraints=[constraints.CustomConstraint("glance.image")],
        ),
    }

    def handle_create(self):
        self.client().quotas.update("admin", cores=30)
        self.resource_id_set("cores-admin")

    def handle_delete(self):
        if self.resource_id is not None:
            self.client().quotas.delete("admin")

class TestQuota(ResourceConformance):
    resource_class = CoresQuota
    valid_properties = {"image": "cirros"}
"""


def test_a_transient_fault_goes_to_the_first_write_not_to_a_validation_lookup(scratch):
    """The constraint's image lookup comes first; a 429 there refuses the template
    (under Heat too), so the fault goes to the quota update, which is retried."""
    scratch.makepyfile(test_quota=QUOTA_LIKE)
    result = scratch.runpytest("-k", "test_survives_throttling or test_survives_conflict")
    result.assert_outcomes(passed=2)


SHOW_WITH_MORE = """
from sample_plugins import SampleServer
from sdk.testing import ResourceConformance

class ShowsMore(SampleServer):
    '''Adds a key of its own to show (Heat's servers add os-collect-config's metadata).'''

    def _show_resource(self):
        shown = dict(super()._show_resource())
        shown["os-collect-config"] = {}
        return shown

class ShowsLess(SampleServer):
    '''Drops one of the cloud's keys from show: the kit still says so.'''

    def _show_resource(self):
        shown = dict(super()._show_resource())
        shown.pop("status", None)
        return shown

class TestMore(ResourceConformance):
    resource_class = ShowsMore
    valid_properties = {"image": "cirros"}

class TestLess(ResourceConformance):
    resource_class = ShowsLess
    valid_properties = {"image": "cirros"}
"""


def test_show_may_add_keys_but_must_agree_on_the_clouds(scratch):
    scratch.makepyfile(test_show=SHOW_WITH_MORE)
    result = scratch.runpytest("-k", "test_attributes and not follow")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*the show attribute differs from the fake cloud*"])
