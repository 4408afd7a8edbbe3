"""neutron's VPN-as-a-service on the fake network: services, IKE and IPsec policies, site
connections, with neutron's 400/404/409 answers and statuses; a connection left behind is a leak."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_clouds import FakeCloud
from sdk import exception


def _error_type(info: pytest.ExceptionInfo) -> str:
    return info.value.body["NeutronError"]["type"]


def _router(neutron) -> str:
    return neutron.create_router({"router": {"name": "vpn-r"}})["router"]["id"]


def _connection_body(service: str, ike: str, ipsec: str, **extra) -> dict:
    body = {
        "vpnservice_id": service,
        "ikepolicy_id": ike,
        "ipsecpolicy_id": ipsec,
        "peer_address": "172.24.4.233",
        "peer_id": "172.24.4.233",
        "peer_cidrs": ["10.2.0.0/24"],
        "psk": "secret",
    }
    return {"ipsec_site_connection": {**body, **extra}}


def _policies(neutron) -> tuple[str, str]:
    ike = neutron.create_ikepolicy({"ikepolicy": {"name": "ike"}})["ikepolicy"]
    ipsec = neutron.create_ipsecpolicy({"ipsecpolicy": {"name": "ipsec"}})["ipsecpolicy"]
    return ike["id"], ipsec["id"]


def test_a_service_is_pending_until_a_connection_uses_it(cloud, neutron):
    mark = cloud.snapshot_inventory()
    service = neutron.create_vpnservice({"vpnservice": {"router_id": _router(neutron)}})
    service_id = service["vpnservice"]["id"]
    assert neutron.show_vpnservice(service_id)["vpnservice"]["status"] == "PENDING_CREATE"
    ike, ipsec = _policies(neutron)
    shown = neutron.show_ikepolicy(ike)["ikepolicy"]
    assert (shown["auth_algorithm"], shown["lifetime"]) == (
        "sha1",
        {"units": "seconds", "value": 3600},
    )
    conn = neutron.create_ipsec_site_connection(_connection_body(service_id, ike, ipsec))
    conn_id = conn["ipsec_site_connection"]["id"]
    assert neutron.show_vpnservice(service_id)["vpnservice"]["status"] == "ACTIVE"
    assert [c["id"] for c in neutron.list_ipsec_site_connections()["ipsec_site_connections"]] == [
        conn_id
    ]
    for delete, kind in (
        (neutron.delete_vpnservice, service_id),
        (neutron.delete_ikepolicy, ike),
        (neutron.delete_ipsecpolicy, ipsec),
    ):
        with pytest.raises(exception.Conflict) as in_use:
            delete(kind)
        assert _error_type(in_use).endswith("InUse")
    neutron.delete_ipsec_site_connection(conn_id)
    neutron.delete_vpnservice(service_id)
    neutron.delete_ikepolicy(ike)
    neutron.delete_ipsecpolicy(ipsec)
    assert [leak for leak in cloud.leaks(mark) if leak.kind != "router"] == []


def test_unknown_ids_are_neutrons_404s(neutron):
    with pytest.raises(exception.NotFound) as router:
        neutron.create_vpnservice({"vpnservice": {"router_id": "nowhere"}})
    assert _error_type(router) == "RouterNotFound"
    ike, ipsec = _policies(neutron)
    with pytest.raises(exception.NotFound) as service:
        neutron.create_ipsec_site_connection(_connection_body("nowhere", ike, ipsec))
    assert _error_type(service) == "VPNServiceNotFound"
    with pytest.raises(exception.NotFound) as shown:
        neutron.show_ikepolicy("nowhere")
    assert _error_type(shown) == "IKEPolicyNotFound"


def test_a_connection_needs_a_key_and_peer_cidrs(neutron):
    service = neutron.create_vpnservice({"vpnservice": {"router_id": _router(neutron)}})
    ike, ipsec = _policies(neutron)
    sid = service["vpnservice"]["id"]
    for extra, words in (
        ({"psk": ""}, "psk"),
        ({"peer_cidrs": []}, "peer_cidrs"),
        ({"peer_cidrs": ["10.2.0.0/33"]}, "not a valid IP subnet"),
    ):
        with pytest.raises(exception.BadRequest, match=words):
            neutron.create_ipsec_site_connection(_connection_body(sid, ike, ipsec, **extra))
    with pytest.raises(exception.BadRequest, match="Required attribute 'psk'"):
        body = _connection_body(sid, ike, ipsec)
        del body["ipsec_site_connection"]["psk"]
        neutron.create_ipsec_site_connection(body)


@settings(max_examples=30, deadline=None)
@given(st.integers(-10, 200_000))
def test_a_policy_lifetime_is_at_least_a_minute(value):
    neutron = FakeCloud(seed=1).client("neutron")
    body = {"ikepolicy": {"lifetime": {"units": "seconds", "value": value}}}
    if value >= 60:
        assert neutron.create_ikepolicy(body)["ikepolicy"]["lifetime"]["value"] == value
    else:
        with pytest.raises(exception.BadRequest, match="lifetime"):
            neutron.create_ikepolicy(body)


def test_a_connection_shows_its_read_only_auth_and_route_modes(neutron):
    """neutron-vpnaas shows ``auth_mode`` (psk) and ``route_mode`` (static) on every
    connection; Heat's IPsecSiteConnection exposes both as attributes."""
    service = neutron.create_vpnservice({"vpnservice": {"router_id": _router(neutron)}})
    ike, ipsec = _policies(neutron)
    body = _connection_body(service["vpnservice"]["id"], ike, ipsec)
    conn = neutron.create_ipsec_site_connection(body)["ipsec_site_connection"]
    shown = neutron.show_ipsec_site_connection(conn["id"])["ipsec_site_connection"]
    assert (shown["auth_mode"], shown["route_mode"]) == ("psk", "static")
    assert (conn["auth_mode"], conn["route_mode"]) == ("psk", "static")
