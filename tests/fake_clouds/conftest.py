"""Shared fixtures of the fake cloud tests."""

from __future__ import annotations

import pytest

from fake_clouds import FakeCloud


@pytest.fixture
def cloud() -> FakeCloud:
    """A fresh default world with seed 7 and no faults."""
    return FakeCloud(seed=7)


@pytest.fixture
def nova(cloud):
    """The compute client of ``cloud``."""
    return cloud.client("nova")


@pytest.fixture
def cinder(cloud):
    """The block storage client of ``cloud``."""
    return cloud.client("cinder")


@pytest.fixture
def neutron(cloud):
    """The network client of ``cloud``."""
    return cloud.client("neutron")
