"""Stacks on the Orchestration API: list, create, adopt, show, update, delete, actions.

Each route reads Heat's request, calls the world's stack verb
(:mod:`simulator.stack_api`) through the served engine, and answers in Heat's
shape (:mod:`.views`). An action answers as soon as it started: the stack is
``<ACTION>_IN_PROGRESS`` (or already done, when it needs no virtual time) and
goes on in virtual time while other requests are answered.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.openstack.base import ApiRequest, Reply, route
from sdk import exception
from simulator import stack_listing
from simulator.orchestration_wire import views
from simulator.orchestration_wire.errors import HeatError, not_found
from simulator.template.text import parse_text

_STACK = "/v1/<tenant>/stacks/<name>/<sid>"
#: Heat's ``hidden_stack_tags`` default: a stack tagged so is left out of lists
#: (``show_hidden=true`` shows it), as Sahara's clusters are
HIDDEN_TAGS = frozenset({"data-processing-cluster"})
_FILTER_KEYS = ("name", "status", "action", "id", "tags", "tags_any", "not_tags", "not_tags_any")
_SORT_KEYS = {
    "stack_name": "name",
    "name": "name",
    "stack_status": "status",
    "status": "status",
    "creation_time": "created",
    "created_at": "created",
    "updated_time": "updated",
    "updated_at": "updated",
}


def _flag(value: Any, default: bool = False) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true", "yes", "on", "y", "t")


def _document(value: Any, what: str) -> Any:
    """A template or environment given inline: a map, or YAML/JSON text of one."""

    if isinstance(value, str):
        try:  # timestamps stay text: ``heat_template_version: 2015-10-15`` is a string
            value = parse_text(value, None, what)
        except exception.PlugsimError as ex:
            raise HeatError(400, "StackValidationFailed", str(ex)) from None
    if value is None and what == "environment":
        return {}
    if not isinstance(value, dict):
        raise HeatError(400, "StackValidationFailed", f"The {what} must be a map.")
    return value


class StackBody:
    """The parts of a create or update body the stack verbs take."""

    def __init__(self, body: dict[str, Any], *, need_template: bool = True) -> None:

        if "template_url" in body and "template" not in body:
            raise HeatError(
                400,
                "NotSupported",
                "template_url is not supported by plugsim's Orchestration API: send the "
                "template itself (heatclient does when given a local file).",
            )
        self.template = (
            _document(body["template"], "template") if body.get("template") is not None else None
        )
        if need_template and self.template is None:
            raise HeatError(400, "HTTPBadRequest", "No template specified")
        files = body.get("files") or {}
        if not isinstance(files, dict):
            raise HeatError(400, "HTTPBadRequest", "files must be a map of names to contents")
        self.files = {str(k): v if isinstance(v, str) else str(v) for k, v in files.items()}
        envs = []
        for name in body.get("environment_files") or []:
            if name not in self.files:
                raise HeatError(400, "HTTPBadRequest", f"environment file {name} not in files")
            envs.append(_document(self.files[name], "environment"))
        self.environment_given = "environment" in body or bool(envs)
        if "environment" in body:
            envs.append(_document(body.get("environment"), "environment"))
        self.environments = envs
        params = body.get("parameters") or {}
        if not isinstance(params, dict):
            raise HeatError(400, "HTTPBadRequest", "parameters must be a map")
        self.parameters = dict(params)
        timeout = body.get("timeout_mins")
        if timeout is not None:
            try:
                timeout = float(timeout)
            except (TypeError, ValueError):
                raise HeatError(
                    400, "HTTPBadRequest", f"Invalid timeout value {timeout!r}"
                ) from None
        self.timeout_mins = timeout
        self.disable_rollback = (
            _flag(body["disable_rollback"], True) if "disable_rollback" in body else None
        )
        tags = body.get("tags")
        if isinstance(tags, str):
            tags = [t for t in tags.split(",") if t]
        self.tags = list(tags or [])
        #: the body names tags (``null`` included: a full update without tags clears them)
        self.tags_given = "tags" in body


class StackRoutes:
    """Mixin of :class:`~simulator.orchestration_wire.api.OrchestrationAPI`: stack routes."""

    world: Any
    engine: Any

    # --- list -----------------------------------------------------------------------

    @route("GET", "/v1/<tenant>/stacks")
    @route("GET", "/v1/<tenant>/stacks/detail")
    def list_stacks(self, req: ApiRequest, tenant: str) -> Reply:
        """``GET /stacks``: the project's stacks with Heat's filters, sort and paging."""
        api: Any = self
        api.check_tenant(req, tenant)
        args = req.args
        filters = {key: args.getlist(key) for key in _FILTER_KEYS}
        records = stack_listing.select(
            self.world,
            filters,
            nested=_flag(args.get("show_nested")),
            deleted=_flag(args.get("show_deleted")),
        )
        project = req.project_id
        records = [r for r in records if api.owner(r) == project]
        if not _flag(args.get("show_hidden")):  # Heat's hidden_stack_tags
            records = [r for r in records if not HIDDEN_TAGS & set(r.doc.get("tags") or ())]
        key = _SORT_KEYS.get(args.get("sort_keys") or "", "created")
        reverse = (args.get("sort_dir") or "desc").lower() == "desc"
        records.sort(key=lambda r: (_sort_value(r, key), r.seq), reverse=reverse)
        if _flag(args.get("with_count")):
            count = len(records)
        marker = args.get("marker")
        if marker:
            ids = [r.id for r in records]
            if marker not in ids:
                raise not_found("Stack", marker)
            records = records[ids.index(marker) + 1 :]
        limit = args.get("limit")
        if limit:
            records = records[: max(0, int(limit))]
        endpoint = api.endpoint(tenant)
        body: dict[str, Any] = {
            "stacks": [views.stack_summary(r, endpoint, project) for r in records]
        }
        if _flag(args.get("with_count")):
            body["count"] = count
        return Reply(200, body)

    # --- create / adopt / preview ---------------------------------------------------------

    @route("POST", "/v1/<tenant>/stacks")
    def create_stack(self, req: ApiRequest, tenant: str) -> Reply:
        """``POST /stacks``: create (or, with ``adopt_stack_data``, adopt) a stack."""

        api: Any = self
        api.check_tenant(req, tenant)
        body = req.json()
        name = body.get("stack_name")
        if not isinstance(name, str) or not name:
            raise HeatError(400, "HTTPBadRequest", "No stack name specified")
        world, project = self.world, req.project_id
        adopt = body.get("adopt_stack_data")
        if adopt is not None:
            data = _document(adopt, "adopt_stack_data")
            parsed = StackBody(body, need_template=False)
            self.engine.start(
                lambda: world.aadopt_stack(
                    name,
                    data,
                    parsed.environments,
                    parsed.parameters,
                    timeout_mins=parsed.timeout_mins,
                    disable_rollback=_default(parsed.disable_rollback, True),
                    project_id=project,
                ),
                action="ADOPT",
            )
        else:
            parsed = StackBody(body)
            self.engine.start(
                lambda: world.acreate_stack(
                    name,
                    parsed.template,
                    parsed.environments,
                    parsed.parameters,
                    files=parsed.files,
                    timeout_mins=parsed.timeout_mins,
                    disable_rollback=_default(parsed.disable_rollback, True),
                    tags=parsed.tags,
                    project_id=project,
                ),
                action="CREATE",
            )
        rec = world.store.get_stack(name)
        link = api.endpoint(tenant) + views.stack_path(rec.name, rec.id)
        body = {"stack": {"id": rec.id, "links": [{"href": link, "rel": "self"}]}}
        return Reply(201, body, {"Location": link})

    @route("POST", "/v1/<tenant>/stacks/preview")
    def preview_stack(self, req: ApiRequest, tenant: str) -> Reply:
        """``POST /stacks/preview``: what a create would make (validated; nothing stored)."""
        api: Any = self
        api.check_tenant(req, tenant)
        body = req.json()
        name = body.get("stack_name")
        if not isinstance(name, str) or not name:
            raise HeatError(400, "HTTPBadRequest", "No stack name specified")
        parsed = StackBody(body)
        doc = self.world.preview_stack(
            name,
            parsed.template,
            parsed.environments,
            parsed.parameters,
            files=parsed.files,
            timeout_mins=parsed.timeout_mins,
            disable_rollback=_default(parsed.disable_rollback, True),
            project_id=req.project_id,
        )
        return Reply(200, {"stack": doc})

    @route("PUT", _STACK + "/preview")
    @route("PATCH", _STACK + "/preview")
    def preview_update(self, req: ApiRequest, tenant: str, name: str, sid: str) -> Reply:
        """``PUT``/``PATCH .../preview``: each resource's fate in the update (nothing changes)."""
        api: Any = self
        stack = api.stack(req, tenant, name, sid)
        patch = req.method == "PATCH"
        parsed = StackBody(req.json(), need_template=not patch)
        args = _update_args(stack, parsed, patch)
        changes = self.world.preview_update_stack(
            stack.id,
            args["template"],
            args.get("environment"),
            args["parameters"],
            files=args.get("files"),
        )
        return Reply(200, {"resource_changes": changes})

    # --- show / update / delete --------------------------------------------------------------

    @route("GET", _STACK)
    def show_stack(self, req: ApiRequest, tenant: str, name: str, sid: str) -> Reply:
        """``GET /stacks/{name}/{id}``: the stack with parameters and outputs."""
        api: Any = self
        stack = api.stack(req, tenant, name, sid, deleted_ok=True)
        outputs = _flag(req.args.get("resolve_outputs"), True)
        doc = views.stack_detail(stack, api.endpoint(tenant), req.project_id, outputs=outputs)
        return Reply(200, {"stack": doc})

    @route("PUT", _STACK)
    @route("PATCH", _STACK)
    def update_stack(self, req: ApiRequest, tenant: str, name: str, sid: str) -> Reply:
        """``PUT`` (new template) or ``PATCH`` (``existing``: keep what is not given)."""
        api: Any = self
        stack = api.stack(req, tenant, name, sid)
        patch = req.method == "PATCH"
        parsed = StackBody(req.json(), need_template=not patch)
        self.engine.start(
            lambda: self.world.aupdate_stack(stack.id, **_update_args(stack, parsed, patch)),
            action="UPDATE",
            stack_id=stack.id,
        )
        return Reply(202, None)

    @route("DELETE", _STACK)
    def delete_stack(self, req: ApiRequest, tenant: str, name: str, sid: str) -> Reply:
        """``DELETE /stacks/{name}/{id}``: 204, the delete goes on in virtual time."""
        api: Any = self
        stack = api.stack(req, tenant, name, sid)
        self.engine.start(
            lambda: self.world.adelete_stack(stack.id), action="DELETE", stack_id=stack.id
        )
        return Reply(204, None)

    # --- abandon / export -----------------------------------------------------------------

    @route("DELETE", _STACK + "/abandon")
    def abandon_stack(self, req: ApiRequest, tenant: str, name: str, sid: str) -> Reply:
        """``DELETE .../abandon``: forget the stack, keep its resources; the abandon data."""
        api: Any = self
        stack = api.stack(req, tenant, name, sid)
        return Reply(200, self.world.abandon_stack(stack.id))

    @route("GET", _STACK + "/export")
    def export_stack(self, req: ApiRequest, tenant: str, name: str, sid: str) -> Reply:
        """``GET .../export``: the abandon data of a stack that stays."""
        api: Any = self
        stack = api.stack(req, tenant, name, sid)
        return Reply(200, self.world.export_stack(stack.id))

    # --- actions ------------------------------------------------------------------------

    @route("POST", _STACK + "/actions")
    def stack_action(self, req: ApiRequest, tenant: str, name: str, sid: str) -> Reply:
        """``POST .../actions``: suspend, resume, check, cancel_update."""

        api: Any = self
        stack = api.stack(req, tenant, name, sid)
        body = req.json()
        if len(body) != 1:
            raise HeatError(400, "HTTPBadRequest", "Multiple actions specified")
        verb = next(iter(body))
        world = self.world
        verbs = {
            "suspend": world.asuspend_stack,
            "resume": world.aresume_stack,
            "check": world.acheck_stack,
        }
        if verb in verbs:
            run = verbs[verb]
            self.engine.start(lambda: run(stack.id), action=verb.upper(), stack_id=stack.id)
        elif verb in ("cancel_update", "cancel_without_rollback"):
            world.cancel_update(stack.id, rollback=verb == "cancel_update")
        else:
            raise HeatError(400, "HTTPBadRequest", f"Invalid action {verb}")
        return Reply(200, None)

    # --- outputs, template, environment, files --------------------------------------------

    @route("GET", _STACK + "/outputs")
    def list_outputs(self, req: ApiRequest, tenant: str, name: str, sid: str) -> Reply:
        """``GET .../outputs``: keys and descriptions."""
        api: Any = self
        stack = api.stack(req, tenant, name, sid)
        rows = [
            {"output_key": o["output_key"], "description": views.output_view(o)["description"]}
            for o in stack.outputs()
        ]
        return Reply(200, {"outputs": rows})

    @route("GET", _STACK + "/outputs/<key>")
    def show_output(self, req: ApiRequest, tenant: str, name: str, sid: str, key: str) -> Reply:
        """``GET .../outputs/{key}``: one output, resolved now."""

        api: Any = self
        stack = api.stack(req, tenant, name, sid)
        for out in stack.outputs():
            if out["output_key"] == key:
                return Reply(200, {"output": views.output_view(out)})
        raise not_found("Output", key)

    @route("GET", _STACK + "/template")
    def show_template(self, req: ApiRequest, tenant: str, name: str, sid: str) -> Reply:
        """``GET .../template``: the stack's template as given."""
        api: Any = self
        return Reply(200, api.stack(req, tenant, name, sid, deleted_ok=True).source.template)

    @route("GET", _STACK + "/environment")
    def show_environment(self, req: ApiRequest, tenant: str, name: str, sid: str) -> Reply:
        """``GET .../environment``: the merged environment."""
        api: Any = self
        stack = api.stack(req, tenant, name, sid)
        env = stack.source.merged_environment()
        for key in (
            "parameters",
            "parameter_defaults",
            "resource_registry",
            "event_sinks",
            "encrypted_param_names",
        ):
            env.setdefault(key, [] if key in ("event_sinks", "encrypted_param_names") else {})
        env["parameters"] = {**env.get("parameters", {}), **stack.source.parameters}
        return Reply(200, env)

    @route("GET", _STACK + "/files")
    def show_files(self, req: ApiRequest, tenant: str, name: str, sid: str) -> Reply:
        """``GET .../files``: the files given with the stack."""
        api: Any = self
        return Reply(200, dict(api.stack(req, tenant, name, sid).source.files))


def _default(value: bool | None, default: bool) -> bool:
    return default if value is None else value


def _update_args(stack: Any, parsed: StackBody, patch: bool) -> dict[str, Any]:
    current = stack.source
    params = {**current.parameters, **parsed.parameters} if patch else parsed.parameters
    args: dict[str, Any] = {
        "template": parsed.template,
        "parameters": params,
        "timeout_mins": parsed.timeout_mins,
        "disable_rollback": parsed.disable_rollback,
        # Heat: a full update sets the tags it carries (none: no tags); a patch keeps the
        # stack's unless it names some
        "tags": (parsed.tags if parsed.tags_given else None) if patch else parsed.tags,
    }
    if parsed.template is not None:
        args["files"] = {**(dict(current.files) if patch else {}), **parsed.files}
        envs = parsed.environments
        if patch and not parsed.environment_given:
            envs = list(current.environments)
        args["environment"] = envs
    elif parsed.environment_given:
        args["environment"] = parsed.environments
    return args


def _sort_value(rec: Any, key: str) -> Any:
    if key == "updated":
        return rec.updated or rec.created
    return getattr(rec, key)
