"""Vultr v1 over plain ``requests``: key in the query, form bodies, servers and errors."""

from __future__ import annotations

import requests

V1 = "https://api.vultr.com/v1"


def test_servers_with_the_key_in_the_query(world, server):
    key = {"api_key": server.token("vultr")}
    assert requests.get(f"{V1}/server/list", params={"api_key": "wrong"}).status_code == 403
    made = requests.post(
        f"{V1}/server/create",
        params=key,
        data={"DCID": "1", "VPSPLANID": "201", "OSID": "1743", "label": "web-1"},
    )
    assert made.status_code == 200, made.text
    subid = made.json()["SUBID"]
    one = requests.get(f"{V1}/server/list", params={**key, "SUBID": subid}).json()
    assert (one["status"], one["main_ip"], one["VPSPLANID"]) == ("pending", "0.0.0.0", "201")
    world.clock.advance(300)
    listed = requests.get(f"{V1}/server/list", params=key).json()
    assert listed[subid]["status"] == "active" and listed[subid]["os"] == "Ubuntu 22.04 x64"
    assert listed[subid]["main_ip"].startswith("100.64.")
    gone = requests.post(f"{V1}/server/destroy", params=key, data={"SUBID": subid})
    assert gone.status_code == 200 and gone.text == ""
    world.clock.advance(300)
    assert requests.get(f"{V1}/server/list", params=key).json() == {}


def test_catalogue_and_a_bad_plan(server):
    key = {"api_key": server.token("vultr")}
    plans = requests.get(f"{V1}/plans/list", params=key).json()
    assert plans["201"]["name"] == "1024 MB RAM,25 GB SSD,1.00 TB BW"
    assert requests.get(f"{V1}/regions/list", params=key).json()["1"]["name"] == "New Jersey"
    bad = requests.post(
        f"{V1}/server/create", params=key, data={"DCID": "1", "VPSPLANID": "9", "OSID": "160"}
    )
    assert bad.status_code == 412 and "Invalid VPSPLANID" in bad.json()
