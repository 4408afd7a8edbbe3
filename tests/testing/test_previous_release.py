"""Finding and unpacking a project's previous release (what the generated ``upgrade`` session runs)."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest

from sdk.exception import ConfigurationError
from sdk.testing.previous_release import (
    distribution_name,
    find_release,
    main,
    old_package,
)


def _project(root: Path, version: str = "one") -> Path:
    (root / "acme_disk").mkdir(parents=True)
    (root / "acme_disk" / "__init__.py").write_text("")
    (root / "acme_disk" / "resource.py").write_text(f"VERSION = {version!r}\n")
    (root / "pyproject.toml").write_text('[project]\nname = "acme-disk"\nversion = "0.1.0"\n')
    return root


def _wheel(project: Path, version: str, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    wheel = dest / f"acme_disk-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path in sorted((project / "acme_disk").glob("*.py")):
            archive.write(path, path.relative_to(project).as_posix())
        info = f"acme_disk-{version}.dist-info"
        archive.writestr(
            f"{info}/METADATA", f"Metadata-Version: 2.1\nName: acme-disk\nVersion: {version}\n"
        )
        archive.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        archive.writestr(f"{info}/RECORD", "")
    return wheel


def test_a_wheel_is_unpacked_and_labelled_with_its_version(tmp_path):
    wheel = _wheel(_project(tmp_path / "v1"), "0.1.0", tmp_path / "dist")
    release = find_release(str(wheel), tmp_path, "acme-disk", tmp_path / "scratch")
    assert release is not None and release.label == "acme_disk 0.1.0"
    assert release.against == str(wheel.resolve())
    assert (old_package(release, "acme_disk") / "resource.py").read_text() == "VERSION = 'one'\n"


def test_a_directory_is_used_where_it_is(tmp_path):
    old = _project(tmp_path / "v1")
    release = find_release(str(old), tmp_path, "acme-disk", tmp_path / "scratch")
    assert release is not None and release.root == old.resolve()
    assert old_package(release, "acme_disk") == old / "acme_disk"


def test_a_git_ref_is_archived_from_the_project(tmp_path):
    project = _project(tmp_path / "p")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(project)]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "v1"], ["tag", "v0.1.0"]):
        subprocess.run([*git, *args], check=True, capture_output=True, timeout=60)
    (project / "acme_disk" / "resource.py").write_text("VERSION = 'two'\n")
    release = find_release("v0.1.0", project, "acme-disk", tmp_path / "scratch")
    assert release is not None and release.label == "git v0.1.0" and release.against == "v0.1.0"
    assert (old_package(release, "acme_disk") / "resource.py").read_text() == "VERSION = 'one'\n"
    with pytest.raises(ConfigurationError, match=r"^v9: not a wheel, a directory or a git ref"):
        find_release("v9", project, "acme-disk", tmp_path / "scratch2")


def test_the_newest_wheel_on_the_index_is_the_last_release(tmp_path, monkeypatch):
    index = tmp_path / "index"
    _wheel(_project(tmp_path / "v1"), "0.1.0", index)
    _wheel(_project(tmp_path / "v2", "two"), "0.2.0", index)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(index))
    release = find_release(None, tmp_path, "acme-disk", tmp_path / "scratch")
    assert release is not None and release.label == "acme_disk 0.2.0"
    assert (old_package(release, "acme_disk") / "resource.py").read_text() == "VERSION = 'two'\n"


def test_no_release_on_the_index_is_none(tmp_path, monkeypatch):
    (tmp_path / "index").mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "index"))
    assert find_release(None, tmp_path, "acme-disk", tmp_path / "scratch") is None


def test_bad_input_is_one_line_naming_it(tmp_path, capsys, monkeypatch):
    with pytest.raises(ConfigurationError, match=r"pyproject.toml: no \[project\] name"):
        distribution_name(tmp_path)
    with pytest.raises(ConfigurationError, match=r"^missing.whl: no such wheel$"):
        find_release("missing.whl", tmp_path, "acme-disk", tmp_path / "scratch")
    release = find_release(str(_project(tmp_path / "v1")), tmp_path, "x", tmp_path / "s")
    assert release is not None
    with pytest.raises(ConfigurationError, match=r"holds no package 'other'"):
        old_package(release, "other")

    assert main([]) == 2
    assert capsys.readouterr().err.startswith("usage: python -m sdk.testing.previous_release")
    monkeypatch.chdir(tmp_path)
    assert main(["acme_disk"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"plugsim upgrade: {tmp_path / 'pyproject.toml'}: no [project] name")
    assert len(err.splitlines()) == 1
    monkeypatch.chdir(tmp_path / "v1")
    assert main(["acme_disk", "missing.whl"]) == 2
    assert capsys.readouterr().err == "plugsim upgrade: missing.whl: no such wheel\n"
    assert main(["acme-disk"]) == 2
    assert capsys.readouterr().err == "plugsim upgrade: 'acme-disk' is not a package name\n"
