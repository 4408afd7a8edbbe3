"""A fake Docker Engine: the ``containers`` service and the Docker Engine API over it.

The real ``docker`` library (``docker.APIClient``) runs against it
unmodified, in-process through ``responses``::

    with serve_docker(cloud):
        client = docker.APIClient("tcp://docker.fake:2375")
        client.pull("nginx")
        cid = client.create_container("nginx")["Id"]
        client.start(cid)

A world serves it to the plug-ins it runs (:meth:`FakeCloud.http_wire`).
:mod:`fake_clouds.docker.engine` holds the behaviour,
:mod:`fake_clouds.docker.api` the endpoints and :mod:`fake_clouds.docker.wire`
the serving; ``docs/fake-clouds-rest.rst`` lists the endpoints.
"""

from fake_clouds.docker.engine import REGISTRY, ContainerService, add_docker_service


def serve_docker(*args, **kwargs):  # noqa: ANN002, ANN003 - see fake_clouds.docker.wire
    """Serve a cloud's Docker Engine API (:func:`fake_clouds.docker.wire.serve_docker`)."""
    from fake_clouds.docker.wire import serve_docker as serve

    return serve(*args, **kwargs)


__all__ = ["REGISTRY", "ContainerService", "add_docker_service", "serve_docker"]
