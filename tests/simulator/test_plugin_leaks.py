"""A plug-in that leaves a thread running, or forks, does not keep the command line alive.

The CLI exits once its work is done and names the plug-in's leftover threads; a child
forked inside a handler stops when it comes back to the engine, so the result is printed
once and the world is committed by one process.
"""

import os
import subprocess
import sys
import textwrap
import threading

import pytest
import yaml

from sdk import _leaks

PLUGIN = textwrap.dedent(
    """
    import os
    import threading
    import time

    from sdk import properties
    from sdk.resource import Resource


    class Leaky(Resource):
        properties_schema = {"how": properties.Schema(properties.Schema.STRING, "how")}

        def handle_create(self):
            how = self.properties["how"]
            if how == "thread":
                threading.Thread(target=time.sleep, args=(1e9,), name="napper").start()
            if how == "short":
                worker = threading.Thread(target=time.sleep, args=(0.01,), name="short")
                worker.start()
                worker.join()
            if how == "fork":
                pid = os.fork()
                if pid:
                    os.waitpid(pid, 0)
            if how == "fork-exit":
                pid = os.fork()
                if pid == 0:
                    os._exit(0)
                os.waitpid(pid, 0)
            self.resource_id_set("ok")


    def resource_mapping():
        return {"Test::Leaky": Leaky}
    """
)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "leaky.py").write_text(PLUGIN)
    return tmp_path


def template(project, how):
    t = project / "t.yaml"
    t.write_text(
        yaml.safe_dump(
            {
                "heat_template_version": "2018-08-31",
                "resources": {"r": {"type": "Test::Leaky", "properties": {"how": how}}},
            }
        )
    )
    return t


def cli(project, *args):
    plugsim = os.path.join(os.path.dirname(sys.executable), "plugsim")
    cmd = [plugsim, "--state", str(project / "w.db"), "--plugin-dir", str(project / "plugins")]
    proc = subprocess.run(
        [*cmd, *args], capture_output=True, text=True, timeout=120, cwd=project, check=False
    )
    return proc


def test_a_leaked_thread_does_not_hang_the_cli_and_is_named(project):
    proc = cli(project, "stack", "create", "-t", str(template(project, "thread")), "s")
    assert proc.returncode == 0, proc.stderr
    assert "CREATE_COMPLETE" in proc.stdout
    lines = [line for line in proc.stderr.splitlines() if "not waiting" in line]
    assert len(lines) == 1
    line = lines[0]
    assert "plugsim: not waiting for 1 thread(s) a plug-in left running: napper" in line
    assert "target time.sleep" in line
    assert f"started at {project / 'plugins' / 'leaky.py'}:" in line
    assert "in Leaky.handle_create" in line
    # the world was committed before the exit
    listed = cli(project, "stack", "list")
    assert "CREATE_COMPLETE" in listed.stdout


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
def test_a_forked_child_does_not_run_a_second_engine(project):
    proc = cli(project, "stack", "create", "-t", str(template(project, "fork")), "s")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("CREATE_COMPLETE") == 1
    assert proc.stdout.count("s CREATE_COMPLETE") <= 1
    assert "plugsim: a process forked in plug-in Leaky.handle_create" in proc.stderr
    assert "returned to the engine; the child (pid " in proc.stderr
    assert proc.stderr.count("forked in plug-in") == 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
def test_a_child_that_ends_itself_is_not_reported(project):
    proc = cli(project, "stack", "create", "-t", str(template(project, "fork-exit")), "s")
    assert proc.returncode == 0, proc.stderr
    assert "forked" not in proc.stderr
    assert proc.stdout.count("CREATE_COMPLETE") == 1


def _handler():
    thread = threading.Thread(target=lambda: None, name="worker")
    thread.start()
    return thread


def test_a_thread_started_in_a_plug_in_call_is_labelled_with_its_origin():
    with _leaks.plugin_call(_handler):
        thread = _handler()
    thread.join()
    text = _leaks.describe_thread(thread)
    assert text.startswith("worker (target ") and "_handler.<locals>.<lambda>) " in text
    assert f"started at {__file__}:" in text
    assert f"in _handler ({__file__}:" in text
    own = threading.Thread(target=lambda: None, name="own")
    own.start()
    own.join()
    assert "started at" not in _leaks.describe_thread(own)


def test_the_cli_waits_for_nothing_when_no_thread_is_left(project):
    proc = cli(project, "stack", "create", "-t", str(template(project, "short")), "s")
    assert proc.returncode == 0, proc.stderr
    assert "not waiting" not in proc.stderr
