"""Which stacks a listing shows: Heat's filters by tags, names, states; shared by the CLI and
the Orchestration API (``plugsim stack list --tags``, ``GET /stacks?tags=``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: ``--tag-mode`` of the openstack client -> the query parameter Heat's API takes
TAG_MODES = {"all": "tags", "any": "tags_any", "not": "not_tags", "not-any": "not_tags_any"}


def tag_filter(tags: Sequence[str], mode: str = "all") -> dict[str, list[str]]:
    """The filter for *tags* in one of :data:`TAG_MODES` (``all``: every tag present ...)."""
    if mode not in TAG_MODES:
        raise ValueError(f"tag mode must be one of {', '.join(TAG_MODES)}, not {mode!r}")
    return {TAG_MODES[mode]: [t for tag in tags for t in tag.split(",") if t]} if tags else {}


def matches(rec: Any, filters: Mapping[str, Iterable[str]]) -> bool:
    """Whether stack record *rec* passes Heat's list filters.

    ``name``, ``status``, ``action``, ``id`` (any of the values), and on the
    stack's tags: ``tags`` (all of them), ``tags_any``, ``not_tags`` (not all
    of them), ``not_tags_any`` (none of them).
    """
    values = {"name": rec.name, "status": rec.status, "action": rec.action, "id": rec.id}
    for key, value in values.items():
        wanted = list(filters.get(key) or [])
        if wanted and value not in wanted:
            return False
    tags = set(rec.doc.get("tags") or [])

    def listed(key: str) -> set[str]:
        return {t for v in filters.get(key) or [] for t in str(v).split(",") if t}

    if listed("tags") and not listed("tags") <= tags:
        return False
    if listed("tags_any") and not listed("tags_any") & tags:
        return False
    if listed("not_tags") and listed("not_tags") <= tags:
        return False
    return not (listed("not_tags_any") and listed("not_tags_any") & tags)


def select(
    world: Any,
    filters: Mapping[str, Iterable[str]] | None = None,
    *,
    nested: bool = False,
    deleted: bool = False,
) -> list[Any]:
    """The world's stack records passing *filters*, oldest first (nested ones too if asked)."""
    records = world.store.list_stacks(include_deleted=deleted, nested=nested)
    return [r for r in records if matches(r, filters or {})]
