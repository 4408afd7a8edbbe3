"""The serving pipeline: auth, unserved endpoints, bad bodies, latency, faults, bugs, seeds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import requests
import responses
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fake_clouds import FakeCloud
from fake_clouds.rest import RestServer, dialect_classes, serve
from fake_clouds.rest.digitalocean import DigitalOcean
from sdk.exception import ConfigurationError

DO = "https://api.digitalocean.com/v2"
LINODE = "https://api.linode.com/v4"
NOVA = "https://compute.openstack.fake/v2.1"
DROPLET = {"name": "web-1", "region": "nyc3", "size": "s-1vcpu-2gb", "image": "ubuntu-22-04-x64"}


@pytest.mark.parametrize(
    ("url", "headers", "body"),
    [
        (f"{DO}/droplets", {}, {"id": "unauthorized", "message": "Unable to authenticate you."}),
        (
            f"{DO}/droplets",
            {"Authorization": "Bearer wrong"},
            {"id": "unauthorized", "message": "Unable to authenticate you."},
        ),
        (f"{LINODE}/linode/instances", {}, {"errors": [{"reason": "Invalid Token"}]}),
        (
            f"{LINODE}/linode/instances",
            {"Authorization": "Bearer wrong"},
            {"errors": [{"reason": "Invalid Token"}]},
        ),
        (
            f"{NOVA}/servers",
            {"X-Auth-Token": "wrong"},
            {
                "error": {
                    "code": 401,
                    "title": "Unauthorized",
                    "message": "The request you have made requires authentication.",
                }
            },
        ),
    ],
)
def test_missing_or_wrong_token_gets_the_providers_401(server, url, headers, body):
    r = requests.get(url, headers=headers)
    assert r.status_code == 401 and r.json() == body
    assert r.headers["Content-Type"] == "application/json"


def test_unknown_endpoints_get_404_bodies_and_are_reported(server, world):
    do_h, li_h, os_h = (server.headers(d) for d in ("digitalocean", "linode", "openstack"))
    for _ in range(2):
        r = requests.get(f"{DO}/kubernetes/clusters?page=2", headers=do_h)
    assert r.status_code == 404
    # the provider's 404 body, naming the endpoint the fake does not serve
    assert r.json() == {
        "id": "not_found",
        "message": "Not found: plugsim's fake digitalocean API does not serve GET "
        "/v2/kubernetes/clusters",
    }
    r = requests.post(f"{LINODE}/nodebalancers", headers=li_h, json={})
    assert r.status_code == 404 and r.json() == {
        "errors": [
            {"reason": "Not found: plugsim's fake linode API does not serve POST /v4/nodebalancers"}
        ]
    }
    requests.patch(f"{DO}/droplets/1", headers=do_h)
    unserved = [(u.method, u.url, u.count) for u in server.unserved()]
    assert unserved == [
        ("PATCH", f"{DO}/droplets/1", 1),
        ("GET", f"{DO}/kubernetes/clusters", 2),
        ("POST", f"{LINODE}/nodebalancers", 1),
    ]
    text = server.report().format()
    assert f"2x GET {DO}/kubernetes/clusters (digitalocean)" in text
    assert not world.trace(), "unserved calls touch no service"


def test_an_endpoint_nova_lacks_at_the_old_url_is_the_wires_unserved(server):
    r = requests.get(f"{NOVA}/os-cells", headers=server.headers("openstack"))
    assert r.status_code == 404
    found = [(u.dialect, u.method, u.url, u.count) for u in server.unserved()]
    assert found == [
        ("openstack compute", "GET", "http://openstack.plugsim.test/compute/v2.1/os-cells", 1)
    ]


def test_other_hosts_fail_loudly_with_the_url(server):
    with pytest.raises(requests.exceptions.ConnectionError, match=r"https://example\.com/x"):
        requests.get("https://example.com/x")


@pytest.mark.parametrize(
    ("payload", "kwargs", "status", "fragment"),
    [
        (None, {"data": b"{oops"}, 400, "not valid JSON"),
        (None, {"json": [1]}, 400, "JSON object"),
        ({"region": "nyc3", "size": "s-1vcpu-2gb", "image": "x"}, {}, 422, "name"),
        ({**DROPLET, "region": None}, {}, 422, "region is required"),
        ({**DROPLET, "size": "s-64vcpu"}, {}, 422, "invalid size"),
        ({**DROPLET, "image": "beos"}, {}, 422, "invalid image"),
        ({**DROPLET, "name": "bad name"}, {}, 422, "hostname"),
        ({**DROPLET, "ipv6": "yes"}, {}, 422, "ipv6 must be a boolean"),
        ({**DROPLET, "tags": "web"}, {}, 422, "tags must be a list"),
        ({**DROPLET, "ssh_keys": [12]}, {}, 422, "ssh_keys[0]"),
        ({**DROPLET, "user_data": 5}, {}, 422, "user_data"),
    ],
)
def test_bad_droplet_bodies_get_provider_errors_naming_the_field(
    server, world, payload, kwargs, status, fragment
):
    headers = server.headers("digitalocean")
    if payload is not None:
        kwargs = {"json": payload}
    r = requests.post(f"{DO}/droplets", headers=headers, **kwargs)
    assert r.status_code == status
    assert r.json()["id"] == ("bad_request" if status == 400 else "unprocessable_entity")
    assert fragment in r.json()["message"]
    assert server.bugs() == []
    assert world.trace()[-1].operation == "servers.create"
    assert world.trace()[-1].outcome == "BadRequest"


def test_bad_query_parameters_are_400(server):
    r = requests.get(f"{DO}/droplets?per_page=abc", headers=server.headers("digitalocean"))
    assert r.status_code == 400 and "per_page" in r.json()["message"]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.dictionaries(
        st.sampled_from(
            ["name", "names", "region", "size", "image", "tags", "ssh_keys", "vpc_uuid"]
        ),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=8),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
            max_leaves=5,
        ),
    )
)
def test_any_json_body_gets_a_provider_answer_never_a_bug(server, body):
    for url, headers in (
        (f"{DO}/droplets", server.headers("digitalocean")),
        (f"{LINODE}/linode/instances", server.headers("linode")),
        (f"{NOVA}/servers", server.headers("openstack")),
    ):
        r = requests.post(url, json=body, headers=headers)
        assert r.status_code in (202, 200, 400, 422), r.text
    assert server.bugs() == []


def test_latency_beyond_timeout_raises_read_timeout():
    world = FakeCloud(seed=1, latency={"calls": {"compute.servers.list": 5.0}})
    with serve(world, ["digitalocean"]) as rest:
        headers = rest.headers("digitalocean")
        with pytest.raises(requests.exceptions.ReadTimeout, match=r"timeout=2 s"):
            requests.get(f"{DO}/droplets", headers=headers, timeout=2)
        assert world.now() == pytest.approx(5.0)
        assert requests.get(f"{DO}/droplets", headers=headers, timeout=(1, 6)).status_code == 200
        with pytest.raises(requests.exceptions.ReadTimeout):
            requests.get(f"{DO}/droplets", headers=headers, timeout=(10, 4.5))
        assert [c.outcome for c in rest.calls()] == ["ReadTimeout", "ok", "ReadTimeout"]
        assert [c.latency for c in rest.calls()] == [5.0, 5.0, 5.0]


@pytest.mark.parametrize(
    ("applied", "error", "servers"),
    [(False, requests.exceptions.ConnectTimeout, 0), (True, requests.exceptions.ReadTimeout, 1)],
)
def test_timeout_faults_become_requests_timeouts(applied, error, servers):
    rule = {
        "operation": "servers.create",
        "effect": {"type": "timeout", "after": 30, "applied": applied},
    }
    world = FakeCloud(seed=1, faults=[rule])
    with serve(world, ["digitalocean"]) as rest:
        with pytest.raises(error, match="timed out after 30 s"):
            requests.post(f"{DO}/droplets", json=DROPLET, headers=rest.headers("digitalocean"))
    assert len(world.client("compute").servers.list()) == servers
    [fault] = world.injected_faults()
    assert (fault.service, fault.operation, fault.effect) == (
        "compute",
        "servers.create",
        "timeout",
    )


def test_throttle_fault_is_429_with_retry_after():
    rule = {
        "name": "rate",
        "service": "compute",
        "effect": {"type": "throttle", "rate": 0.5, "burst": 2},
    }
    world = FakeCloud(seed=1, faults=[rule], latency={"calls": {"*": 0}})
    with serve(world, ["digitalocean", "linode"]) as rest:
        codes = [
            requests.get(f"{DO}/droplets", headers=rest.headers("digitalocean")).status_code
            for _ in range(3)
        ]
        assert codes == [200, 200, 429]
        r = requests.get(f"{DO}/droplets", headers=rest.headers("digitalocean"))
        assert r.status_code == 429 and r.headers["Retry-After"] == "2"
        assert r.json()["id"] == "too_many_requests"
        r = requests.get(f"{LINODE}/linode/instances", headers=rest.headers("linode"))
        assert r.status_code == 429 and "Rate limit" in r.json()["errors"][0]["reason"]
    assert [f.rule_name for f in world.injected_faults()] == ["rate", "rate", "rate"]


def test_error_faults_keep_status_and_shape_or_custom_body():
    rules = [
        {"operation": "servers.list", "nth": 1, "effect": {"type": "error", "status": 500}},
        {
            "operation": "servers.list",
            "nth": 2,
            "effect": {
                "type": "error",
                "status": 503,
                "body": {"id": "maintenance", "message": "later"},
            },
        },
    ]
    world = FakeCloud(seed=1, faults=rules)
    with serve(world, ["digitalocean", "openstack"]) as rest:
        r = requests.get(f"{DO}/droplets", headers=rest.headers("digitalocean"))
        assert r.status_code == 500 and r.json()["id"] == "server_error"
        assert "Injected" in r.json()["message"]
        r = requests.get(f"{NOVA}/servers/detail", headers=rest.headers("openstack"))
        assert r.status_code == 503 and r.json() == {"id": "maintenance", "message": "later"}
        assert requests.get(f"{DO}/droplets", headers=rest.headers("digitalocean")).ok
    assert [f.effect for f in world.injected_faults()] == ["error", "error"]


def test_an_exception_inside_a_handler_is_a_500_and_a_reported_bug(server, monkeypatch):
    def broken(self, req):
        raise KeyError("surprise")

    monkeypatch.setattr(DigitalOcean, "list_sizes", broken)
    r = requests.get(f"{DO}/sizes", headers=server.headers("digitalocean"))
    assert r.status_code == 500 and r.json()["id"] == "server_error"
    assert "KeyError" in r.json()["message"]
    [bug] = server.bugs()
    assert (bug.method, bug.url, bug.error) == ("GET", f"{DO}/sizes", "KeyError: 'surprise'")
    assert "broken" in bug.where
    assert "Fake cloud bugs" in server.report().format()


def _script(seed: int) -> list[tuple[int, str]]:
    world = FakeCloud(seed=seed)
    out = []
    with serve(world) as rest:
        do_h, li_h, os_h = (rest.headers(d) for d in ("digitalocean", "linode", "openstack"))
        calls = [
            ("POST", f"{DO}/droplets", do_h, DROPLET),
            (
                "POST",
                f"{LINODE}/linode/instances",
                li_h,
                {"type": "g6-nanode-1", "region": "us-east", "image": "linode/cirros0.6"},
            ),
            (
                "POST",
                f"{NOVA}/servers",
                os_h,
                {"server": {"name": "n", "imageRef": "cirros", "flavorRef": "1"}},
            ),
            ("GET", f"{DO}/droplets", do_h, None),
            ("GET", f"{DO}/actions", do_h, None),
            ("GET", f"{LINODE}/linode/instances", li_h, None),
            ("GET", f"{NOVA}/servers/detail", os_h, None),
        ]
        for method, url, headers, body in calls:
            r = requests.request(method, url, json=body, headers=headers)
            out.append((r.status_code, r.text))
            world.clock.sleep_sync(7)
    return out


def test_same_seed_same_bodies_different_seed_different_ids():
    first = _script(5)
    assert first == _script(5)
    assert first != _script(6)
    assert all(status < 300 for status, _ in first)


def test_rest_sees_what_the_python_client_made_and_vice_versa(server, world):
    made = world.client("compute").servers.create("from-python", "fedora", "m1.small")
    droplets = requests.get(f"{DO}/droplets", headers=server.headers("digitalocean")).json()
    assert [d["name"] for d in droplets["droplets"]] == ["from-python"]
    assert droplets["droplets"][0]["image"]["slug"] == "fedora-39-x64"
    r = requests.post(
        f"{NOVA}/servers",
        json={"server": {"name": "from-rest", "imageRef": "cirros", "flavorRef": "1"}},
        headers=server.headers("openstack"),
    )
    sid = r.json()["server"]["id"]
    assert world.client("compute").servers.get(sid).name == "from-rest"
    names = {i.name for i in world.leaks()}
    assert {"from-python", "from-rest"} <= names
    trace = world.trace()
    assert [(t.operation, t.entity_id) for t in trace] == [
        ("servers.create", made.id),
        ("servers.list", None),
        ("tokens.issue", None),  # the static token runs as the admin keystone let in
        ("servers.create", None),  # the wire's nova traces the create without its id
        ("servers.get", sid),
    ]


def test_configuration_errors_name_the_dialect(world):
    with pytest.raises(ConfigurationError, match=r"dialects: unknown REST dialect 'aws'"):
        RestServer(world, ["aws"])
    with pytest.raises(ConfigurationError, match=r"tokens: unknown REST dialect 'gcp'"):
        RestServer(world, tokens={"gcp": "x"})
    with pytest.raises(ConfigurationError, match=r"tokens.linode: expected a non-empty string"):
        RestServer(world, tokens={"linode": ""})


def test_custom_base_urls_tokens_and_a_caller_owned_mock(world):
    mock = responses.RequestsMock(assert_all_requests_are_fired=False)
    with serve(
        world,
        ["digitalocean"],
        base_urls={"digitalocean": "http://do.local/api/v2/"},
        tokens={"digitalocean": "s3cret"},
        mock=mock,
    ) as rest:
        assert rest.base_url("digitalocean") == "http://do.local/api/v2"
        with mock:
            r = requests.get(
                "http://do.local/api/v2/regions", headers={"Authorization": "Bearer s3cret"}
            )
            assert r.status_code == 200 and r.json()["meta"]["total"] == 12
            assert requests.get("http://do.local/api/v2/regions").status_code == 401
    body = json.loads(r.text)
    assert body["regions"][0]["slug"] == "ams3"


SECTIONS = {
    "digitalocean": "DigitalOcean v2",
    "linode": "Linode v4",
    "hetzner": "Hetzner Cloud",
    "vultr": "Vultr v1",
    "cloudstack": "CloudStack",
}


def _section(page: str, title: str) -> str:
    body = page.split(f"\n{title}\n{'-' * len(title)}\n", 1)[1]
    return re.split(r"\n[^\n]+\n-{3,}\n", body, maxsplit=1)[0]


def test_the_docs_page_lists_every_served_route():
    page = (Path(__file__).parents[3] / "docs" / "fake-clouds-rest.rst").read_text()
    for name, cls in dialect_classes().items():
        assert cls.default_base_url in page and cls.default_token in page
        section = _section(page, SECTIONS[name])
        for r in cls.routes():
            assert f"{r.method:<6}  {r.template} " in section, (name, r.method, r.template)


def test_a_stopped_server_can_start_again_and_still_serves():
    cloud = FakeCloud(seed=5)
    server = RestServer(cloud, ("digitalocean",))
    url = server.base_url("digitalocean") + "/sizes"
    for _ in range(2):
        with server:
            reply = requests.get(url, headers=server.headers("digitalocean"), timeout=30)
            assert reply.status_code == 200
            assert reply.json()["sizes"]
