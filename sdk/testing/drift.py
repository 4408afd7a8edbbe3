"""``test_survives_drift``: the conformance path of a plug-in whose entity changes behind its back.

A plug-in opts in like the other ``survives`` kinds (``survives = (..., "drift")``). The path creates
the resource, then changes its fake-cloud entity out of band the way the campaign's adversary does
(:func:`sdk.testing.campaign.drifts.drift_entity`), one kind at a time on a fresh resource:

* ``delete``, ``error``, ``stuck`` (left in its kind's transitional status; skipped for a kind that
  has none): ``stack check`` must fail when the plug-in implements ``handle_check`` (it must see the
  drift);
* ``rename`` (another user renamed it): nothing is asked of the check;
* ``rotate`` (the cloud's credential rotated): ``stack check`` must complete (the plug-in
  re-authenticates instead of using a client it kept).

After each, the delete must complete and leave nothing behind (converge); after ``stuck`` it may
instead time out (``DELETE_FAILED`` with the stack's timeout: the plug-in waited for an entity that
never settles and gave up). Mixed into :class:`sdk.testing.ResourceConformance`.
"""

from __future__ import annotations

from typing import Any

#: The drifts the path does, in order.
PATH_KINDS = ("delete", "error", "stuck", "rename", "rotate")


class DriftConformance:
    """The drift path (see the module docstring)."""

    def test_survives_drift(self, plugsim_env: Any) -> None:
        """Each drift kind out of band: check sees it (or works on), delete still cleans up."""
        import pytest

        me: Any = self
        plugin = me.plugin()
        if "drift" not in (me.survives or ()):
            pytest.skip(f"{plugin.__name__} does not claim to survive drift")
        # after the skip: the campaign package this comes from is large to import
        from fake_clouds.core.drift import stuck_status
        from sdk.testing._conformance_support import declared
        from sdk.testing.campaign.drifts import CHECK_SEES, MAY_TIME_OUT, drift_entity

        for kind in PATH_KINDS:
            h = me._created(plugsim_env)
            item = h.cloud_entity()
            if item is None:
                pytest.skip("the physical id matches no fake-cloud entity")
            service = h.world.cloud.service(item.service)
            if kind == "stuck" and stuck_status(service, item.kind) is None:
                me._delete_all(h)  # this kind has no transitional status to be stuck in
                continue
            assert drift_entity(h.world, kind, item), f"the {kind} drift could not be done"
            if declared(plugin, "handle_check"):
                h.check()
                if kind in CHECK_SEES:
                    assert h.state == "CHECK_FAILED", (
                        f"stack check completed after an out-of-band {kind} of the entity"
                    )
                elif kind == "rotate":
                    assert h.state == "CHECK_COMPLETE", (
                        f"stack check failed after the credential was rotated: {h.status_reason}"
                    )
            h.delete()
            if kind in MAY_TIME_OUT and "timed out" in str(h.status_reason):
                continue  # it waited for the stuck entity and gave up: what it must do
            assert h.state == "DELETE_COMPLETE", (
                f"delete after an out-of-band {kind} of the entity: {h.status_reason}"
            )
            me._clean(h)
