"""The verdict of a failed campaign run (:mod:`sdk.testing.verdict`), in the kit's one format.

A template run's verdict comes from its :class:`simulator.simulate.Report`: the root resource of
the failed phase (its path, action and status reason), the plug-in handler of the last call that
changed its cloud entity, the last injected fault, the virtual time, and for a leak each leaked
entity with the call and handler that made it. A conformance path's verdict is the one its check
raised (:class:`~sdk.testing.verdict.VerdictFailure`), or one made from the exception.
"""

from __future__ import annotations

from typing import Any

from sdk.testing.campaign.signature import Signature
from sdk.testing.verdict import Verdict


def _fault_line(faults: list[dict[str, Any]]) -> str:
    if not faults:
        return ""
    last = faults[-1]
    nth = f" #{last['nth']}" if last.get("nth") else ""
    rule = f" ({last['rule_name']})" if last.get("rule_name") else ""
    more = f" [{len(faults)} injected in all]" if len(faults) > 1 else ""
    return (
        f"{last.get('service')}.{last.get('operation')}{nth}: {last.get('effect')}{rule} "
        f"at t={float(last.get('time', 0.0)):g}s{more}"
    )


def of_report(report: Any, sig: Signature) -> Verdict:
    """The verdict of a template run whose signature is *sig*."""
    verdict = Verdict(sig.check, sig.message, action=sig.action, fault=_fault_line(report.faults))
    verdict.time = round(float(report.virtual_seconds), 6)
    if sig.check == "leak":
        verdict.summary = "leaked fake-cloud entities: " + ", ".join(
            f"{x['service']}/{x['kind']} {x['id']} ({x['status']})" for x in report.leaks
        )
        verdict.path = f"template {report.template}"
        for leak in report.leaks:
            made = leak.get("created_by") or "made outside any recorded call"
            verdict.details.append(
                f"leaked:   {leak['service']}/{leak['kind']} {leak['id']} '{leak['name']}' "
                f"({leak['status']}) created by {made}"
            )
        first = next((x for x in report.leaks if x.get("created_by")), None)
        if first is not None and " by " in first["created_by"]:
            verdict.handler = first["created_by"].split(" by ", 1)[1].split(" [", 1)[0]
        verdict.hint = (
            "an injected fault failed an action after these objects were made: record each "
            "(resource_id_set) before the next call can fail, so handle_delete finds it"
            if report.faults
            else "the stack's delete ended without removing these objects"
        )
        return verdict
    root = next(
        (
            e
            for e in report.events
            if not e.is_stack_event and e.status == "FAILED" and e.action == sig.action
        ),
        None,
    )
    if root is not None:
        verdict.summary = root.reason
        verdict.path = (
            f"template {report.template}, resource '{root.resource_name}' ({root.resource_type})"
        )
        verdict.resource_status = f"{root.action}_{root.status}"
        verdict.time = round(float(root.time), 6)
        physical = str(root.physical_resource_id or "")
        verdict.handler = report.handlers.get(physical, "")
        if physical:
            verdict.entity_status = physical
    verdict.hint = f"the {sig.action.lower() or sig.check} of the resource failed"
    return verdict


def of_exception(ex: BaseException, path: str, resource_type: str) -> Verdict:
    """The verdict of a conformance path that raised *ex*."""
    found = getattr(ex, "verdict", None)
    if isinstance(found, Verdict):
        return found
    from sdk.testing.verdict import handler_of_exception

    text = str(ex).strip().splitlines()
    return Verdict(
        "crash" if not isinstance(ex, AssertionError) else "assertion",
        f"{type(ex).__name__}: {text[0] if text else ''}",
        path=f"{path} of {resource_type}",
        handler=handler_of_exception(ex),
        hint="the conformance path raised before its checks",
    )
