"""Remove the files of the plug-in kinds that were not chosen.

The template holds one module and one test file per kind; cookiecutter
renders them all into the new project (the hook runs inside it) and this hook
keeps only the chosen kind's.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: Files of each kind, relative to the project; ``{package}`` is the package name.
KIND_FILES: dict[str, tuple[str, ...]] = {
    "resource": ("{package}/resource.py", "tests/test_resource.py"),
    "lifecycle": ("{package}/lifecycle.py", "tests/test_lifecycle.py"),
    "cloud_driver": ("{package}/driver.py", "tests/test_driver.py"),
    "fake_cloud_backend": ("{package}/backend.py", "tests/test_backend.py"),
}


def files_to_remove(kind: str, package: str) -> list[str]:
    """The project-relative paths of every kind but *kind*, sorted."""
    if kind not in KIND_FILES:
        raise ValueError(f"unknown plug-in kind {kind!r} (known: {', '.join(KIND_FILES)})")
    return sorted(
        path.format(package=package)
        for other, paths in KIND_FILES.items()
        if other != kind
        for path in paths
    )


def main(kind: str, package: str, root: Path) -> int:
    """Delete the other kinds' files under *root*; report any that are missing."""
    missing = []
    for relative in files_to_remove(kind, package):
        path = root / relative
        if path.is_file():
            path.unlink()
        else:
            missing.append(relative)
    for relative in missing:
        print(f"plugsim new: template file {relative} was not generated", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main("{{ cookiecutter.kind }}", "{{ cookiecutter.package_name }}", Path.cwd()))
