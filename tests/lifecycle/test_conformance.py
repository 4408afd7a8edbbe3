"""sdk.testing.lifecycle_conformance: passing and failing plug-ins."""

from __future__ import annotations

from pathlib import Path

import pytest

from sdk.lifecycle_plugin import LifecyclePlugin
from sdk.testing._conformance_support import ConformanceDeclarationError
from sdk.testing.lifecycle_conformance import LifecyclePluginConformance, signature_problems

from .conftest import Recorder


class Quiet(LifecyclePlugin):
    """Does nothing."""


class TestQuietConforms(LifecyclePluginConformance):
    plugin_class = Quiet


class TestRecorderConforms(LifecyclePluginConformance):
    plugin_factory = staticmethod(lambda: Recorder("r", []))


class RefusesTagged(LifecyclePlugin):
    def do_pre_op(self, context, stack, current_stack=None, action=None):
        if "closed" in stack.tags and action == "CREATE":
            raise RuntimeError("closed")


class TestVetoDeclared(LifecyclePluginConformance):
    plugin_class = RefusesTagged
    tags = ("closed",)
    vetoes = ("CREATE",)


def _examples():
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "lifecycle"))
    from lifecycle_examples.policies import ServerCountWarning
    from lifecycle_examples.racks import RackAffinity

    return RackAffinity, ServerCountWarning


RackAffinity, ServerCountWarning = _examples()


class TestRackAffinityConforms(LifecyclePluginConformance):
    plugin_class = RackAffinity


class TestServerCountWarningConforms(LifecyclePluginConformance):
    plugin_class = ServerCountWarning


# -- plug-ins the suite must reject ------------------------------------------------------


class Meddler(LifecyclePlugin):
    def do_pre_op(self, context, stack, current_stack=None, action=None):
        stack.resources["a"].properties["value"] = "changed"


class BadOrdinal(LifecyclePlugin):
    def get_ordinal(self):
        return 1.5


class BadSignature(LifecyclePlugin):
    def do_post_op(self, context, stack, action=None):
        return None


class RaisingUndo(LifecyclePlugin):
    def do_post_op(self, context, stack, current_stack=None, action=None, is_stack_failure=False):
        if is_stack_failure:
            raise RuntimeError("cannot undo")


def _suite(plugin):
    return type("Suite", (LifecyclePluginConformance,), {"plugin_class": plugin})()


def test_meddling_plugin_fails_the_life_check():
    with pytest.raises(AssertionError, match="resources.a.properties.value changed"):
        _suite(Meddler).test_life_passes_unchanged_or_is_vetoed_as_declared()


def test_float_ordinal_fails():
    with pytest.raises(AssertionError, match=r"get_ordinal\(\) returned 1.5"):
        _suite(BadOrdinal).test_get_ordinal_returns_an_int()


def test_wrong_signature_fails():
    with pytest.raises(AssertionError, match="do_post_op must take"):
        _suite(BadSignature).test_methods_take_the_engine_arguments()
    assert signature_problems(Quiet) == []


def test_raising_undo_fails_both_failure_checks():
    with pytest.raises(AssertionError, match="POST_OP_FAILED"):
        _suite(RaisingUndo).test_post_op_undoes_after_a_later_veto()
    with pytest.raises(AssertionError, match="POST_OP_FAILED"):
        _suite(RaisingUndo).test_post_op_copes_with_a_resource_failure()


def test_undeclared_veto_fails():
    with pytest.raises(AssertionError, match="CREATE ended CREATE_FAILED: closed"):
        type(
            "S", (LifecyclePluginConformance,), {"plugin_class": RefusesTagged, "tags": ("closed",)}
        )().test_life_passes_unchanged_or_is_vetoed_as_declared()


def test_declaration_errors():
    with pytest.raises(ConformanceDeclarationError, match="set plugin_class"):
        type("Nothing", (LifecyclePluginConformance,), {})
    with pytest.raises(ConformanceDeclarationError, match="vetoes names 'FLY'"):
        type("Odd", (LifecyclePluginConformance,), {"plugin_class": Quiet, "vetoes": ("FLY",)})
