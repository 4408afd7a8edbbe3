"""Check the answers before cookiecutter writes anything.

Every message starts with the name of the answer it is about, so that
``plugsim new`` can check each answer as it is given.

:func:`validate` is plain Python so that ``plugsim new`` can call it before
cookiecutter runs; run as a hook, the file reads the answers cookiecutter
rendered into :data:`ANSWERS` and exits 1 with one line per problem.
"""

from __future__ import annotations

import json
import keyword
import re
import sys
from collections.abc import Mapping
from typing import Any

KINDS = ("resource", "lifecycle", "cloud_driver", "fake_cloud_backend")
SERVICES = ("entity", "compute", "block_storage", "network", "object_storage")
SUPPORT_STATUSES = ("UNSUPPORTED", "SUPPORTED", "DEPRECATED", "UNKNOWN")
LICENSES = ("Apache-2.0", "MIT", "BSD-3-Clause", "GPL-3.0-or-later")
#: Packages a plug-in may not shadow: plugsim's own and the test directory.
RESERVED_PACKAGES = frozenset({"sdk", "simulator", "fake_clouds", "tests", "test", "docs"})
#: Vendor::Service::Thing: three or more parts, each a letter then letters, digits or _.
TYPE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(::[A-Za-z][A-Za-z0-9_]*){2,}$")
PACKAGE_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
#: Longer names would push generated lines past the 100-column limit.
MAX_PACKAGE_LENGTH = 40

#: What cookiecutter rendered; only meaningful when this file runs as a hook.
ANSWERS = r"""{{ cookiecutter | tojson }}"""


def _is_true(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "y", "on")
    return bool(value)


def validate(answers: Mapping[str, Any]) -> list[str]:
    """Return one message per invalid answer (an empty list when all are fine)."""
    errors: list[str] = []
    kind = answers.get("kind")
    if kind not in KINDS:
        errors.append(f"kind {kind!r} is not one of: {', '.join(KINDS)}")
    package = str(answers.get("package_name", ""))
    if not package.isidentifier() or keyword.iskeyword(package):
        errors.append(
            f"package_name {package!r} is not a Python identifier: use lowercase letters, "
            "digits and underscores, not starting with a digit (e.g. 'acme_widgets')"
        )
    elif not PACKAGE_NAME.match(package):
        errors.append(
            f"package_name {package!r} must be lowercase (PEP 8 package names), "
            f"e.g. {package.lower()!r}"
        )
    elif len(package) > MAX_PACKAGE_LENGTH:
        errors.append(
            f"package_name {package!r} is {len(package)} characters long; "
            f"use at most {MAX_PACKAGE_LENGTH}"
        )
    elif package in RESERVED_PACKAGES:
        errors.append(
            f"package_name {package!r} is reserved (it would shadow "
            f"{'plugsim' if package in ('sdk', 'simulator', 'fake_clouds') else 'a project directory'}"
            "); choose another name"
        )
    type_name = str(answers.get("resource_type", ""))
    if kind == "resource":
        if not TYPE_NAME.match(type_name):
            errors.append(
                f"resource_type {type_name!r} is not of the form Vendor::Service::Thing "
                "(three or more parts joined by '::', each a letter followed by letters, "
                "digits or underscores)"
            )
        elif type_name.startswith("OS::"):
            errors.append(
                f"resource_type {type_name!r}: the OS:: namespace belongs to the bundled "
                "OpenStack types; use your vendor name as the first part"
            )
    service = answers.get("service")
    if service not in SERVICES:
        errors.append(f"service {service!r} is not one of: {', '.join(SERVICES)}")
    status = answers.get("support_status")
    if status not in SUPPORT_STATUSES:
        errors.append(f"support_status {status!r} is not one of: {', '.join(SUPPORT_STATUSES)}")
    licence = answers.get("license")
    if licence not in LICENSES:
        errors.append(f"license {licence!r} is not one of: {', '.join(LICENSES)}")
    for key in ("project_name", "author"):
        value = str(answers.get(key, ""))
        if not value.strip() or any(c in value for c in '"\\\n'):
            errors.append(f"{key} {value!r} must be non-empty, without quotes or backslashes")
    source = str(answers.get("plugsim_source", "plugsim"))
    if not source.strip() or any(c in source for c in '"\\\n`$'):
        errors.append(
            f"plugsim_source {source!r} must be pip arguments on one line, without double "
            "quotes, backslashes, backquotes or $ (e.g. 'plugsim' or '-e /path/to/plugsim')"
        )
    email = str(answers.get("email", ""))
    if not re.fullmatch(r"[^@\s\"\\]+@[^@\s\"\\]+", email):
        errors.append(f"email {email!r} is not an e-mail address")
    if (
        kind == "resource"
        and _is_true(answers.get("with_suspend_resume"))
        and service != ("compute")
    ):
        errors.append(
            f"with_suspend_resume needs service 'compute' (its servers can be suspended); "
            f"the {service} service has nothing to suspend"
        )
    return errors


def main() -> int:
    """Hook entry point: validate the rendered answers, report, exit 1 on problems."""
    errors = validate(json.loads(ANSWERS))
    for message in errors:
        print(f"plugsim new: {message}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
