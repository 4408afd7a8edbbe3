"""How long a name may be, as nova's, cinder's and keystone's request schemas say.

Each service validates a request body against a JSON schema before any code
runs, and a name past the schema's ``maxLength`` is a ``400`` in the service's
own words (neutron's checks live with its attribute maps in
:mod:`fake_clouds.openstack.network`):

* nova and cinder (one validator, one message shape): ``Invalid input for
  field/attribute name. Value: <value>. '<value>' is too long``, in a
  ``badRequest`` body; server, keypair and flavor names in nova, volume,
  snapshot and backup names in cinder are at most 255 characters;
* keystone: ``Invalid input for field 'name': '<value>' is too long``, in its
  ``error`` body; project and domain names are at most 64 characters, user,
  group and role names at most 255.

The request body itself is bounded before this (:mod:`fake_clouds.openstack.wire_input`),
so the value a message quotes is too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fake_clouds.openstack.base import bad

#: nova's ``parameter_types.name`` and cinder's ``name_allow_zero_min_length``
SCHEMA_NAME_MAX = 255
#: keystone's schemas: ``_name_properties`` (projects, domains) and ``parameter_types.name``
KEYSTONE_NAME_MAX = {"domain": 64, "project": 64, "user": 255, "group": 255, "role": 255}


def check_name(spec: Mapping[str, Any], key: str = "name", limit: int = SCHEMA_NAME_MAX) -> None:
    """Refuse a nova or cinder body whose *key* is a string longer than *limit* (their 400)."""
    value = spec.get(key)
    if isinstance(value, str) and len(value) > limit:
        raise bad(f"Invalid input for field/attribute {key}. Value: {value}. {value!r} is too long")


def check_keystone_name(kind: str, attrs: Mapping[str, Any]) -> None:
    """Refuse a keystone body whose ``name`` is longer than its kind's schema allows (its 400)."""
    limit = KEYSTONE_NAME_MAX.get(kind)
    value = attrs.get("name")
    if limit is not None and isinstance(value, str) and len(value) > limit:
        raise bad(f"Invalid input for field 'name': {value!r} is too long")
