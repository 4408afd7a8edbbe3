"""Python clients of the fake cloud services, in the shapes Heat plug-ins expect.

* compute (``nova``): managers - ``client.servers.create(...)`` returns objects.
* block storage (``cinder``): managers - ``client.volumes.create(size=...)``.
* network (``neutron``): dict style - ``create_network({'network': {...}})``.
* object storage (``swift``): connection style - ``put_container(name)``.
* entity: managers - ``client.entities.create(kind, attrs)``.

Errors are the typed :mod:`sdk.exception` client errors.
"""
