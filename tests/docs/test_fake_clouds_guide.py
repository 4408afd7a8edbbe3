"""The fake-clouds guide shows what the fake clouds do: its examples run here, in page order."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

from fake_clouds import load_profile

PAGE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "fake-clouds.rst"
_BLOCK = re.compile(r"^\.\. code-block:: (\w+)\n\n((?:(?:   .*)?\n)+)", re.M)


def _blocks(language: str) -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    out = []
    for lang, body in _BLOCK.findall(text):
        if lang == language:
            lines = [line[3:] for line in body.splitlines()]
            out.append("\n".join(lines).strip("\n") + "\n")
    return out


def test_the_page_has_examples_of_every_kind():
    assert len(_blocks("python")) >= 10
    assert len(_blocks("yaml")) == 1
    assert len(_blocks("toml")) == 1


def test_the_python_examples_run_in_order_and_their_assertions_hold():
    (boot_trouble,) = _blocks("yaml")
    namespace: dict[str, object] = {"BOOT_TROUBLE": boot_trouble, "__name__": "guide"}
    for index, block in enumerate(_blocks("python")):
        code = compile(block, f"{PAGE.name}[python block {index}]", "exec")
        exec(code, namespace)  # noqa: S102 - the page's own examples
    assert "QueueService" in namespace  # the backend example ran to the end


def test_the_yaml_profile_is_a_valid_fault_profile_with_a_name_and_two_rules():
    (boot_trouble,) = _blocks("yaml")
    profile = load_profile(boot_trouble)
    assert [rule.name for rule in profile.rules] == ["first-boot-fails", "second-boot-breaks"]
    assert yaml.safe_load(boot_trouble)["name"] == "boot trouble"


def test_the_entry_point_snippet_names_the_group_the_registry_reads():
    from fake_clouds import ENTRY_POINT_GROUP

    (snippet,) = _blocks("toml")
    data = tomllib.loads(snippet)
    assert data["project"]["entry-points"][ENTRY_POINT_GROUP] == {
        "queues": "acme_queues.backend:backend"
    }


def test_the_presets_table_lists_exactly_the_presets_there_are():
    from fake_clouds.core import FAULT_PRESETS

    text = PAGE.read_text(encoding="utf-8")
    table = text[text.index("Presets\n-------") : text.index("Determinism\n")]
    assert set(re.findall(r"^``(\w+)`` ", table, re.M)) == set(FAULT_PRESETS)


def test_every_effect_and_matcher_of_the_rule_schema_is_documented():
    from fake_clouds.core.faults import EFFECTS, RULE_KEYS

    text = PAGE.read_text(encoding="utf-8")
    for effect in EFFECTS:
        assert re.search(rf"^``{effect}`` +\S", text, re.M), effect
    for key in RULE_KEYS:
        if key != "effect":
            assert re.search(rf"^``{key}`` +\S", text, re.M), key
