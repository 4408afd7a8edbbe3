"""``test_survives_drift``: the conformance path of a plug-in whose entity changes behind its back.

A plug-in opts in like the other ``survives`` kinds (``survives = (..., "drift")``). The path creates
the resource, then changes its fake-cloud entity out of band the way the campaign's adversary does
(:func:`sdk.testing.campaign.adversary.drift_entity`): once deleting it, once putting it in its
service's error status. After each, ``stack check`` must fail when the plug-in implements
``handle_check`` (it must see the drift), and the delete must still complete and leave nothing behind
(converge). Mixed into :class:`sdk.testing.ResourceConformance`.
"""

from __future__ import annotations

from typing import Any


class DriftConformance:
    """The drift path (see the module docstring)."""

    def test_survives_drift(self, plugsim_env: Any) -> None:
        """An entity deleted or put in error out of band: check sees it, delete still cleans up."""
        import pytest

        from sdk.testing._conformance_support import declared
        from sdk.testing.campaign.drifts import drift_entity

        me: Any = self
        plugin = me.plugin()
        if "drift" not in (me.survives or ()):
            pytest.skip(f"{plugin.__name__} does not claim to survive drift")
        for kind in ("delete", "error"):
            h = me._created(plugsim_env)
            item = h.cloud_entity()
            if item is None:
                pytest.skip("the physical id matches no fake-cloud entity")
            assert drift_entity(h.world, kind, item), f"the {kind} drift could not be done"
            if declared(plugin, "handle_check"):
                h.check()
                assert h.state == "CHECK_FAILED", (
                    f"stack check completed after an out-of-band {kind} of the entity"
                )
            me._delete_all(h)
            me._clean(h)
