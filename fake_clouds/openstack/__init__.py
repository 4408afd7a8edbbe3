"""The fake clouds speaking the OpenStack APIs on the wire.

:class:`~fake_clouds.openstack.app.WireApp` is one WSGI application (werkzeug)
per fake cloud serving identity v3, compute v2.1 and network v2.0 under path
prefixes of one base URL; :func:`~fake_clouds.openstack.inprocess.serve_openstack`
answers ``requests`` with it in-process and ``plugsim serve`` on a loopback
socket. Unmodified keystoneauth1, openstacksdk, novaclient and neutronclient
run against it.
"""

from fake_clouds.openstack.app import DEFAULT_BASE_URL, WireApp
from fake_clouds.openstack.inprocess import clouds_yaml, serve_openstack

__all__ = ["DEFAULT_BASE_URL", "WireApp", "clouds_yaml", "serve_openstack"]
