"""Heat's Orchestration API v1 over a world's engine (the top floor's wire front end).

``plugsim serve`` mounts :class:`OrchestrationAPI` beside the fake clouds'
OpenStack services (catalog type ``orchestration``, ``/heat-api/v1/{project}``);
:func:`serve_world` serves the same in-process through ``responses`` for
tests. Both run the world's stack verbs (:mod:`simulator.stack_api`), the
ones ``plugsim stack`` runs; actions go on in the background in virtual time
(:mod:`.engine`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from simulator.orchestration_wire.api import OrchestrationAPI
from simulator.orchestration_wire.engine import ServedEngine

__all__ = ["OrchestrationAPI", "ServedEngine", "mount", "serve_world"]


def mount(world: Any, engine: ServedEngine) -> Callable[[Any], OrchestrationAPI]:
    """The ``extra_apis`` factory that mounts the Orchestration API of *world* on a WireApp."""
    return lambda app: OrchestrationAPI(app, world, engine)


@contextmanager
def serve_world(world: Any, *, step: float = 5.0, base_url: str | None = None) -> Iterator[Any]:
    """Serve *world*'s OpenStack APIs and its Orchestration API to ``requests`` in-process.

    Each request first moves virtual time *step* seconds on (running the
    actions' work due by then), as a client polling every *step* seconds
    would see: deterministic, and no wall time. Yields the
    :class:`~fake_clouds.openstack.app.WireApp` (its ``.engine`` is the
    :class:`ServedEngine`).
    """
    import responses

    from fake_clouds.openstack.app import DEFAULT_BASE_URL, WireApp
    from fake_clouds.openstack.inprocess import register

    engine = ServedEngine(world)

    def before() -> None:
        engine.advance_to(world.clock.now() + step)

    app = WireApp(
        world.cloud,
        base_url or DEFAULT_BASE_URL,
        before_request=before,
        extra_apis=[mount(world, engine)],
    )
    app.engine = engine  # type: ignore[attr-defined]
    try:
        with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
            register(app, mock)
            yield app
    finally:
        engine.stop()
