"""``plugsim conformance PATH_OR_MODULE``: the suite on plug-ins found there, no test file."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sdk.testing.cli import conformance, conformance_classes, find_plugins
from sdk.testing.conformance import ResourceConformance
from sdk.testing.strategies import simplest_properties

HERE = Path(__file__).resolve().parent
MAPPING = """

def resource_mapping():
    return {"Sample::Server": SampleServer, "Sample::Zone": SampleZone}
"""


def plugin_dir(tmp_path):
    d = tmp_path / "plugins"
    d.mkdir()
    shutil.copy(HERE / "sample_plugins.py", d / "servers.py")
    with open(d / "servers.py", "a") as fh:
        fh.write(MAPPING)
    return d


def test_find_plugins_in_a_directory_and_build_classes(tmp_path):
    d = plugin_dir(tmp_path)
    assert sorted(find_plugins(str(d))) == ["Sample::Server", "Sample::Zone"]
    classes = conformance_classes(str(d), {"Sample::Server": {"image": "cirros"}})
    assert sorted(classes) == ["Test_Sample__Server", "Test_Sample__Zone"]
    server = classes["Test_Sample__Server"]
    assert issubclass(server, ResourceConformance)
    assert server.valid_properties == {"image": "cirros"}
    assert server.type_name() == "Sample::Server"


def test_simplest_properties_are_deterministic_and_valid():
    from sample_plugins import SampleZone

    first = simplest_properties(SampleZone)
    assert first == simplest_properties(SampleZone)
    assert first["domain"].endswith(".example")


def test_bad_targets_are_one_line_errors(tmp_path):
    runner = CliRunner()
    result = runner.invoke(conformance, [str(tmp_path / "nope.py")])
    assert result.exit_code == 1
    assert "nope.py: not a plug-in directory, a .py file or an importable module" in result.output
    result = runner.invoke(conformance, ["no_such_module_xyz"])
    assert result.exit_code == 1
    assert "no_such_module_xyz: cannot import module" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(conformance, [str(empty)])
    assert result.exit_code == 1
    assert "no resource plug-ins found" in result.output


def test_a_properties_file_naming_an_unknown_type_is_refused(tmp_path):
    d = plugin_dir(tmp_path)
    props = tmp_path / "props.yaml"
    props.write_text("Other::Type:\n  x: 1\n")
    result = CliRunner().invoke(conformance, [str(d), "--properties", str(props)])
    assert result.exit_code == 1
    assert "no plug-in of type Other::Type" in result.output


@pytest.mark.material
def test_the_command_runs_the_suite(tmp_path):
    d = plugin_dir(tmp_path)
    props = tmp_path / "props.yaml"
    props.write_text("Sample::Server:\n  image: cirros\n")
    report = tmp_path / "cov.json"
    code = (
        "import sys; from sdk.testing.cli import conformance; "
        "conformance(sys.argv[1:], prog_name='plugsim conformance')"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            str(d),
            "--properties",
            str(props),
            "-q",
            "--report",
            str(report),
            "-k",
            "(test_create or attributes) and not double and not follow",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "plugsim conformance: Sample::Server, Sample::Zone" in proc.stdout
    assert "8 passed" in proc.stdout
    assert "Sample::Server" in report.read_text()


@pytest.mark.material
def test_the_command_prints_no_warnings_that_are_not_the_users(tmp_path):
    """No assert-rewrite warning for hypothesis, no unknown pytest-asyncio option (issue 36)."""
    d = plugin_dir(tmp_path)
    props = tmp_path / "props.yaml"
    props.write_text("Sample::Server:\n  image: cirros\n")
    code = "import sys; from simulator.cli import main; sys.exit(main())"
    proc = subprocess.run(
        [sys.executable, "-c", code, "conformance", str(d), "--properties", str(props), "-q"]
        + ["-k", "test_create and not fails and not rollback and not retry"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "PytestAssertRewriteWarning" not in output
    assert "Unknown config option" not in output
    assert "warnings summary" not in output


def test_the_cli_does_not_import_hypothesis_before_it_is_needed():
    code = "import sys, simulator.cli.main; print('hypothesis' in sys.modules)"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert proc.stdout.strip() == "False"


THREE_TIER = HERE.parents[1] / "examples" / "three-tier"
SERVER_CREATE = (
    "Compute__Server and (test_create or status_attribute) and not fails and not rollback "
    "and not retry"
)


def _conformance(tmp_path, *args):
    code = (
        "import sys; from sdk.testing.cli import conformance; "
        "conformance(sys.argv[1:], prog_name='plugsim conformance')"
    )
    return subprocess.run(
        [sys.executable, "-c", code, str(THREE_TIER / "plugins"), "-q", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )


def test_a_cloud_refusing_made_up_properties_says_so_and_how_to_give_real_ones(tmp_path):
    """The README example's server needs a real network: the kit's made-up '' is refused by the
    cloud, and the verdict says which values the kit made up and which options take real ones."""
    proc = _conformance(tmp_path, "-k", SERVER_CREATE)
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "Network None could not be found" in out
    hint = next(line for line in out.splitlines() if "hint:" in line)
    assert "the cloud refused values the kit made up" in hint
    assert "network=''" in hint and "name='0'" in hint
    assert "--properties" in hint and "--companions" in hint
    # the two failures have one cause: the run's last line says so once
    shared = hint.split("hint:", 1)[1].strip()
    assert f"2 of the 2 failures have the same hint: {shared}" in out


def test_the_examples_conformance_files_give_the_server_its_network(tmp_path):
    files = THREE_TIER / "conformance"
    proc = _conformance(
        tmp_path,
        "--properties",
        str(files / "properties.yaml"),
        "--companions",
        str(files / "companions.yaml"),
        "--updates",
        str(files / "updates.yaml"),
        "-k",
        "Compute__Server and (test_create or test_update_in_place) and not fails "
        "and not rollback and not retry",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " failed" not in proc.stdout
