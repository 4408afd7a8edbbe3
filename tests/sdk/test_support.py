"""Support status: the five statuses, validation and the previous_status chain."""

import pytest

from sdk import exception, support


def test_status_constants_equal_their_names():
    for name in ("UNKNOWN", "SUPPORTED", "DEPRECATED", "UNSUPPORTED", "HIDDEN"):
        assert getattr(support, name) == name
    assert support.SUPPORT_STATUSES == (
        "UNKNOWN",
        "SUPPORTED",
        "DEPRECATED",
        "UNSUPPORTED",
        "HIDDEN",
    )


def test_defaults_to_supported_without_version():
    status = support.SupportStatus()
    assert status.status == support.SUPPORTED
    assert status.version is None
    assert status.message is None
    assert status.previous_status is None
    assert status.substitute_class is None


def test_invalid_status_is_rejected_naming_it():
    with pytest.raises(exception.InvalidSchemaError) as info:
        support.SupportStatus("RETIRED")
    assert str(info.value) == (
        "Invalid support status 'RETIRED'; valid statuses are: "
        "UNKNOWN, SUPPORTED, DEPRECATED, UNSUPPORTED, HIDDEN"
    )


def test_previous_status_must_be_a_support_status():
    with pytest.raises(exception.InvalidSchemaError) as info:
        support.SupportStatus(support.DEPRECATED, previous_status="SUPPORTED")
    assert "previous_status must be a SupportStatus, got str 'SUPPORTED'" in str(info.value)


def test_version_must_be_a_string():
    with pytest.raises(exception.InvalidSchemaError, match="version must be a string"):
        support.SupportStatus(version=5.0)


def test_is_valid_status():
    assert support.is_valid_status("HIDDEN")
    assert not support.is_valid_status("hidden")
    assert not support.is_valid_status(None)
    assert not support.is_valid_status(["SUPPORTED"])


class _NewThing:
    pass


def test_to_dict_nests_previous_status_and_names_substitute():
    old = support.SupportStatus(version="1.0.0")
    new = support.SupportStatus(
        support.DEPRECATED,
        version="2.0.0",
        message="Use NewThing.",
        previous_status=old,
        substitute_class=_NewThing,
    )
    assert new.to_dict() == {
        "status": "DEPRECATED",
        "version": "2.0.0",
        "message": "Use NewThing.",
        "previous_status": {
            "status": "SUPPORTED",
            "version": "1.0.0",
            "message": None,
            "previous_status": None,
            "substitute_class": None,
        },
        "substitute_class": "test_support._NewThing",
    }


def test_chain_walks_newest_to_oldest():
    first = support.SupportStatus(version="1.0.0")
    second = support.SupportStatus(support.DEPRECATED, version="2.0.0", previous_status=first)
    third = support.SupportStatus(support.HIDDEN, version="3.0.0", previous_status=second)
    assert [s.version for s in third.chain()] == ["3.0.0", "2.0.0", "1.0.0"]
    assert [s.status for s in third.chain()] == ["HIDDEN", "DEPRECATED", "SUPPORTED"]
    assert first.chain() == [first]


def test_equality_compares_content():
    assert support.SupportStatus(version="1.0") == support.SupportStatus(version="1.0")
    assert support.SupportStatus(version="1.0") != support.SupportStatus(version="2.0")
    assert repr(support.SupportStatus(support.HIDDEN, version="1.0")) == (
        "SupportStatus('HIDDEN', version='1.0')"
    )
