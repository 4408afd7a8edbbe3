"""Self-hosted clouds are served where the providers file says they live."""

from __future__ import annotations

import importlib.util

import pytest

from simulator.drivers.config import load_cloud_config
from simulator.drivers.harness import openstack_auth_url, provider_base_urls


def _config(providers):
    return load_cloud_config(providers, {})


@pytest.mark.parametrize(
    ("settings", "url"),
    [
        ({"host": "localhost", "path": "/client/api"}, "https://localhost/client/api"),
        (
            {"host": "cs.example", "path": "client/api/", "secure": False},
            "http://cs.example/client/api",
        ),
        (
            {"host": "cs.example", "path": "/compute", "port": 8080},
            "https://cs.example:8080/compute",
        ),
    ],
)
def test_a_cloudstack_provider_names_its_api(settings, url):
    keys = {"apikey": "k", "secretkey": "s"}
    config = _config({"cs": {"driver": "cloudstack", **keys, **settings}})
    assert provider_base_urls(config) == {"cloudstack": url}


def test_other_providers_and_incomplete_ones_name_no_site():
    config = _config(
        {
            "do": {"driver": "digitalocean", "personal_access_token": "t"},
            "cs": {"driver": "cloudstack", "apikey": "k", "secretkey": "s", "path": "/x"},
        }
    )
    assert provider_base_urls(config) == {}
    assert openstack_auth_url(config) is None


def test_the_first_openstack_provider_names_the_keystone():
    auth = {"username": "u", "password": "p", "auth_url": "https://ks.example:5000/v3"}
    config = _config({"a": {"driver": "openstack", "auth": auth}})
    assert openstack_auth_url(config) == "https://ks.example:5000/v3"


@pytest.mark.skipif(
    importlib.util.find_spec("moto") is not None, reason="moto is installed: EC2 is served"
)
def test_without_moto_an_ec2_call_says_what_to_install():
    from simulator.drivers.harness import _short_connection_error

    text = (
        "Connection refused by Responses - the call doesn't match any registered mock.\n"
        "Request:\n- GET https://ec2.us-east-1.amazonaws.com/?Action=RunInstances\n"
    )
    message = _short_connection_error(ConnectionError(text))
    assert message == (
        "no fake cloud serves GET https://ec2.us-east-1.amazonaws.com/ (real network I/O is "
        "refused; EC2 is served through moto: pip install 'plugsim[aws]')"
    )
