"""The conformance suite catches broken plug-ins and bad declarations (through pytester)."""

import pytest

from sdk.testing.conformance import (
    ConformanceDeclarationError,
    ResourceConformance,
    conformance_test_names,
)

BASE = """
from sample_plugins import {cls}
from sdk.testing import ResourceConformance

class TestIt(ResourceConformance):
    resource_class = {cls}
    valid_properties = {{"image": "cirros"}}
"""


def test_a_plugin_that_leaks_on_delete_fails_the_create_test(scratch):
    scratch.makepyfile(test_leaky=BASE.format(cls="LeakyServer"))
    result = scratch.runpytest("-k", "test_create and not fails and not rollback and not double")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*VerdictFailure: leak: leaked fake-cloud entities: compute/server *"]
    )


def test_a_plugin_that_fails_on_a_missing_server_fails_delete_when_gone(scratch):
    scratch.makepyfile(test_strict=BASE.format(cls="StrictDeleteServer"))
    result = scratch.runpytest("-k", "already_gone")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*VerdictFailure: state: the stack is DELETE_FAILED, expected DELETE_COMPLETE: Resource DELETE failed: NotFound: *could not be found.*"
        ]
    )


def test_a_well_behaved_plugin_passes_the_same_selection(scratch):
    scratch.makepyfile(test_ok=BASE.format(cls="SampleServer"))
    scratch.runpytest(
        "-k", "already_gone or (test_create and not fails and not rollback and not double)"
    ).assert_outcomes(passed=2)


def test_a_missing_attribute_fails_collection_naming_it(scratch):
    scratch.makepyfile(
        test_bad="""
from sample_plugins import SampleServer
from sdk.testing import ResourceConformance

class TestBad(ResourceConformance):
    resource_class = SampleServer
"""
    )
    result = scratch.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*ConformanceDeclarationError*missing required attribute 'valid_properties'*"]
    )


def test_declaration_errors_name_the_attribute():
    with pytest.raises(ConformanceDeclarationError, match="'resource_class'.*or 'resource_type'"):
        type("TestNoPlugin", (ResourceConformance,), {"valid_properties": {}})
    with pytest.raises(ConformanceDeclarationError, match="'resource_class' must be a subclass"):
        type("TestWrong", (ResourceConformance,), {"resource_class": int, "valid_properties": {}})
    with pytest.raises(ConformanceDeclarationError, match="'update_in_place' must be a mapping"):
        from sample_plugins import SampleServer

        type(
            "TestWrong",
            (ResourceConformance,),
            {"resource_class": SampleServer, "valid_properties": {}, "update_in_place": [1]},
        )
    with pytest.raises(ConformanceDeclarationError, match="unknown fault kind 'gremlins'"):
        type(
            "TestWrong",
            (ResourceConformance,),
            {"resource_class": SampleServer, "valid_properties": {}, "survives": ["gremlins"]},
        )


def test_an_abstract_intermediate_class_is_not_checked():
    middle = type("Middle", (ResourceConformance,), {"conformance_abstract": True})
    assert middle.conformance_abstract is True


def test_every_lifecycle_path_has_a_test():
    names = conformance_test_names()
    for path in (
        "test_create",
        "test_create_fails_at_each_cloud_call",
        "test_create_with_rollback",
        "test_delete_when_already_gone",
        "test_delete_twice",
        "test_update_in_place",
        "test_update_replace",
        "test_immutable_change_fails",
        "test_update_failure_rolls_back",
        "test_suspend_resume",
        "test_snapshot_restore",
        "test_deletion_policy_snapshot",
        "test_deletion_policy_retain",
        "test_check",
        "test_abandon_adopt",
        "test_attributes",
        "test_timeout_cancels_create",
        "test_survives_throttling",
        "test_survives_conflict",
        "test_survives_eventual_consistency",
    ):
        assert path in names
