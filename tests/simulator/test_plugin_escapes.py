"""Plug-ins that hang, exit or raise what ``except Exception`` does not catch.

A handler that never returns is stopped by the wall-clock watchdog; a
``SystemExit``, ``KeyboardInterrupt`` or ``GeneratorExit`` from a plug-in, or
an exception that cannot be rendered, is a resource failure with a message;
no path leaves a resource IN_PROGRESS behind a FAILED stack.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import yaml

from simulator.world import World

PLUGIN = textwrap.dedent(
    """
    import time

    from sdk import properties
    from sdk.resource import Resource


    class Unprintable(Exception):
        def __str__(self):
            raise TypeError("no text for you")


    class Misbehaving(Resource):
        properties_schema = {"how": properties.Schema(properties.Schema.STRING, "how")}

        def handle_create(self):
            how = self.properties["how"]
            if how == "busy":
                while True:
                    pass
            if how == "sleep":
                time.sleep(1e9)
            if how == "swallow":
                while True:
                    try:
                        time.sleep(1e9)
                    except Exception:
                        pass
            if how == "exit":
                raise SystemExit(3)
            if how == "interrupt":
                raise KeyboardInterrupt
            if how == "genexit":
                raise GeneratorExit
            if how == "unprintable":
                raise Unprintable()
            self.resource_id_set("ok")


    class AsyncBusy(Resource):
        async def handle_create(self):
            while True:
                pass


    def resource_mapping():
        return {"Test::Misbehaving": Misbehaving, "Test::AsyncBusy": AsyncBusy}
    """
)


@pytest.fixture
def plugin_dir(tmp_path):
    d = tmp_path / "plugins"
    d.mkdir()
    (d / "misbehaving.py").write_text(PLUGIN)
    return d


def template(how, rtype="Test::Misbehaving"):
    props = {"how": how} if rtype == "Test::Misbehaving" else {}
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "bad": {"type": rtype, "properties": props},
            "good": {"type": "Plugsim::Test::Trivial", "properties": {"delay": 5}},
        },
    }


def assert_settled(stack):
    assert stack.state == "CREATE_FAILED"
    for res in stack.resources.values():
        assert res.status != "IN_PROGRESS", (res.name, res.state)
    assert stack.resources["bad"].state == ("CREATE", "FAILED")


@pytest.mark.parametrize("how", ["busy", "sleep", "swallow"])
def test_a_handler_that_never_returns_fails_the_action(plugin_dir, how):
    with World(plugin_dirs=[plugin_dir], handler_wall_limit=0.3) as world:
        started = time.monotonic()
        stack = world.create_stack("s", template(how))
        assert time.monotonic() - started < 20
        assert_settled(stack)
        reason = stack.resources["bad"].status_reason
        assert (
            "plug-in Test::Misbehaving (resource 'bad') did not return from handle_create "
            "within 0.3 s of wall time" in reason
        ), reason
        assert "did not return from handle_create" in stack.status_reason
        # the world is still usable afterwards
        again = world.create_stack("t", template("fine"))
        assert again.state == "CREATE_COMPLETE"


def test_an_async_handler_that_blocks_the_loop_is_stopped(plugin_dir):
    with World(plugin_dirs=[plugin_dir], handler_wall_limit=0.3) as world:
        stack = world.create_stack("s", template(None, "Test::AsyncBusy"))
        assert_settled(stack)
        assert "did not return from handle_create" in stack.resources["bad"].status_reason


@pytest.mark.parametrize(
    ("how", "words"),
    [
        ("exit", "SystemExit(3)"),
        ("interrupt", "KeyboardInterrupt"),
        ("genexit", "GeneratorExit"),
        ("unprintable", "Unprintable"),
    ],
)
def test_escaping_exceptions_are_resource_failures(plugin_dir, how, words):
    with World(plugin_dirs=[plugin_dir]) as world:
        stack = world.create_stack("s", template(how))
        assert_settled(stack)
        reason = stack.resources["bad"].status_reason
        assert words in reason and "handle_create" in reason, reason
        assert words in stack.status_reason


def test_the_limit_is_read_from_plugsim_yaml(plugin_dir, tmp_path):
    (tmp_path / "plugsim.yaml").write_text("plugin_dirs: [plugins]\nhandler_wall_limit: 0.2\n")
    tpl = tmp_path / "t.yaml"
    tpl.write_text(yaml.safe_dump(template("sleep")))
    with World() as world:
        stack = world.create_stack("s", str(tpl))
        assert "within 0.2 s of wall time" in stack.resources["bad"].status_reason


def test_a_bad_limit_in_plugsim_yaml_is_a_clear_error(tmp_path):
    (tmp_path / "plugsim.yaml").write_text("handler_wall_limit: soon\n")
    tpl = tmp_path / "t.yaml"
    tpl.write_text(yaml.safe_dump(template("fine", "Plugsim::Test::Trivial")))
    with World() as world, pytest.raises(Exception) as info:
        world.create_stack("s", str(tpl))
    assert "plugsim.yaml" in str(info.value) and "handler_wall_limit" in str(info.value)


def _cli(tmp_path, *args, **kwargs):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    plugsim = os.path.join(os.path.dirname(sys.executable), "plugsim")
    cmd = [plugsim, "--state", str(tmp_path / "w.db"), *args]
    return subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, **kwargs
    )


LIFECYCLE = textwrap.dedent(
    """
    from sdk.lifecycle_plugin import LifecyclePlugin


    class Quitter(LifecyclePlugin):
        def do_pre_op(self, cnxt, stack, current_stack=None, action=None):
            raise SystemExit(5)
    """
)


def test_cli_sleeping_handler_fails_with_the_message(plugin_dir, tmp_path):
    (tmp_path / "plugsim.yaml").write_text("plugin_dirs: [plugins]\nhandler_wall_limit: 0.3\n")
    tpl = tmp_path / "t.yaml"
    tpl.write_text(yaml.safe_dump(template("sleep")))
    proc = _cli(tmp_path, "--trust-project", "stack", "create", "-t", str(tpl), "s")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert "s CREATE_FAILED" in out and "did not return from handle_create" in out
    assert "Traceback" not in err


def test_lifecycle_plugin_raising_system_exit_is_not_silent(tmp_path):
    (tmp_path / "quitter.py").write_text(LIFECYCLE)
    tpl = tmp_path / "t.yaml"
    tpl.write_text(yaml.safe_dump(template("fine", "Plugsim::Test::Trivial")))
    proc = _cli(
        tmp_path,
        "stack",
        "--lifecycle-plugin",
        "quitter:Quitter",
        "create",
        "-t",
        str(tpl),
        "s",
    )
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, (out, err)
    assert "SystemExit(5)" in out + err
    assert "CREATE_FAILED" in out


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_cancels_the_running_action_and_commits(plugin_dir, tmp_path):
    tpl = tmp_path / "t.yaml"
    tpl.write_text(yaml.safe_dump(template("sleep")))
    proc = _cli(tmp_path, "--plugin-dir", str(plugin_dir), "stack", "create", "-t", str(tpl), "s")
    deadline = time.monotonic() + 30
    seen = ""
    while time.monotonic() < deadline:  # wait for the handler to be running
        line = proc.stderr.readline()
        seen += line
        if "bad CREATE_IN_PROGRESS" in line:
            break
    else:
        proc.kill()
        pytest.fail(f"handler never started: {seen}")
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err
    assert "interrupted" in err
    with World.open(str(tmp_path / "w.db")) as world:
        stack = world.get_stack("s")
        assert stack.state == "CREATE_FAILED"
        assert all(r.status != "IN_PROGRESS" for r in stack.resources.values())


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_during_an_update_rolls_it_back_like_stack_cancel(plugin_dir):
    import threading

    with World(plugin_dirs=[plugin_dir]) as world:
        world.create_stack("s", template("fine"))
        timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                world.update_stack("s", template("sleep"))  # how changes: replaced, sleeps
        finally:
            timer.cancel()
        stack = world.get_stack("s")
        assert stack.state == "ROLLBACK_COMPLETE", stack.status_reason
        assert all(r.status != "IN_PROGRESS" for r in stack.all_resources())
        assert stack.resources["bad"].properties["how"] == "fine"


def test_off_the_main_thread_the_engine_watchdog_stays_out(plugin_dir, monkeypatch):
    """A world run off the main thread is not watched by the engine (the test kit watches its
    own worker threads); a fine plug-in runs normally there."""
    import threading

    from simulator import watchdog

    box = {}
    watched = []
    monkeypatch.setattr(watchdog._SAMPLER, "watch", watched.append)

    def work():
        with World(plugin_dirs=[plugin_dir], handler_wall_limit=0.3) as world:
            box["state"] = world.create_stack("s", template("fine")).state

    worker = threading.Thread(target=work)
    worker.start()
    worker.join(60)
    assert box["state"] == "CREATE_COMPLETE"
    assert watched == []


def test_one_sampling_thread_watches_run_after_run(plugin_dir):
    """The watchdog's sampling thread is started once per process, not around every action."""
    import threading

    def samplers():
        return [t for t in threading.enumerate() if t.name == "plugsim-watchdog"]

    with World(plugin_dirs=[plugin_dir], handler_wall_limit=0.3) as world:
        world.create_stack("a", template("fine"))
        first = samplers()
        world.create_stack("b", template("fine"))
        world.delete_stack("a")
        assert samplers() == first and len(first) == 1


def test_a_stuck_handler_right_after_many_short_runs_is_still_stopped(plugin_dir):
    """The sampler is not woken at every run; one stuck just after a burst of runs is caught."""
    with World(plugin_dirs=[plugin_dir], handler_wall_limit=0.3) as world:
        for i in range(30):
            world.create_stack(f"quick{i}", template("fine"))
        started = time.monotonic()
        stack = world.create_stack("stuck", template("busy"))
        assert time.monotonic() - started < 20
        assert_settled(stack)
        assert "did not return from handle_create" in stack.resources["bad"].status_reason


def test_a_tool_s_own_base_exception_passes_through_unchanged():
    """Only SystemExit, KeyboardInterrupt and GeneratorExit become failures: hypothesis's StopTest
    or pytest's outcomes, raised through a plug-in call, must reach their owner."""
    from sdk import _escapes

    class ToolSignal(BaseException):
        pass

    assert _escapes.contain(ToolSignal(), object(), "handle_create") is None
    assert _escapes.contain(SystemExit(2), object(), "handle_create") is not None
