"""A fake F5 BIG-IP: the ``bigip`` service (devices, folders) and its iControl REST API.

f5-sdk (``f5.bigip.ManagementRoot``) runs against it unmodified, in-process
through ``responses``::

    with serve_bigip(cloud):
        bigip = ManagementRoot("192.0.2.245", "admin", "admin")
        bigip.tm.sys.folders.folder.create(name="tenant", subPath="/")

A world serves it to the plug-ins it runs (:meth:`FakeCloud.http_wire`).
:mod:`fake_clouds.bigip.device` holds the behaviour,
:mod:`fake_clouds.bigip.api` the endpoints and :mod:`fake_clouds.bigip.wire`
the serving; ``docs/fake-clouds-rest.rst`` lists the endpoints.
"""

from fake_clouds.bigip.device import DEFAULT_DEVICE, BigIPService, add_bigip_service


def serve_bigip(*args, **kwargs):  # noqa: ANN002, ANN003 - see fake_clouds.bigip.wire
    """Serve a cloud's BIG-IPs (:func:`fake_clouds.bigip.wire.serve_bigip`)."""
    from fake_clouds.bigip.wire import serve_bigip as serve

    return serve(*args, **kwargs)


__all__ = ["DEFAULT_DEVICE", "BigIPService", "add_bigip_service", "serve_bigip"]
