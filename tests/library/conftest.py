"""Fixtures of the bundled resource library tests: a fresh in-memory world per test."""

import pytest

from simulator.world import World


def tmpl(resources, outputs=None, parameters=None):
    """Return a HOT template dict."""
    doc = {"heat_template_version": "2018-08-31", "resources": resources}
    if outputs:
        doc["outputs"] = outputs
    if parameters:
        doc["parameters"] = parameters
    return doc


def outputs(stack):
    """Return a stack's outputs as a dict."""
    return {o["output_key"]: o["output_value"] for o in stack.outputs()}


@pytest.fixture
def world():
    w = World()
    w.baseline = w.cloud.snapshot_inventory()
    yield w
    w.close()
