"""A ready ``openstack.connection.Connection`` on a fake cloud's OpenStack wire (in-process).

:func:`openstack_connection` serves the cloud's OpenStack APIs through
``responses``, writes a ``clouds.yaml`` naming the cloud ``plugsim`` and hands
out a connection built from it. While it is open, openstacksdk's polling
helpers (``wait_for_server``, ``wait_for_delete`` ...) sleep in virtual time:
``openstack.utils``' references to ``time`` point at the world's virtual
clock, so a 30 s boot costs no wall time.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fake_clouds.openstack import clouds_yaml, serve_openstack
from simulator.drivers.vtime import VirtualTimeModule, patch_module_time


@contextmanager
def virtual_sleep(module: Any, clock: Any) -> Iterator[None]:
    """Make *module*'s ``time`` references virtual for the block, then restore them."""
    saved = dict(vars(module))
    names = patch_module_time(module, VirtualTimeModule(clock))
    try:
        yield
    finally:
        for name in names:
            vars(module)[name] = saved[name]


@contextmanager
def openstack_connection(cloud: Any, config_path: str | Path) -> Iterator[Any]:
    """Yield an openstacksdk connection to *cloud*; ``clouds.yaml`` is written to *config_path*."""
    import openstack.config
    import openstack.connection
    import openstack.utils

    with serve_openstack(cloud) as app, virtual_sleep(openstack.utils, cloud.clock):
        path = clouds_yaml(config_path, app.auth_url)
        config = openstack.config.OpenStackConfig(config_files=[str(path)])
        conn = openstack.connection.Connection(config=config.get_one(cloud="plugsim"))
        # The fixture's extras ride on the Connection it hands out (openstacksdk's class has no
        # slot for them, hence setattr).
        setattr(conn, "plugsim_wire", app)  # noqa: B010
        setattr(conn, "plugsim_clouds_yaml", path)  # noqa: B010
        try:
            yield conn
        finally:
            conn.close()
