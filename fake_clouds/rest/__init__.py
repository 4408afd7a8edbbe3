"""Provider APIs of the fake cloud: each dialect a WSGI application over the world's services.

A dialect (DigitalOcean v2, Linode v4, Hetzner, Vultr v1, CloudStack) is a
:class:`~fake_clouds.rest.dialect.Dialect` whose routes werkzeug matches;
:class:`~fake_clouds.rest.app.DialectApp` serves it as a WSGI application.
``serve(cloud)`` mounts them in-process (a ``responses`` adapter, no socket),
together with the world's OpenStack wire at ``https://compute.openstack.fake/v2.1``,
so ``requests``-based code (a Salt Cloud driver, a plug-in that speaks HTTP)
runs unmodified against the *same* state the Python clients use::

    with serve(cloud) as server:
        requests.get("https://api.digitalocean.com/v2/droplets",
                     headers=server.headers("digitalocean"), timeout=10)
    print(server.report().format())

``plugsim serve --provider digitalocean,...`` serves the same applications on
127.0.0.1. See ``docs/fake-clouds-rest.rst`` for the endpoints and for adding
a provider.
"""

from fake_clouds.rest.app import DialectApp, FakeBug, ServedCall, UnservedCall
from fake_clouds.rest.common import int_id, iso
from fake_clouds.rest.dialect import Dialect, Reply, Request, Route, route
from fake_clouds.rest.server import (
    DIALECTS,
    RestReport,
    RestServer,
    dialect_classes,
    serve,
)

__all__ = [
    "DIALECTS",
    "Dialect",
    "DialectApp",
    "FakeBug",
    "Reply",
    "Request",
    "RestReport",
    "RestServer",
    "Route",
    "ServedCall",
    "UnservedCall",
    "dialect_classes",
    "int_id",
    "iso",
    "route",
    "serve",
]
