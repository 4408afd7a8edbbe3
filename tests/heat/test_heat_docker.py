"""A Heat plug-in driving ``docker.APIClient`` itself runs on the world's fake Docker Engine.

The fixture (``heat_docker_style/docker_box.py``) uses the Heat names and
client calls of openstack/heat's contrib ``heat_docker``; the world serves
the Docker Engine API while its actions run, so the real docker library
reaches the fake ``containers`` service.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fake_clouds.docker import add_docker_service
from simulator.heat_compat import use_heat_plugins
from simulator.store import Store
from simulator.world import World

pytest.importorskip(
    "docker", reason="the docker library is not installed (pip install 'plugsim[docker]')"
)

BOX = Path(__file__).resolve().parent / "heat_docker_style" / "docker_box.py"


def _world(seed: int = 3) -> World:
    world = World(Store(":memory:"), seed=seed)
    report = use_heat_plugins(world, BOX)
    assert report.errors == [] and "Test::Docker::Box" in report.mapping
    return world


def _template(**props: Any) -> dict[str, Any]:
    box = {"type": "Test::Docker::Box", "properties": {"image": "nginx", **props}}
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"box": box},
        "outputs": {
            "ip": {"value": {"get_attr": ["box", "network_ip"]}},
            "ports": {"value": {"get_attr": ["box", "network_tcp_ports"]}},
        },
    }


def _containers(world: World) -> list[Any]:
    return [i for i in world.cloud.inventory() if i.service == "containers"]


def test_create_suspend_resume_delete_drive_a_container() -> None:
    world = _world()
    stack = world.create_stack(
        "s",
        _template(
            docker_endpoint="tcp://docker.fake:2375",
            name="web",
            port_bindings={"80/tcp": 8080},
            read_only=True,  # validate() asks the engine's API version
        ),
    )
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    cid = stack.resources["box"].resource_id
    assert [(c.id, c.name, c.status) for c in _containers(world)] == [(cid, "web", "running")]
    assert stack.output("ip").startswith("172.17.")  # attributes read inspect over the wire
    assert stack.output("ports") == "8080"
    assert world.suspend_stack("s").state == "SUSPEND_COMPLETE"
    assert [c.status for c in _containers(world)] == ["exited"]
    assert world.resume_stack("s").state == "RESUME_COMPLETE"
    assert [c.status for c in _containers(world)] == ["running"]
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert _containers(world) == []
    world.close()


def test_the_local_socket_is_the_default_endpoint() -> None:
    world = _world()
    stack = world.create_stack("s", _template(cmd=["sleep", "3600"]))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert [c.status for c in _containers(world)] == ["running"]
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert _containers(world) == []
    world.close()


def test_a_fault_on_the_docker_api_fails_the_resource_clearly() -> None:
    world = _world()
    add_docker_service(world.cloud)
    world.cloud.set_faults(
        [
            {
                "service": "containers",
                "operation": "containers.start",
                "effect": {"type": "error", "status": 500, "message": "cgroup setup failed"},
            }
        ]
    )
    stack = world.create_stack("s", _template(docker_endpoint="tcp://docker.fake:2375"))
    assert stack.state == "CREATE_FAILED"
    reason = stack.resources["box"].status_reason
    assert "500 Server Error" in reason and "cgroup setup failed" in reason
    assert "/containers/" in reason and "/start" in reason
    # Like heat_docker, the fixture's delete kills first and forgives only a 404: Docker
    # answers 409 for a container that never ran, so the delete fails and the container leaks.
    deleted = world.delete_stack("s")
    assert deleted.state == "DELETE_FAILED"
    assert "409 Client Error" in deleted.resources["box"].status_reason
    assert "is not running" in deleted.resources["box"].status_reason
    assert [(c.kind, c.status) for c in world.cloud.leaks()] == [("container", "created")]
    world.close()


def test_a_process_that_exits_non_zero_fails_create_with_its_output() -> None:
    world = _world()
    add_docker_service(world.cloud).define_image(
        "crashy", logs=["fatal: no config"], exits_after=0.1, exit_code=2
    )
    stack = world.create_stack("s", _template(image="crashy"))
    assert stack.state == "CREATE_FAILED"
    assert 'ResourceInError: resources.box: Went to status exited due to "fatal: no config"' in (
        stack.status_reason
    )
    world.close()


def test_an_image_the_registry_lacks_fails_create_with_dockers_message() -> None:
    world = _world()
    stack = world.create_stack("s", _template(image="nosuch"))
    assert stack.state == "CREATE_FAILED"
    assert "pull access denied for nosuch" in stack.resources["box"].status_reason
    assert _containers(world) == []
    world.close()


def test_the_same_seed_gives_the_same_container_and_events() -> None:
    def run() -> tuple[str, list[tuple[Any, ...]]]:
        world = _world(seed=11)
        stack = world.create_stack("s", _template(docker_endpoint="tcp://docker.fake:2375"))
        cid = stack.resources["box"].resource_id
        events = [(e.resource_name, e.action, e.status, e.time) for e in world.stack_events("s")]
        world.close()
        return cid, events

    assert run() == run()


def test_a_world_reopened_from_its_file_keeps_its_containers(tmp_path: Path) -> None:
    state = str(tmp_path / "world.db")
    world = World(Store(state), seed=5)
    use_heat_plugins(world, BOX)
    assert world.create_stack("s", _template(name="web")).state == "CREATE_COMPLETE"
    world.close()
    world = World(Store(state))
    use_heat_plugins(world, BOX)
    assert [(c.name, c.status) for c in _containers(world)] == [("web", "running")]
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert _containers(world) == []
    world.close()
