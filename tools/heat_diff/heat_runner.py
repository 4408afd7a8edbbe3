"""Run HOT templates through OpenStack Heat's real engine and print the results as JSON.

Run this with the python of a virtualenv where ``openstack-heat`` (and
``fixtures``/``testtools``, for Heat's unit-test helpers) is installed — never
inside plugsim's own environment::

    /tmp/heatvenv/bin/python tools/heat_diff/heat_runner.py < request.json

The request is ``{"cases": [case, ...]}``; a case is ``{"name", "steps"}``
where each step is ``{"op": "create"|"update"|"delete"|"suspend"|"resume",
"template": {...}, "parameters": {...}, "disable_rollback": bool}``. The
answer is ``{"heat_version", "results": [{"name", "steps": [...]}]}``: per
step the validation error (kind, message, path) or the stack state, the
outputs (value or error) and the (resource, action, status) events. A case
may also be ``{"name", "bench": {"templates": [v1, v2]}}`` for ``plugsim
bench --vs-heat``: wall seconds of create (v1), update (to v2) and delete.

Heat's engine runs in-process with an in-memory SQLite database, set up by
Heat's own unit-test base class; the legacy (non-convergence) engine is used.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
import warnings


def _setup_heat():
    """Prepare Heat's engine in-process the way its unit-test base class does.

    ``HeatTestCase.setUp`` itself needs the source tree's ``etc/`` directory,
    which the wheel does not ship, so its essential steps are taken here with
    Heat's own helpers: no scheduler sleeps, fake messaging, resource policy
    allowed, a fake keystone client, an in-memory SQLite database (``heat.tests.utils.setup_dummy_db``).
    """
    warnings.simplefilter("ignore")
    from unittest import mock

    from heat.common import messaging, policy
    from heat.engine import resources, scheduler
    from heat.engine.clients.os import keystone
    from heat.engine.clients.os.keystone import fake_keystoneclient
    from heat.tests import utils

    scheduler.ENABLE_SLEEP = False
    messaging.setup("fake://", optional=True)
    mock.patch.object(policy.ResourceEnforcer, "enforce").start()
    fake = mock.patch.object(keystone.KeystoneClientPlugin, "_create").start()
    fake.return_value = fake_keystoneclient.FakeKeystoneClient()
    resources.initialise()
    utils.setup_dummy_db()


def _engine_behind_rpc():
    """Answer the engine's RPC calls in-process, as Heat's unit tests do.

    Nested-stack types (``ResourceGroup`` ...) create their child stack over
    RPC; with fake messaging nobody answers. Each call is dispatched to an
    ``EngineService`` whose thread-group manager runs the work at once
    (Heat's own ``DummyThreadGroupManager``, which also writes the final
    state as the lock's release does), so a child stack is created,
    updated and deleted before the call returns.
    """
    from unittest import mock

    from heat.common import context
    from heat.engine import service
    from heat.rpc import client as rpc_client
    from heat.tests.engine import tools
    from oslo_config import cfg

    cfg.CONF.set_override("convergence_engine", False)  # the legacy engine, as the parent runs

    class AtOnce(tools.DummyThreadGroupManager):
        """Heat's test manager, which runs the work at once, also persisting the final state.

        Heat's legacy engine writes a stack's final state when the work's lock
        is released; the test manager takes no lock, so that write is made here.
        """

        def start_with_lock(self, cnxt, stack, engine_id, func, *args, **kwargs):
            thread = super().start_with_lock(cnxt, stack, engine_id, func, *args, **kwargs)
            stack.persist_state_and_release_lock(engine_id)
            return thread

        def start_with_acquired_lock(self, stack, lock, func, *args, **kwargs):
            thread = super().start_with_acquired_lock(stack, lock, func, *args, **kwargs)
            stack.persist_state_and_release_lock(lock.engine_id)
            return thread

        def stop_timers(self, stack_id):
            """No timers: every piece of work has run by the time its call returns."""

        def stop(self, stack_id, graceful=False):
            """Nothing runs in the background to stop."""

    engine = service.EngineService("plugsim-heat-diff", "engine")
    engine.thread_group_mgr = AtOnce()

    def dispatch(self, ctxt, msg, version=None, timeout=None):
        method, kwargs = msg
        # a message carries a copy of the context (its own database session), as over the wire
        return getattr(engine, method)(context.RequestContext.from_dict(ctxt.to_dict()), **kwargs)

    mock.patch.object(rpc_client.EngineClient, "call", dispatch).start()
    mock.patch.object(rpc_client.EngineClient, "cast", dispatch).start()


EVENTS: list[list[str]] = []


def _record_events():
    from heat.engine import resource

    original_resource = resource.Resource._add_event

    def resource_event(self, action, status, reason):
        EVENTS.append([self.name, action, status])
        return original_resource(self, action, status, reason)

    resource.Resource._add_event = resource_event


def _error(ex):
    path = getattr(ex, "path", None)
    if isinstance(path, (list, tuple)):
        path = [str(p) for p in path]
    elif path is not None:
        path = str(path)
    return {
        "kind": type(ex).__name__,
        "message": str(ex),
        "path": path,
        "error": getattr(ex, "error", None)
        if isinstance(getattr(ex, "error", None), str)
        else None,
    }


def _build(template, parameters, name, disable_rollback, files=None):
    from heat.engine import environment, stack
    from heat.engine import template as tmpl
    from heat.tests import utils

    ctx = utils.dummy_context()
    env = environment.Environment({"parameters": dict(parameters or {})})
    templ = tmpl.Template(template, files=files or {}, env=env)
    return stack.Stack(ctx, name, templ, disable_rollback=disable_rollback)


def _outputs(stk):
    stk._update_all_resource_data(for_resources=False, for_outputs=True)
    out = {}
    for key in sorted(stk.outputs):
        try:
            out[key] = {"value": stk.outputs[key].get_value()}
        except Exception as ex:  # an output's error is a result
            out[key] = {"error": _error(ex)}
    return out


def _json_safe(value):
    return json.loads(json.dumps(value, default=str))


def _reload(stk):
    """The stack loaded afresh, as each request to Heat's API loads it (``reload`` cases).

    Resource objects cache what they read of their nested stack (outputs); a
    case that runs several requests on one in-memory stack would see stale values.
    """
    from heat.engine import stack
    from heat.tests import utils

    # the legacy engine writes a stack's final state when its lock is released;
    # this runner drives the stack without one, so the state is written here
    stk._persist_state()
    return stack.Stack.load(utils.dummy_context(), stack_id=stk.id)


def _use_lifecycle_plugins(spec):
    """Make Heat's engine run the lifecycle plug-ins of *spec* (``{"source", "classes"}``: a
    module's text and the classes to instantiate); return the module (None: no plug-ins)."""
    import types

    from heat.common import lifecycle_plugin_utils

    if not spec:
        lifecycle_plugin_utils.pp_class_instances = []
        return None
    module = types.ModuleType("plugsim_diff_lifecycle")
    exec(compile(spec["source"], "plugsim_diff_lifecycle.py", "exec"), vars(module))  # noqa: S102
    instances = [getattr(module, name)() for name in spec["classes"]]
    lifecycle_plugin_utils.pp_class_instances = sorted(instances, key=lambda p: p.get_ordinal())
    return module


def run_case(case, index):
    """Run one case's steps; return its result."""
    steps_out = []
    stk = None
    lifecycle = _use_lifecycle_plugins(case.get("lifecycle"))
    name = case.get("stack_name", f"c{index}")
    for step in case["steps"]:
        EVENTS.clear()
        op = step["op"]
        result = {"op": op}
        if stk is not None and case.get("reload"):
            stk = _reload(stk)
        try:
            if op == "create":
                stk = _build(
                    step["template"],
                    step.get("parameters"),
                    name,
                    step.get("disable_rollback", True),
                    step.get("files"),
                )
                stk.validate()
                stk.store()
                stk.create()
            elif op == "update":
                new = _build(
                    step["template"],
                    step.get("parameters"),
                    name,
                    step.get("disable_rollback", True),
                    step.get("files"),
                )
                new.validate()
                stk.update(new)
            elif op in ("delete", "suspend", "resume"):
                getattr(stk, op)()
            else:
                raise ValueError(f"unknown op {op}")
        except Exception as ex:
            result["validation_error"] = _error(ex)
            steps_out.append(_json_safe(result))
            break
        result["state"] = [stk.action, stk.status]
        result["reason"] = stk.status_reason
        if op in ("create", "update") and stk.status == "COMPLETE":
            result["outputs"] = _outputs(_reload(stk) if case.get("reload") else stk)
        result["events"] = list(EVENTS)
        if lifecycle is not None:
            result["lifecycle_calls"] = list(lifecycle.CALLS)
            lifecycle.CALLS.clear()
        steps_out.append(_json_safe(result))
    _use_lifecycle_plugins(None)
    return {"name": case["name"], "steps": steps_out}


def run_bench(spec, index):
    """Create, update and delete a stack (``spec["templates"]``: v1, v2); return wall seconds."""
    first, second = spec["templates"]
    wall = {}
    states = {}
    t0 = time.perf_counter()
    stk = _build(first, {}, f"bench{index}", True)
    stk.validate()
    stk.store()
    stk.create()
    wall["create"] = time.perf_counter() - t0
    states["create"] = f"{stk.action}_{stk.status}"
    t0 = time.perf_counter()
    new = _build(second, {}, f"bench{index}", True)
    new.validate()
    stk.update(new)
    wall["update"] = time.perf_counter() - t0
    states["update"] = f"{stk.action}_{stk.status}"
    t0 = time.perf_counter()
    from heat.engine import stack as stack_mod  # as Heat's service does, per request

    stk = stack_mod.Stack.load(stk.context, stack_id=stk.id)
    stk.delete()
    wall["delete"] = time.perf_counter() - t0
    states["delete"] = f"{stk.action}_{stk.status}"
    return {"name": spec.get("name", f"bench{index}"), "wall": wall, "states": states}


def main():
    """Read the request on stdin, print the answer on stdout."""
    request = json.load(sys.stdin)
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # Heat's chatter must not reach the JSON answer
    try:
        with open(os.devnull, "w") as devnull, contextlib.redirect_stderr(devnull):
            _setup_heat()
            _engine_behind_rpc()
            _record_events()
            import heat.version

            results = []
            for index, case in enumerate(request["cases"]):
                if "bench" in case:
                    results.append(run_bench(case["bench"], index))
                else:
                    results.append(run_case(case, index))
            version = heat.version.version_info.version_string()
    finally:
        sys.stdout = real_stdout
    json.dump({"heat_version": version, "results": results}, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
