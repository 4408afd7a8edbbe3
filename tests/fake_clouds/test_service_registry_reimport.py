"""A service module imported again (pytester restores ``sys.modules`` after an in-process run)
registers its class again: that is the same service, not a conflict; two modules still conflict."""

import pytest

from fake_clouds.core import registry
from fake_clouds.core.service import Service
from sdk import exception


def _service(module: str) -> type[Service]:
    return type("ReimportProbe", (Service,), {"name": "reimport-probe", "__module__": module})


@pytest.fixture
def clean_registry():
    yield
    registry._SERVICES.pop("reimport-probe", None)


def test_the_same_module_imported_again_replaces_its_service(clean_registry):
    first = registry.register_service(_service("tests.probe_module"))
    again = registry.register_service(_service("tests.probe_module"))
    assert again is not first
    assert registry.service_class("reimport-probe") is again


def test_another_module_registering_the_name_still_conflicts(clean_registry):
    registry.register_service(_service("tests.probe_module"))
    with pytest.raises(exception.ConfigurationError, match="registered by both"):
        registry.register_service(_service("tests.other_module"))
