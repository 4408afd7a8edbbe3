"""A run's HTTP wire costs nothing until a request reaches it (issue 33).

``FakeCloud.http_wire()`` is entered around every engine run. It used to import and
build the Docker and BIG-IP applications (werkzeug routing maps, ``responses`` mocks)
each time, whether or not a plug-in made a request. Now only a hook is installed; what
answers a host is built when a request first reaches it, and reads the world live.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import requests

from fake_clouds import FakeCloud
from fake_clouds.http_refusal import refusal_message

ROOT = Path(__file__).resolve().parents[2]
#: what the Docker and BIG-IP wires (and the refusal) are built from
HEAVY = ("fake_clouds.docker.wire", "fake_clouds.bigip.wire", "werkzeug", "responses", "requests")


def _python(code: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_run_without_http_imports_no_wire() -> None:
    found = _python(
        f"""
        import json, sys
        from simulator.world import World
        world = World(seed=1)
        template = {{"heat_template_version": "2018-08-31",
                     "resources": {{"r": {{"type": "OS::Heat::RandomString"}}}}}}
        stack = world.create_stack("s", template)
        world.delete_stack("s")
        world.close()
        print(json.dumps({{"status": stack.status,
                          "loaded": [m for m in {HEAVY!r} if m in sys.modules]}}))
        """
    )
    assert found == {"status": "COMPLETE", "loaded": []}


def test_requests_imported_during_the_wire_is_still_refused() -> None:
    # requests is not imported before the wire: importing it inside must not open the network
    found = _python(
        """
        import json, sys
        from fake_clouds import FakeCloud
        cloud = FakeCloud(seed=1)
        before = "requests" in sys.modules
        with cloud.http_wire():
            import requests
            try:
                requests.get("http://api.vendor.test:8080/v1/things", timeout=1)
                said = "reached"
            except requests.exceptions.ConnectionError as ex:
                said = str(ex)
        genuine = requests.adapters.HTTPAdapter.send.__qualname__
        print(json.dumps({"before": before, "said": said, "after": genuine}))
        """
    )
    assert found["before"] is False
    assert found["said"] == refusal_message("GET", "http://api.vendor.test:8080/v1/things")
    assert found["after"] == "HTTPAdapter.send"


def test_a_lazily_built_docker_wire_reads_the_world_live() -> None:
    cloud = FakeCloud(seed=4)
    with cloud.http_wire():
        assert requests.get("http://docker.fake:2375/v1.45/containers/json").json() == []
        service = cloud.service("containers")
        service.pull("busybox")  # the world changes behind the wire's back
        made = service.create({"Image": "busybox"}, name="late")
        listed = requests.get("http://docker.fake:2375/v1.45/containers/json?all=1").json()
        assert [c["Id"] for c in listed] == [made["Id"]]
    assert requests.adapters.HTTPAdapter.send.__qualname__ == "HTTPAdapter.send"


def test_an_unserved_host_and_a_bigip_host_in_one_wire() -> None:
    cloud = FakeCloud(seed=4)
    with cloud.http_wire():
        with pytest.raises(requests.exceptions.ConnectionError) as refused:
            requests.post("https://api.contrail.test:8082/virtual-networks", json={})
        assert str(refused.value) == refusal_message(
            "POST", "https://api.contrail.test:8082/virtual-networks"
        )
        # a host that is no device of the world: the BIG-IP wire refuses it as a connection
        with pytest.raises(requests.exceptions.ConnectionError, match="no BIG-IP at 10.9.9.9"):
            requests.get("https://10.9.9.9/mgmt/tm/sys/folder", timeout=1)


def test_a_callers_own_mock_keeps_answering_inside_the_wire() -> None:
    import responses

    cloud = FakeCloud(seed=4)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.get("https://mine.test/ping", json={"pong": True})
        with cloud.http_wire():
            assert requests.get("https://mine.test/ping").json() == {"pong": True}
            assert requests.get("http://docker.fake:2375/v1.45/containers/json").json() == []
            with pytest.raises(requests.exceptions.ConnectionError, match="Responses"):
                requests.get("https://elsewhere.test/")  # the caller's mock says so, not ours


def test_a_wire_send_kept_after_the_run_passes_straight_through() -> None:
    # a library first imported during a run may keep the send in place then (responses does)
    cloud = FakeCloud(seed=4)
    url = "https://localhost:9/mgmt/tm/sys/folder"  # loopback, a port nothing listens on
    with cloud.http_wire():
        with pytest.raises(requests.exceptions.ConnectionError, match="no BIG-IP at localhost:9"):
            requests.get(url, timeout=1)
        kept = requests.adapters.HTTPAdapter.send
    assert kept is not requests.adapters.HTTPAdapter.send
    request = requests.Request("GET", url).prepare()
    with pytest.raises(requests.exceptions.ConnectionError) as failed:
        kept(requests.adapters.HTTPAdapter(), request, timeout=1)  # no fake answers any more
    assert "no BIG-IP" not in str(failed.value)


def test_the_wire_sends_docker_urls_where_the_docker_api_is_mounted() -> None:
    from fake_clouds.docker.api import DockerEngine
    from fake_clouds.http_wire import DOCKER_BASES

    assert DOCKER_BASES == (DockerEngine.default_base_url, *DockerEngine.aliases)


def test_the_wire_sends_bigip_urls_where_the_bigip_api_is_mounted() -> None:
    from fake_clouds.bigip.wire import URLS
    from fake_clouds.http_wire import BIGIP_URLS

    assert BIGIP_URLS.pattern == URLS.pattern


def test_a_layer_is_built_once_per_wire_and_only_for_its_hosts(monkeypatch) -> None:
    import fake_clouds.bigip.wire as bigip_wire
    import fake_clouds.docker.wire as docker_wire

    built: list[str] = []
    for module, cls in ((docker_wire, "DockerServer"), (bigip_wire, "BigIPServer")):
        real = getattr(module, cls).__init__

        def counting(self, *args, _real=real, _name=cls, **kwargs):  # noqa: ANN001, ANN002, ANN003
            built.append(_name)
            _real(self, *args, **kwargs)

        monkeypatch.setattr(getattr(module, cls), "__init__", counting)
    cloud = FakeCloud(seed=4)
    with cloud.http_wire():
        with pytest.raises(requests.exceptions.ConnectionError):
            requests.get("https://unserved.test/")
        assert built == []  # an unserved host builds neither
        for _ in range(3):
            requests.get("http://docker.fake:2375/v1.45/containers/json")
        assert built == ["DockerServer"]
    with cloud.http_wire():
        requests.get("http://docker.fake:2375/v1.45/containers/json")
    assert built == ["DockerServer", "DockerServer"]
