"""REST dialects of the fake cloud, served through ``responses``.

``serve(cloud)`` answers DigitalOcean v2, Linode v4 and an OpenStack-style
compute API from the *same* :class:`~fake_clouds.FakeCloud` state the Python
clients use, so ``requests``-based code (a Salt Cloud driver, a plug-in that
speaks HTTP) runs unmodified::

    with serve(cloud) as server:
        requests.get("https://api.digitalocean.com/v2/droplets",
                     headers=server.headers("digitalocean"), timeout=10)
    print(server.report().format())

See :mod:`fake_clouds.rest.server` for the request pipeline and
``docs/fake-clouds-rest.rst`` for the endpoints each dialect serves.
"""

from fake_clouds.rest.common import int_id, iso
from fake_clouds.rest.http import Dialect, Reply, Request, Route, route
from fake_clouds.rest.server import (
    DIALECTS,
    FakeBug,
    RestReport,
    RestServer,
    ServedCall,
    UnservedCall,
    dialect_classes,
    serve,
)

__all__ = [
    "DIALECTS",
    "Dialect",
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
