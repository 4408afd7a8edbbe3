"""The policy tables name routes the wire serves, and their checks and conditions are known."""

from __future__ import annotations

from fake_clouds import FakeCloud
from fake_clouds.openstack.app import WireApp
from fake_clouds.openstack.policy_rules import TABLES

CHECKS = {"@", "admin", "member", "reader"}
PARAMETRISED = {"admin_or_user", "admin_or_project", "admin_or_domain", "own_account"}


def test_every_rule_names_a_served_route_with_a_known_check():
    app = WireApp(FakeCloud(seed=1))
    for prefix, rules in TABLES.items():
        api = app.apis[prefix]
        served = {(spec.method, spec.rule) for _fn, spec in api._handlers.values()}
        for rule in rules:
            assert (rule.method, rule.path) in served, (prefix, rule)
            kind, _, param = rule.check.partition(":")
            assert rule.check in CHECKS or (
                kind in PARAMETRISED and f"<{param}>" in rule.path or f"<path:{param}>" in rule.path
            ), rule
            if rule.when is not None:
                assert rule.when.split(":", 1)[0] in ("arg", "body", "param", "patch"), rule
