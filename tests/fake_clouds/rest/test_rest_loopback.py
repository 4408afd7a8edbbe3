"""The provider APIs over a real socket: ``plugsim serve`` and the providers' own clients.

One server for the module (``--time-scale 100``: a deletion due in 30 virtual
seconds is done a fraction of a wall second later). Each client reads its URL
and token from the ``providers.yaml`` the server wrote and runs create → list
→ delete unmodified.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
import yaml

PLUGSIM = Path(sys.executable).with_name("plugsim")


def _serve(tmp: Path, *extra: str) -> tuple[subprocess.Popen[str], list[str]]:
    proc = subprocess.Popen(
        [str(PLUGSIM), "serve", "--port", "0", "--state", str(tmp / "w.db"), "--seed", "5"]
        + ["--time-scale", "100", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    lines = [proc.stdout.readline() for _ in range(2)]  # type: ignore[union-attr]
    assert lines[0].startswith("auth URL: http://127.0.0.1:"), lines[0] + proc.stderr.read()  # type: ignore[union-attr]
    return proc, lines


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGTERM)
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("plugsim serve did not stop within 30 s of SIGTERM")
    assert proc.returncode == 0, err
    return out + err


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(providers.yaml's providers, the world file) of a running ``plugsim serve``."""
    tmp = tmp_path_factory.mktemp("served")
    proc, _ = _serve(tmp)
    line = proc.stdout.readline()  # type: ignore[union-attr]
    try:
        assert line.startswith("providers.yaml: "), line
        config = yaml.safe_load((tmp / "providers.yaml").read_text())["providers"]
        yield config, tmp / "w.db"
    finally:
        _stop(proc)


def _until(fetch, done, wall=15.0):
    deadline = time.monotonic() + wall
    while not done(value := fetch()):
        assert time.monotonic() < deadline, value
        time.sleep(0.05)
    return value


def test_providers_yaml_names_each_provider_under_its_own_path(served):
    config, _ = served
    assert sorted(config) == ["cloudstack", "digitalocean", "hetzner", "linode", "vultr"]
    base = config["digitalocean"]["url"].rsplit("/digitalocean/", 1)[0]
    assert config["digitalocean"]["url"] == f"{base}/digitalocean/v2"
    assert config["linode"]["url"] == f"{base}/linode/v4"
    assert config["hetzner"]["env"] == {
        "HCLOUD_TOKEN": "plugsim-hetzner-token",
        "HCLOUD_ENDPOINT": f"{base}/hetzner/v1",
    }


def test_digitalocean_over_a_socket_answers_as_in_process(served):
    config, _ = served
    do = config["digitalocean"]
    s = requests.Session()
    s.headers["Authorization"] = f"Bearer {do['token']}"
    body = {"name": "sock-1", "region": "nyc3", "size": "s-1vcpu-2gb", "image": "ubuntu-22-04-x64"}
    r = s.post(f"{do['url']}/droplets", json=body, timeout=10)
    assert r.status_code == 202, r.text
    number = r.json()["droplet"]["id"]
    # the action's link is the served URL, not the real provider's
    assert r.json()["links"]["actions"][0]["href"].startswith(f"{do['url']}/actions/")
    assert s.get(f"{do['url']}/droplets/{number}", timeout=10).json()["droplet"]["name"] == "sock-1"
    assert s.delete(f"{do['url']}/droplets/{number}", timeout=10).status_code == 204
    _until(
        lambda: s.get(f"{do['url']}/droplets/{number}", timeout=10).status_code,
        lambda code: code == 404,
    )
    wrong = requests.get(f"{do['url']}/droplets", timeout=10)
    assert wrong.status_code == 401 and wrong.json()["id"] == "unauthorized"
    unserved = s.get(f"{do['url']}/kubernetes/clusters", timeout=10)
    assert unserved.status_code == 404 and "does not serve GET" in unserved.json()["message"]


def test_hcloud_creates_lists_and_deletes(served):
    hcloud = pytest.importorskip("hcloud")
    from hcloud.images import Image
    from hcloud.server_types import ServerType

    config, _ = served
    client = hcloud.Client(token=config["hetzner"]["token"], api_endpoint=config["hetzner"]["url"])
    made = client.servers.create(
        name="hc-1", server_type=ServerType(name="cx22"), image=Image(name="ubuntu-22.04")
    )
    assert "hc-1" in [s.name for s in client.servers.get_all()]
    client.servers.delete(made.server)
    _until(lambda: [s.name for s in client.servers.get_all()], lambda names: "hc-1" not in names)


def test_linode_api4_creates_lists_and_deletes(served):
    linode_api4 = pytest.importorskip("linode_api4")
    config, _ = served
    client = linode_api4.LinodeClient(config["linode"]["token"], base_url=config["linode"]["url"])
    made = client.linode.instance_create(
        "g6-nanode-1", "us-east", image="linode/ubuntu22.04", label="li-1", root_pass="Pl-ugsim-9!"
    )
    assert "li-1" in [i.label for i in client.linode.instances()]
    made.delete()
    _until(lambda: [i.label for i in client.linode.instances()], lambda names: "li-1" not in names)


def test_pydo_creates_lists_and_deletes(served):
    pydo = pytest.importorskip("pydo")
    config, _ = served
    endpoint = config["digitalocean"]["url"].rsplit("/v2", 1)[0]
    client = pydo.Client(token=config["digitalocean"]["token"], endpoint=endpoint)
    plain = {"enforce_https": False}  # azure-core sends a bearer token only over TLS by default
    body = {"name": "pydo-1", "region": "nyc3", "size": "s-1vcpu-1gb", "image": "ubuntu-22-04-x64"}
    number = client.droplets.create(body=body, **plain)["droplet"]["id"]
    assert "pydo-1" in [d["name"] for d in client.droplets.list(**plain)["droplets"]]
    client.droplets.destroy(number, **plain)
    _until(
        lambda: [d["name"] for d in client.droplets.list(**plain)["droplets"]],
        lambda names: "pydo-1" not in names,
    )


@pytest.mark.material
def test_provider_none_serves_openstack_only_and_an_unknown_name_is_one_line(tmp_path):
    proc, _ = _serve(tmp_path, "--provider", "none")
    out = _stop(proc)
    assert "providers.yaml" not in out and not (tmp_path / "providers.yaml").exists()
    bad = subprocess.run(
        [
            str(PLUGSIM),
            "serve",
            "--state",
            str(tmp_path / "x.db"),
            "--provider",
            "digitalocean,aws",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2
    assert "unknown provider 'aws'" in bad.stderr and "Traceback" not in bad.stderr
