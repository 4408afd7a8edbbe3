"""Software configs and deployments on the Orchestration API: the same entities and config
agent the engine's deployment resources use."""

from __future__ import annotations

import pytest
from heatclient import exc as heat_exc


def test_software_config_create_show_list_delete(heat):
    made = heat.software_configs.create(
        name="cfg",
        group="script",
        config="#!/bin/sh\necho $foo",
        inputs=[{"name": "foo", "default": "bar"}],
        outputs=[{"name": "result"}],
        options={},
    )
    shown = heat.software_configs.get(made.id)
    assert shown.name == "cfg" and shown.group == "script"
    assert shown.inputs == [{"name": "foo", "default": "bar", "type": "String"}]
    assert shown.outputs == [{"name": "result", "type": "String", "error_output": False}]
    assert [c.id for c in heat.software_configs.list()] == [made.id]
    heat.software_configs.delete(made.id)
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.software_configs.get(made.id)


def test_a_deployment_runs_on_a_servers_agent_and_reports(heat, session, world):
    endpoint = session.get_endpoint(service_type="compute")
    image = next(
        i for i in session.get(f"{endpoint}/images").json()["images"] if i["name"] == "cirros"
    )
    server = session.post(
        f"{endpoint}/servers",
        json={
            "server": {
                "name": "vm",
                "imageRef": image["id"],
                "flavorRef": "1",
                "user_data": "IyEvYmluL3NoCg==",
                "networks": "none",
            }
        },
        headers={"X-OpenStack-Nova-API-Version": "2.37"},
    ).json()["server"]
    cfg = heat.software_configs.create(
        name="c",
        group="script",
        config="echo",
        inputs=[{"name": "foo"}],
        outputs=[{"name": "result"}],
        options={},
    )
    dep = heat.software_deployments.create(
        config_id=cfg.id,
        server_id=server["id"],
        input_values={"foo": "1", "plugsim_outputs": {"result": "42"}},
        action="CREATE",
        status="IN_PROGRESS",
        status_reason="Deploy data available",
    )
    assert dep.status == "IN_PROGRESS"
    meta = heat.software_deployments.metadata(server["id"])
    assert [m["deployment_id"] for m in meta] == [dep.id]
    assert {"name": "foo", "value": "1"} in meta[0]["inputs"]
    for _ in range(40):  # each request moves virtual time on: boot, agent, deployment
        shown = heat.software_deployments.get(dep.id)
        if shown.status != "IN_PROGRESS":
            break
    assert shown.status == "COMPLETE", shown.status_reason
    assert shown.output_values["result"] == "42"
    assert [d.id for d in heat.software_deployments.list(server_id=server["id"])] == [dep.id]
    heat.software_deployments.update(dep.id, status="COMPLETE", status_reason="by hand")
    assert heat.software_deployments.get(dep.id).status_reason == "by hand"
    heat.software_deployments.delete(dep.id)
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.software_deployments.get(dep.id)
