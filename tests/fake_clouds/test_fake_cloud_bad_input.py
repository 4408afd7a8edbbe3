"""Bad arguments to any operation give typed client errors, never a Python crash."""

from __future__ import annotations

import inspect

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_clouds import FakeCloud
from sdk import exception

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.sampled_from(["", "x", "cirros", "1", "m1.tiny", "10.0.0.0/24", "public", "ACTIVE"]),
    st.lists(st.integers(0, 3), max_size=2),
    st.floats(allow_nan=False, allow_infinity=False),
    st.dictionaries(
        st.sampled_from(["name", "id", "network_id", "cidr", "x"]),
        st.sampled_from(["a", "10.0.0.0/8", None]),
        max_size=2,
    ),
)


def _operations(cloud):
    out = []
    for name in cloud.service_names():
        svc = cloud.service(name)
        for attr in sorted(dir(type(svc))):
            fn = getattr(type(svc), attr)
            if hasattr(fn, "__fake_operation__"):
                out.append((svc, attr, inspect.signature(inspect.unwrap(fn))))
    return out


OPS = _operations(FakeCloud())


@pytest.mark.material
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_random_calls_only_raise_client_errors(data):
    cloud = FakeCloud(seed=1)
    for _ in range(6):
        svc_template, attr, sig = data.draw(st.sampled_from(OPS))
        method = getattr(cloud.service(svc_template.name), attr)
        params = [
            p
            for p in list(sig.parameters.values())[1:]
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY)
        ]
        n = data.draw(st.integers(0, len(params) + 1))
        args = [data.draw(values) for _ in range(n)]
        kwargs = data.draw(
            st.dictionaries(st.sampled_from(["name", "status", "x"]), values, max_size=1)
        )
        try:
            method(*args, **kwargs)
        except exception.ClientError:
            pass
    known = {"ok"} | {cls.__name__ for cls in _client_errors(exception.ClientError)}
    assert {t.outcome for t in cloud.trace()} <= known


def _client_errors(cls):
    return [cls, *(sub for child in cls.__subclasses__() for sub in _client_errors(child))]


@pytest.mark.parametrize(
    ("op", "args"),
    [
        ("undeploy", ([], None)),
        ("deploy", ("srv", [1], "CREATE", {})),
        ("deployment_status", ({}, "d")),
    ],
)
def test_deployment_calls_with_unhashable_ids_are_bad_requests(op, args):
    # found by the test above: a list as the server id crashed undeploy with a TypeError
    compute = FakeCloud(seed=1).service("compute")
    with pytest.raises(
        exception.BadRequest, match="A server id and a deployment id must be strings"
    ):
        getattr(compute, op)(*args)
