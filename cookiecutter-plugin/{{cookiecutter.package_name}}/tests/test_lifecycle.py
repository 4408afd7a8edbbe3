{%- set cls = cookiecutter.__camel_name ~ "Plugin" -%}
{#- the import list sorted as ruff's isort sorts (case-insensitively), wrapped past 100 columns -#}
{%- set names = [cls, "JournalEntry", "StackProtected"] | sort -%}
{%- set line = "from " ~ cookiecutter.package_name ~ ".lifecycle import " ~ names | join(", ") -%}
"""Tests of the lifecycle plug-in: journal, veto, entry point, a property of the journal."""

from __future__ import annotations

from importlib import metadata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sdk.lifecycle_plugin import DEFAULT_ORDINAL, LifecyclePlugin

{% if line | length <= 100 %}{{ line }}{% else %}from {{ cookiecutter.package_name }}.lifecycle import (
    {{ names | join(",\n    ") }},
){% endif %}

ACTIONS = ("CREATE", "UPDATE", "SUSPEND", "RESUME", "CHECK", "SNAPSHOT", "DELETE")


class Stack:
    """The little a lifecycle plug-in reads of a stack."""

    def __init__(self, name: str) -> None:
        self.name = name


def test_the_entry_point_names_the_plugin_class():
    group = metadata.entry_points(group="plugsim.stack_lifecycle_plugins")
    found = [ep for ep in group if ep.name == "{{ cookiecutter.package_name }}"]
    assert [ep.load() for ep in found] == [{{ cls }}]
    assert issubclass({{ cls }}, LifecyclePlugin)


def test_it_runs_before_plugins_with_the_default_ordinal():
    assert {{ cls }}().get_ordinal() == DEFAULT_ORDINAL - 10


def test_pre_and_post_are_journalled():
    plugin = {{ cls }}()
    stack = Stack("web")
    plugin.do_pre_op(None, stack, action="CREATE")
    plugin.do_post_op(None, stack, action="CREATE", is_stack_failure=True)
    assert plugin.journal == [
        JournalEntry("pre", "CREATE", "web"),
        JournalEntry("post", "CREATE", "web", failed=True),
    ]


def test_deleting_a_protected_stack_is_refused():
    plugin = {{ cls }}(protected=frozenset({"db"}))
    with pytest.raises(StackProtected) as error:
        plugin.do_pre_op(None, Stack("db"), action="DELETE")
    assert str(error.value) == "stack 'db' is protected; remove it from 'protected' first"
    plugin.do_pre_op(None, Stack("db"), action="UPDATE")
    plugin.do_pre_op(None, Stack("web"), action="DELETE")


@given(st.lists(st.tuples(st.sampled_from(ACTIONS), st.booleans()), max_size=20))
def test_the_journal_pairs_every_pre_with_its_post_in_order(runs):
    plugin = {{ cls }}()
    stack = Stack("web")
    for action, failed in runs:
        plugin.do_pre_op(None, stack, action=action)
        plugin.do_post_op(None, stack, action=action, is_stack_failure=failed)
    expected = []
    for action, failed in runs:
        expected += [
            JournalEntry("pre", action, "web"),
            JournalEntry("post", action, "web", failed),
        ]
    assert plugin.journal == expected
