"""neutron's bulk create (``{'security_group_rules': [...]}``), all or nothing (issue #30).

Heat's ``OS::Neutron::SecurityGroup`` creates its rules in one bulk call; neutron takes the
plural body and answers with the plural list, and deletes what it made when an item fails.
"""

from __future__ import annotations

import pytest

from sdk import exception


def _rule(sg: str, port: int, direction: str = "ingress") -> dict:
    return {
        "security_group_id": sg,
        "direction": direction,
        "protocol": "tcp",
        "port_range_min": port,
        "port_range_max": port,
    }


def test_bulk_create_makes_each_rule(neutron):
    sg = neutron.create_security_group({"security_group": {"name": "web"}})["security_group"]
    made = neutron.create_security_group_rule(
        {"security_group_rules": [_rule(sg["id"], 80), _rule(sg["id"], 443)]}
    )["security_group_rules"]
    assert [r["port_range_min"] for r in made] == [80, 443]
    listed = {r["id"] for r in neutron.list_security_group_rules()["security_group_rules"]}
    assert {r["id"] for r in made} <= listed


def test_bulk_create_is_all_or_nothing(neutron):
    sg = neutron.create_security_group({"security_group": {"name": "web"}})["security_group"]
    before = len(neutron.list_security_group_rules()["security_group_rules"])
    with pytest.raises(exception.BadRequest, match="'sideways' is not in"):
        neutron.create_security_group_rule(
            {"security_group_rules": [_rule(sg["id"], 80), _rule(sg["id"], 81, "sideways")]}
        )
    assert len(neutron.list_security_group_rules()["security_group_rules"]) == before
