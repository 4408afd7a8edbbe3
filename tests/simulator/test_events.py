"""Events: canonical lines and timeline rendering."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulator.events import STACK_TYPE, Event, event_log, format_event, format_time


def test_event_log_is_canonical_json_lines():
    ev = Event(1, "sid", "web", "db", "T", "p-1", "CREATE", "COMPLETE", "state changed", 61.5)
    assert event_log([ev]) == (
        '{"action":"CREATE","id":1,"physical_resource_id":"p-1","reason":"state changed",'
        '"resource_name":"db","resource_type":"T","stack_id":"sid","stack_name":"web",'
        '"status":"COMPLETE","time":61.5}\n'
    )
    assert ev.state == "CREATE_COMPLETE"
    assert not ev.is_stack_event


def test_timeline_line():
    ev = Event(1, "sid", "web", "web", STACK_TYPE, "sid", "CREATE", "FAILED", "Timed out", 3725.25)
    assert ev.is_stack_event
    assert format_time(3725.25) == "01:02:05.250"
    assert format_event(ev) == "01:02:05.250  web CREATE_FAILED [sid]: Timed out"


def test_with_id_copies_every_field_and_leaves_the_original_alone():
    ev = Event(0, "s", "web", "a", "T", "p", "CREATE", "COMPLETE", "ok", 1.5)
    copy = ev.with_id(42)
    assert copy.id == 42 and ev.id == 0
    assert copy.to_dict() == {**ev.to_dict(), "id": 42}
    assert copy == Event(42, "s", "web", "a", "T", "p", "CREATE", "COMPLETE", "ok", 1.5)
    assert hash(copy) == hash(Event(42, "s", "web", "a", "T", "p", "CREATE", "COMPLETE", "ok", 1.5))
    with pytest.raises(AttributeError):
        copy.id = 7  # type: ignore[misc]


def test_to_dict_is_every_field_in_declaration_order_as_asdict_gave():
    import dataclasses

    ev = Event(7, "sid", "web", "db", "T", None, "DELETE", "FAILED", "gone", 2.0).with_id(9)
    assert ev.to_dict() == dataclasses.asdict(ev)
    assert list(ev.to_dict()) == [f.name for f in dataclasses.fields(Event)]


_VALUES = st.one_of(
    st.text(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=3),
)


@given(st.tuples(*[_VALUES] * 10))
def test_the_canonical_line_is_the_json_of_the_event_s_dict(values):
    import json

    ev = Event(*values)
    expected = json.dumps(ev.to_dict(), sort_keys=True, separators=(",", ":"))
    assert ev.to_line() == expected


def test_an_event_masks_the_secrets_this_process_knows_in_its_reason():
    from simulator.masking import BOOK, MASK

    BOOK.remember("hunter2-very-secret")
    try:
        ev = Event(
            1, "s", "web", "db", "T", None, "CREATE", "FAILED", "bad hunter2-very-secret", 1.0
        )
        assert ev.reason == f"bad {MASK}"
        assert Event(*[getattr(ev, f) for f in ev.to_dict()]) == ev
    finally:  # forget this one secret only (others this process saw stay)
        BOOK.secrets.discard("hunter2-very-secret")
        BOOK._order.remove("hunter2-very-secret")
        BOOK._pattern = None
