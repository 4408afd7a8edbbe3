"""Tests for simulator.dependencies.Graph: ordering, reverse order and cycles."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdk.exception import StackValidationFailed
from simulator.dependencies import Graph


def build(edges: dict[str, list[str]]) -> Graph:
    g = Graph()
    for name, reqs in edges.items():
        g.add(name, reqs)
    return g


def test_order_puts_requirements_first_and_ties_in_template_order():
    g = build({"web": ["db", "net"], "db": ["net"], "net": [], "cache": []})
    assert g.order() == ["net", "db", "web", "cache"]
    assert g.reverse_order() == ["cache", "web", "db", "net"]


def test_ties_follow_insertion_not_name_order():
    g = build({"z": [], "a": [], "m": []})
    assert g.order() == ["z", "a", "m"]


def test_roots_leaves_required_by():
    g = build({"a": [], "b": ["a"], "c": ["a"], "d": ["b", "c"]})
    assert g.roots() == ["a"]
    assert g.leaves() == ["d"]
    assert g.required_by("a") == ["b", "c"]
    assert g.requires("d") == ["b", "c"]
    assert g.to_dict() == {"a": [], "b": ["a"], "c": ["a"], "d": ["b", "c"]}


def test_unknown_requirement_becomes_a_node():
    g = build({"a": ["ghost"]})
    assert "ghost" in g
    assert g.order() == ["ghost", "a"]


def test_cycle_names_the_resources_on_it():
    g = build({"x": [], "a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]})
    assert g.cycle() == ["a", "b", "c", "a"]
    with pytest.raises(StackValidationFailed) as err:
        g.order()
    assert str(err.value) == "resources.a: Circular dependency found: a -> b -> c -> a"


def test_self_cycle():
    g = build({"a": ["a"]})
    assert g.cycle() == ["a", "a"]


def test_no_cycle():
    assert build({"a": [], "b": ["a"]}).cycle() is None


def test_check_acyclic_names_the_source_file():
    g = build({"a": ["b"], "b": ["a"]})
    with pytest.raises(StackValidationFailed, match=r"^t\.yaml: resources\.a: Circular"):
        g.check_acyclic(source="t.yaml")


def test_long_chain_is_iterative():
    g = Graph()
    n = 20000
    g.add("r0")
    for i in range(1, n):
        g.add(f"r{i}", [f"r{i - 1}"])
    assert g.order()[-1] == f"r{n - 1}"
    assert g.cycle() is None
    g.add("r0", [f"r{n - 1}"])
    assert len(g.cycle()) == n + 1


def test_copy_is_independent():
    g = build({"a": [], "b": ["a"]})
    h = g.copy()
    h.add("c", ["b"])
    assert "c" not in g
    assert h.order() == ["a", "b", "c"]


@given(st.lists(st.lists(st.integers(0, 30), max_size=4), min_size=1, max_size=30))
def test_order_respects_every_edge_of_a_dag(spec):
    g = Graph()
    for i, reqs in enumerate(spec):
        g.add(f"n{i}", [f"n{j}" for j in reqs if j < i])
    order = g.order()
    pos = {n: k for k, n in enumerate(order)}
    assert sorted(order) == sorted(g)
    for n in g:
        for r in g.requires(n):
            assert pos[r] < pos[n]
