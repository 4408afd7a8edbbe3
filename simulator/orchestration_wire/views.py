"""How the Orchestration API shows stacks, resources, events and snapshots (Heat's JSON).

Pure functions from the engine's objects to the documents Heat's API returns;
the routes decide what to show. Times are virtual: the world's clock read as
seconds since the Unix epoch, in Heat's ``YYYY-MM-DDThh:mm:ssZ`` form.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from simulator import masking

#: what the project of a stack without one is (stacks made by ``plugsim stack``)
OWNER_KEY = "project_id"


def iso(seconds: float | None) -> str | None:
    """Virtual *seconds* as Heat's timestamp (None stays None)."""
    if seconds is None:
        return None
    moment = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC) + _dt.timedelta(seconds=float(seconds))
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def stack_path(name: str, sid: str) -> str:
    """The path of a stack under the project's endpoint."""
    return f"/stacks/{name}/{sid}"


def stack_summary(rec: Any, endpoint: str, project: str) -> dict[str, Any]:
    """A stack as ``GET /stacks`` lists it (from its store record)."""
    return {
        "id": rec.id,
        "stack_name": rec.name,
        "description": _description(rec),
        "stack_status": f"{rec.action}_{rec.status}",
        "stack_status_reason": rec.reason,
        "creation_time": iso(rec.created),
        "updated_time": iso(rec.updated) if rec.updated != rec.created else None,
        "deletion_time": iso(rec.updated) if rec.deleted else None,
        "stack_owner": None,
        "stack_user_project_id": project,
        "parent": rec.parent_id,
        "tags": list(rec.doc.get("tags") or []) or None,
        "project": project,
        "links": [{"href": endpoint + stack_path(rec.name, rec.id), "rel": "self"}],
    }


def _description(rec: Any) -> str:
    source = rec.doc.get("source") or {}
    template = source.get("template") if isinstance(source, dict) else None
    text = template.get("description") if isinstance(template, dict) else None
    return text if isinstance(text, str) else "No description"


def stack_detail(
    stack: Any, endpoint: str, project: str, *, outputs: bool = True
) -> dict[str, Any]:
    """A stack as ``GET /stacks/{name}/{id}`` shows it."""
    rec = stack.record
    out = stack_summary(rec, endpoint, project)
    params = masking.mask_parameters(
        {k: v if isinstance(v, str) else str(v) for k, v in sorted(stack.parameters.items())},
        stack.definition.hidden_parameters,
    )
    params.update(
        {"OS::stack_id": stack.id, "OS::stack_name": stack.name, "OS::project_id": project}
    )
    out.update(
        {
            "parameters": params,
            "template_description": out["description"],
            "timeout_mins": stack.timeout_mins,
            "disable_rollback": stack.disable_rollback,
            "notification_topics": [],
            "capabilities": [],
        }
    )
    if outputs and stack.status != "IN_PROGRESS" and not rec.deleted:
        out["outputs"] = [output_view(o) for o in stack.outputs()]
    elif outputs:
        out["outputs"] = []
    return out


def output_view(o: dict[str, Any]) -> dict[str, Any]:
    """One output (with its error when it could not be resolved, as Heat shows it)."""
    view = {
        "output_key": o["output_key"],
        "output_value": o.get("output_value"),
        "description": o.get("description") or "No description given",
    }
    if o.get("output_error"):
        view["output_error"] = o["output_error"]
    return view


def resource_view(
    stack: Any,
    res: Any,
    endpoint: str,
    *,
    times: dict[str, tuple[float, float]],
    required_by: list[str],
    nested: dict[str, Any],
    detail: bool = False,
) -> dict[str, Any]:
    """A resource as ``GET .../resources`` (and with *detail*, ``GET .../resources/{name}``).

    *times*: first and last event time by resource name; *nested*: the stack's
    child stacks by id (a resource owning one links to it).
    """
    spath = endpoint + stack_path(stack.name, stack.id)
    first, last = times.get(res.name, (stack.record.created, stack.record.created))
    links = [
        {"href": f"{spath}/resources/{res.name}", "rel": "self"},
        {"href": spath, "rel": "stack"},
    ]
    child = nested.get(str(res.resource_id)) if res.resource_id is not None else None
    if child is not None:
        links.append({"href": endpoint + stack_path(child.name, child.id), "rel": "nested"})
    view = {
        "resource_name": res.name,
        "logical_resource_id": res.name,
        "physical_resource_id": "" if res.resource_id is None else str(res.resource_id),
        "resource_type": res.type(),
        "resource_status": f"{res.action}_{res.status}",
        "resource_status_reason": res.status_reason or "",
        "creation_time": iso(first),
        "updated_time": iso(last),
        "required_by": required_by,
        "links": links,
        "stack_name": stack.name,
        "stack_identity": {
            "stack_name": stack.name,
            "stack_id": stack.id,
            "tenant": "",
            "path": "",
        },
    }
    if detail:
        view["description"] = ""
        view["metadata"] = res.metadata_get()
        view["attributes"] = _attributes(res)
    return view


def _attributes(res: Any) -> dict[str, Any]:
    if res.action == "INIT" or res.resource_id is None and res.action != "CREATE":
        return {}
    try:
        values = res.FnGetAtts()
    except Exception:  # noqa: BLE001 - an attribute a plug-in cannot give is shown as null
        return {}
    return {k: v for k, v in sorted(values.items()) if k != "show"}


def event_view(ev: Any, endpoint: str, stack_name: str, *, detail: bool = False) -> dict[str, Any]:
    """One event as ``GET .../events`` lists it."""
    spath = endpoint + stack_path(ev.stack_name, ev.stack_id)
    view = {
        "id": str(ev.id),
        "event_time": iso(ev.time),
        "resource_name": ev.resource_name,
        "logical_resource_id": ev.resource_name,
        "physical_resource_id": ev.physical_resource_id or "",
        "resource_status": f"{ev.action}_{ev.status}",
        "resource_status_reason": ev.reason,
        "links": [
            {"href": f"{spath}/resources/{ev.resource_name}/events/{ev.id}", "rel": "self"},
            {"href": f"{spath}/resources/{ev.resource_name}", "rel": "resource"},
            {"href": spath, "rel": "stack"},
        ],
    }
    if detail:
        view["resource_type"] = ev.resource_type
        view["resource_properties"] = {}
    return view


def snapshot_view(rec: Any) -> dict[str, Any]:
    """A snapshot as ``GET .../snapshots/{id}`` shows it."""
    return {
        "id": rec.id,
        "name": rec.name,
        "status": rec.status,
        "status_reason": rec.reason,
        "creation_time": iso(rec.created),
        "data": {
            "resources": rec.doc.get("resources", {}),
            "template": (rec.doc.get("source") or {}).get("template"),
        },
    }
