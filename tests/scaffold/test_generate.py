"""Generating every kind of plug-in project: the files, their contents, the answers' checks."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.scaffold import (
    ScaffoldError,
    find_template,
    generate,
    new,
    parse_answers,
    validate_answers,
)

from .conftest import KINDS

COMMON = {
    ".github/workflows/ci.yml",
    ".gitignore",
    "README.md",
    "docs/conf.py",
    "docs/index.rst",
    "noxfile.py",
    "pyproject.toml",
}
KIND_FILES = {
    "resource": {"{p}/resource.py", "tests/test_resource.py"},
    "lifecycle": {"{p}/lifecycle.py", "tests/test_lifecycle.py"},
    "cloud_driver": {"{p}/driver.py", "tests/test_driver.py"},
    "fake_cloud_backend": {"{p}/backend.py", "tests/test_backend.py"},
}
ENTRY_POINTS = {
    "resource": ("plugsim.resources", "acme_pkg.resource"),
    "lifecycle": ("plugsim.stack_lifecycle_plugins", "acme_pkg.lifecycle:AcmePkgPlugin"),
    "fake_cloud_backend": ("plugsim.fake_clouds", "acme_pkg.backend:backend"),
}


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_generates_its_files_and_only_its_files(tmp_path, kind):
    project = generate({"kind": kind, "package_name": "acme_pkg"}, output_dir=tmp_path)

    assert project == tmp_path / "acme_pkg"
    expected = (
        COMMON | {"acme_pkg/__init__.py"} | {f.format(p="acme_pkg") for f in KIND_FILES[kind]}
    )
    assert _files(project) == expected
    for path in project.rglob("*.py"):
        ast.parse(path.read_text(), str(path))  # every generated module is valid Python
        assert "{{" not in path.read_text() and "{%" not in path.read_text(), path


@pytest.mark.parametrize("kind", KINDS)
def test_pyproject_names_the_entry_point_and_plugsim_as_a_test_dependency(tmp_path, kind):
    project = generate({"kind": kind, "package_name": "acme_pkg"}, output_dir=tmp_path)
    data = tomllib.loads((project / "pyproject.toml").read_text())

    assert data["project"]["name"] == "acme-pkg"
    assert "plugsim" in data["project"]["optional-dependencies"]["test"]
    assert "ruff>=0.6" in data["project"]["optional-dependencies"]["test"]
    groups = data["project"].get("entry-points", {})
    if kind in ENTRY_POINTS:
        group, target = ENTRY_POINTS[kind]
        assert groups == {group: {"acme_pkg": target}}
    else:
        assert groups == {}  # drivers are loaded by path or import name
        assert data["project"]["dependencies"] == ["requests>=2.31"]


def test_the_resource_module_reflects_the_answers(tmp_path):
    project = generate(
        {
            "kind": "resource",
            "package_name": "acme_dns",
            "resource_type": "Acme::DNS::Zone",
            "service": "compute",
            "support_status": "DEPRECATED",
            "with_update": False,
            "with_suspend_resume": True,
            "with_snapshot": True,
        },
        output_dir=tmp_path,
    )
    source = (project / "acme_dns" / "resource.py").read_text()
    tree = ast.parse(source)
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    methods = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}

    assert cls.name == "Zone"
    assert {"handle_create", "check_create_complete", "check_delete_complete"} <= methods
    assert {"handle_suspend", "handle_resume", "handle_snapshot", "handle_restore"} <= methods
    assert "handle_update" not in methods
    assert 'default_client_name = "compute"' in source
    assert "support.SupportStatus(support.DEPRECATED" in source
    assert 'return {"Acme::DNS::Zone": Zone}' in source
    docs = (project / "docs" / "index.rst").read_text()
    assert ".. plugsim:resource:: Acme::DNS::Zone\n   :module: acme_dns.resource" in docs
    tests = (project / "tests" / "test_resource.py").read_text()
    assert "class TestZoneConformance(ResourceConformance):" in tests
    assert "update_in_place" not in tests
    assert 'cloud_states = {"suspend": "SUSPENDED", "resume": "ACTIVE"}' in tests


def test_the_readme_gives_its_two_commands(tmp_path):
    project = generate(
        {"package_name": "acme_pkg", "plugsim_source": "plugsim"}, output_dir=tmp_path
    )
    readme = (project / "README.md").read_text()
    assert (
        "```sh\npython -m pip install plugsim -e '.[test,docs]'\n"
        "python -m pytest && plugsim lint --inclusion acme_pkg\n```"
    ) in readme


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        (
            {"package_name": "my-plugin"},
            "package_name 'my-plugin' is not a Python identifier: use lowercase letters, "
            "digits and underscores, not starting with a digit (e.g. 'acme_widgets')",
        ),
        ({"package_name": "class"}, "package_name 'class' is not a Python identifier"),
        ({"package_name": "MyPlugin"}, "package_name 'MyPlugin' must be lowercase"),
        ({"package_name": "sdk"}, "package_name 'sdk' is reserved (it would shadow plugsim)"),
        (
            {"resource_type": "Widget"},
            "resource_type 'Widget' is not of the form Vendor::Service::Thing (three or more "
            "parts joined by '::', each a letter followed by letters, digits or underscores)",
        ),
        ({"resource_type": "Acme::9lives::Cat"}, "is not of the form Vendor::Service::Thing"),
        ({"resource_type": "OS::Acme::Thing"}, "the OS:: namespace belongs to the bundled"),
        (
            {"service": "network", "with_suspend_resume": True},
            "with_suspend_resume needs service 'compute' (its servers can be suspended); "
            "the network service has nothing to suspend",
        ),
        ({"email": "nobody"}, "email 'nobody' is not an e-mail address"),
        ({"author": 'Ann "the" Author'}, "author 'Ann \"the\" Author' must be non-empty"),
    ],
)
def test_invalid_answers_are_refused_before_anything_is_written(tmp_path, answers, message):
    with pytest.raises(ScaffoldError) as error:
        generate(answers, output_dir=tmp_path)
    assert message in str(error.value)
    assert list(tmp_path.iterdir()) == []


def test_the_hook_refuses_bad_answers_when_cookiecutter_runs_it(tmp_path, template, capfd):
    from cookiecutter.exceptions import FailedHookException
    from cookiecutter.main import cookiecutter

    with pytest.raises(FailedHookException):
        cookiecutter(
            str(template),
            no_input=True,
            extra_context={"resource_type": "Widget"},
            output_dir=str(tmp_path),
        )
    assert "plugsim new: resource_type 'Widget' is not of the form" in capfd.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_type_names_need_not_be_checked_for_other_kinds(tmp_path):
    project = generate(
        {"kind": "lifecycle", "package_name": "acme_audit", "resource_type": "-"},
        output_dir=tmp_path,
    )
    assert (project / "acme_audit" / "lifecycle.py").is_file()


@settings(max_examples=60, deadline=None)
@given(
    st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}(::[A-Za-z][A-Za-z0-9_]{0,8}){2,3}", fullmatch=True)
)
def test_every_well_formed_type_name_passes_the_check(type_name):
    answers = {"kind": "resource", "package_name": "acme", "resource_type": type_name}
    errors = _validate(answers)
    if type_name.startswith("OS::"):
        assert len(errors) == 1 and "OS:: namespace" in errors[0]
    else:
        assert errors == []


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=30).filter(lambda s: "::" not in s))
def test_a_type_name_without_parts_is_always_refused(type_name):
    errors = _validate({"kind": "resource", "package_name": "acme", "resource_type": type_name})
    assert any(e.startswith(f"resource_type {type_name!r}") for e in errors)


def _validate(answers):
    from simulator.scaffold import _hook, resolved_answers

    template = find_template()
    return _hook(template).validate(resolved_answers(template, answers))


def test_validate_answers_joins_every_problem(template):
    from simulator.scaffold import resolved_answers

    with pytest.raises(ScaffoldError) as error:
        validate_answers(template, resolved_answers(template, {"package_name": "1x", "email": "x"}))
    assert str(error.value) == (
        "package_name '1x' is not a Python identifier: use lowercase letters, digits and "
        "underscores, not starting with a digit (e.g. 'acme_widgets'); "
        "email 'x' is not an e-mail address"
    )


def test_parse_answers_converts_booleans_and_refuses_unknown_keys(template):
    assert parse_answers(["with_update=no", "service=network"], template) == {
        "with_update": False,
        "service": "network",
    }
    with pytest.raises(ScaffoldError) as error:
        parse_answers(["colour=red"], template)
    assert str(error.value).startswith("unknown answer 'colour' (keys: author, email, kind,")
    with pytest.raises(ScaffoldError, match="'service': expected key=value"):
        parse_answers(["service"], template)
    with pytest.raises(ScaffoldError, match="with_snapshot='maybe': expected yes or no"):
        parse_answers(["with_snapshot=maybe"], template)


def test_plugsim_new_generates_with_kind_and_answers(tmp_path):
    result = CliRunner().invoke(
        new,
        [
            "--kind",
            "fake_cloud_backend",
            "--no-input",
            "--output-dir",
            str(tmp_path),
            "package_name=acme_cloud",
            "service=network",
        ],
    )
    assert result.exit_code == 0, result.output
    project = tmp_path / "acme_cloud"
    assert result.output.splitlines()[:2] == [
        "package acme_cloud, distribution acme-cloud",
        f"created {project}",
    ]
    backend = (project / "acme_cloud" / "backend.py").read_text()
    assert 'FakeCloud(services=["network", AcmeCloudService], **kwargs)' in backend


def test_plugsim_new_reports_bad_answers_in_one_line(tmp_path):
    result = CliRunner().invoke(new, ["--no-input", "-o", str(tmp_path), "package_name=Bad-Name"])
    assert result.exit_code == 1
    assert result.output == (
        "Error: package_name 'Bad-Name' is not a Python identifier: use lowercase letters, "
        "digits and underscores, not starting with a digit (e.g. 'acme_widgets')\n"
    )


def test_plugsim_new_refuses_an_existing_project(tmp_path):
    args = ["--no-input", "-o", str(tmp_path), "package_name=acme_pkg"]
    assert CliRunner().invoke(new, args).exit_code == 0
    result = CliRunner().invoke(new, args)
    assert result.exit_code == 1
    assert "(pass --overwrite to write over it)" in result.output
    assert CliRunner().invoke(new, [*args, "--overwrite"]).exit_code == 0


def test_a_missing_template_says_how_to_pass_one(tmp_path, monkeypatch):
    result = CliRunner().invoke(new, ["--no-input", "--template", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: --template {tmp_path}: no cookiecutter.json there (not a plug-in template)\n"
    )
    monkeypatch.setattr("simulator.scaffold.__file__", str(tmp_path / "simulator" / "x.py"))
    with pytest.raises(ScaffoldError) as error:
        find_template()
    assert str(error.value) == (
        f"the plug-in template is not installed (looked for {tmp_path}/cookiecutter-plugin/"
        "cookiecutter.json); pass --template PATH with the cookiecutter-plugin/ directory of "
        "a plugsim checkout"
    )


def test_the_environment_variable_names_a_template(tmp_path, monkeypatch, template):
    monkeypatch.setenv("PLUGSIM_PLUGIN_TEMPLATE", str(template))
    assert find_template() == template
    monkeypatch.setenv("PLUGSIM_PLUGIN_TEMPLATE", str(tmp_path))
    with pytest.raises(ScaffoldError, match="PLUGSIM_PLUGIN_TEMPLATE .*: no cookiecutter.json"):
        find_template()


@pytest.mark.parametrize(
    ("project_name", "package", "distribution", "resource_type"),
    [
        ("Acme DNS", "acme_dns", "acme-dns", "Acme::DNS::Thing"),
        (
            "Café Ünïcode Drïver",
            "cafe_unicode_driver",
            "cafe-unicode-driver",
            "Cafe::UnicodeDriver::Thing",
        ),
        ("3par volumes", "volumes_3par", "volumes-3par", "Volumes::Volumes3par::Thing"),
        ("Example Widget Plug-in", "example_widget", "example-widget", "Example::Widget::Thing"),
    ],
)
def test_names_are_derived_from_the_project_name(
    project_name, package, distribution, resource_type
):
    from simulator.scaffold import derived_names

    names = derived_names(project_name)

    assert names == {
        "package_name": package,
        "project_slug": distribution,
        "resource_type": resource_type,
    }


def test_no_input_with_only_a_project_name_writes_the_derived_package(tmp_path):
    result = CliRunner().invoke(
        new, ["--kind", "resource", "--no-input", "-o", str(tmp_path), "project_name=Acme DNS"]
    )

    assert result.exit_code == 0, result.output
    assert "package acme_dns, distribution acme-dns, type Acme::DNS::Thing" in result.output
    project = tmp_path / "acme_dns"
    assert (project / "acme_dns" / "resource.py").is_file()
    assert "Acme::DNS::Thing" in (project / "acme_dns" / "resource.py").read_text()
    pyproject = tomllib.loads((project / "pyproject.toml").read_text())
    assert pyproject["project"]["name"] == "acme-dns"


def test_an_explicit_package_name_wins_over_the_derived_one(tmp_path):
    project = generate(
        {"kind": "resource", "project_name": "Acme DNS", "package_name": "zones"},
        output_dir=tmp_path,
    )

    assert project == tmp_path / "zones"


def test_the_package_prompt_offers_the_derived_name(tmp_path):
    answers = "\n".join(["Café Ünïcode Drïver", "", "", "", "", "", "", "", "", "", "", ""])
    result = CliRunner().invoke(
        new, ["--kind", "lifecycle", "-o", str(tmp_path)], input=answers + "\n"
    )

    assert "[cafe_unicode_driver]" in result.output
    assert (tmp_path / "cafe_unicode_driver").is_dir(), result.output


def test_generated_docs_name_one_lint_command(tmp_path):
    project = generate({"kind": "resource", "package_name": "acme_pkg"}, output_dir=tmp_path)

    for path in project.rglob("*"):
        if path.is_file() and path.suffix in {".md", ".rst", ".py", ".yml"}:
            assert "python -m sdk.lint" not in path.read_text(), path


@pytest.mark.material  # a pytest subprocess in the new project: about 7 s
def test_a_generated_projects_property_tests_compute_no_codec_table(tmp_path):
    """Their first run in the new project draws names without Hypothesis's UTF-8 codec table
    (seconds of CPU on first use in a directory): a loaded machine failed them with Hypothesis's
    "input generation is slow" health check."""
    import os
    import subprocess
    import sys

    project = generate(
        {"kind": "resource", "package_name": "acme_dns", "resource_type": "Acme::DNS::Zone"},
        output_dir=tmp_path,
    )
    store = tmp_path / "hypothesis"
    root = Path(__file__).resolve().parents[2]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(project), str(root)]),
        "HYPOTHESIS_STORAGE_DIRECTORY": str(store),
    }
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_resource.py"]
        + ["-k", "lowercase_name or other_names"],
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 passed" in run.stdout
    tables = sorted(p.name for p in store.rglob("*.json.gz"))
    assert not [t for t in tables if t.startswith("codec")], tables
