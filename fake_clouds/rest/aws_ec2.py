"""Amazon EC2's query API through moto, with the world owning the instances' lifecycle.

moto (``pip install moto``) is a well-kept fake of AWS: it parses EC2's
query API (``?Action=RunInstances&...``, signed with SigV2 or SigV4), keeps
AMIs, VPCs, subnets, security groups, key pairs and instances, and answers
with EC2's XML and error codes. This module hands it the requests a client
(Salt's ec2 driver signs its own calls and sends them with ``requests``)
makes to ``https://ec2.REGION.amazonaws.com/``, on the same ``responses``
mock as the REST dialects - no server, no socket.

What plugsim adds around moto, so EC2 behaves like the world's other clouds:

* every instance moto launches has a *mirror*: a compute server of the world
  (the smallest flavor, the world's ``ubuntu`` image, on the external network). The mirror's transitions
  are EC2's instance states in virtual time - ``pending`` while it builds,
  ``running``, ``stopping``/``stopped``, ``shutting-down`` while it is
  deleted, ``terminated`` - and the answers moto gives are rewritten to show
  them. Leak checks, the simulated deploy (moto's addresses resolve to the
  mirror's) and ``plugsim`` reports see EC2 instances like any server.
* the instance calls (RunInstances, TerminateInstances, DescribeInstances,
  Start/Stop/RebootInstances) run as the compute operations ``servers.*``:
  seeded latency and fault rules apply to them, errors become EC2's XML
  errors (429 is ``RequestLimitExceeded``), timeouts ``requests`` timeouts.
  Other actions cost the latency ``rest.ec2.<Action>`` and are never faulted.
* moto's random ids are seeded from the world's seed and its launch times are
  the world's virtual time, so the same seed gives the same answers.

What it does not give: moto's state is one per process (one EC2 world at a
time; it is reset when a world starts serving EC2) and is not stored with a
world - only the instances are: each mirror keeps the instance's id, region,
launch parameters and tags, and a reopened world launches them again in moto
under their old ids. moto's other resources (volumes, addresses, images,
security groups) follow moto's rules, not the world's clock or faults, and
are not kept.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import sys
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import requests

from fake_clouds.core.scope import acting_as
from fake_clouds.rest.accounts import caller_for
from fake_clouds.rest.common import EPOCH, rest_state
from sdk import exception

#: EC2 endpoints moto answers here.
EC2_URL = re.compile(r"^https?://ec2\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?(/[^?#]*)?(\?.*)?$")
#: EC2 action -> the compute operation it stands for (faults and latency apply).
OPERATIONS = {
    "RunInstances": "servers.create",
    "TerminateInstances": "servers.delete",
    "DescribeInstances": "servers.list",
    "StartInstances": "servers.start",
    "StopInstances": "servers.stop",
    "RebootInstances": "servers.reboot",
}
MIRROR_KEY = "aws:instance_id"
REGION_KEY = "aws:region"
LAUNCH_KEY = "aws:launch"
TAGS_KEY = "aws:tags"
#: RunInstances parameters a mirror keeps, so a reopened world can launch the instance again.
_KEPT = ("ImageId", "InstanceType", "KeyName", "Placement.AvailabilityZone", "SecurityGroup.")
#: The world's server status (task) -> EC2 instance state (code, name).
_STATES = {
    "BUILD": (0, "pending"),
    "ACTIVE": (16, "running"),
    "REBOOT": (16, "running"),
    "HARD_REBOOT": (16, "running"),
    "SHUTOFF": (80, "stopped"),
    "ERROR": (80, "stopped"),
}
_TASKS = {"deleting": (32, "shutting-down"), "powering-off": (64, "stopping")}
_TERMINATED = (48, "terminated")
#: EC2 error codes for the statuses a fault rule or the world raises.
_CODES = {
    400: "InvalidParameterValue",
    403: "UnauthorizedOperation",
    404: "InvalidInstanceID.NotFound",
    409: "IncorrectInstanceState",
    413: "InstanceLimitExceeded",
    429: "RequestLimitExceeded",
    500: "InternalError",
    503: "Unavailable",
}


def moto_available() -> bool:
    """True when moto can be imported (``pip install 'plugsim[aws]'``)."""
    return importlib.util.find_spec("moto") is not None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


class MotoEC2:
    """moto's EC2 on a ``responses`` mock, its instances mirrored in one world."""

    name = "ec2"

    def __init__(self, rest: Any) -> None:
        """Serve EC2 for the RestServer *rest* (its world, mock and report)."""
        from moto.backends import get_backend
        from moto.core.base_backend import BackendDict
        from moto.core.botocore_stubber import BotocoreStubber
        from moto.moto_api._internal import mock_random

        self.rest = rest
        self.cloud = rest.cloud
        BackendDict.reset()
        get_backend("ec2")  # imported now: its URL patterns join moto's index
        self._random = mock_random
        self._seed = self.cloud.rng.stream("aws").getrandbits(64)
        self._seeded: set[str] = set()
        self.stubber = BotocoreStubber()
        #: instance id -> the mirror's server id.
        self.mirrors: dict[str, str] = {}
        self._restore()
        for method in ("GET", "POST"):
            rest.mock.add_callback(method, EC2_URL, callback=self._callback)

    # --- the request pipeline -------------------------------------------------------------

    def _callback(self, prepared: requests.PreparedRequest) -> Any:
        params = dict(parse_qsl(urlsplit(prepared.url or "").query, keep_blank_values=True))
        body = prepared.body
        if body:
            text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
            params.update(parse_qsl(text, keep_blank_values=True))
        action = params.get("Action", "")
        start = self.cloud.now()
        url = prepared.url or ""
        operation = OPERATIONS.get(action)
        box: dict[str, Any] = {}

        def perform() -> Any:
            box["reply"] = self._moto(prepared, action, params)
            ids = box.get("instances") or []
            return {"id": self.mirrors.get(ids[0])} if ids and ids[0] in self.mirrors else None

        try:
            if operation is None:
                rnd = self.cloud.rng.stream("latency")
                self.cloud.clock.charge(self.cloud.latency.call("rest", f"ec2.{action}", rnd))
                perform()
            else:
                compute = self.cloud.service("compute")
                self.cloud.dispatch(compute, operation, "server", None, perform)
            status, headers, text = box["reply"]
        except exception.ClientTimeout as ex:
            self.rest._record(start, _Named(), _Req(prepared), action, None, "Timeout")
            return requests.exceptions.ReadTimeout(f"{prepared.method} {url}: {ex}")
        except exception.ClientError as ex:
            status, headers, text = self.error(ex.code, str(ex))
        except Exception as ex:  # noqa: BLE001 - a bug of the wrapper or moto never reaches the client
            error = f"{type(ex).__name__}: {ex}"
            self.rest.record_bug("ec2", prepared.method or "GET", url, error, action)
            status, headers, text = self.error(500, f"Internal error in the fake EC2 ({error})")
        if status == 404 and "Not yet implemented" in str(text):
            endpoint = f"{url.split('?', 1)[0]}?Action={action}"
            self.rest._unserved[("ec2", prepared.method or "GET", endpoint)] += 1
            status, headers, text = self.error(
                400, f"plugsim's EC2 (moto) does not serve Action={action}", "InvalidAction"
            )
        self.rest._record(start, _Named(), _Req(prepared), action, status, "ok")
        return status, dict(headers), text

    def _moto(self, prepared: requests.PreparedRequest, action: str, params: dict[str, str]):
        prepared = one_based(prepared)
        found = EC2_URL.match(prepared.url or "")
        self._ready(found.group(1) if found else "us-east-1")

        def virtual_utcnow() -> datetime:
            return (EPOCH + timedelta(seconds=self.cloud.now())).replace(tzinfo=None)

        # moto's EC2 stamps launch and attach times with utcnow(): virtual time instead.
        patched = [
            m
            for n, m in sorted(sys.modules.items())
            if n.startswith("moto.ec2") and callable(getattr(m, "utcnow", None))
        ]
        saved = [m.utcnow for m in patched]
        for module in patched:
            module.utcnow = virtual_utcnow
        try:
            if action == "RunInstances":
                status, headers, body = self._run(prepared, params)
            else:
                self._before(action, params)
                status, headers, body = self._stub(prepared)
                if status == 200 and action in ("CreateTags", "DeleteTags"):
                    self._keep_tags(prepared, params)
        finally:
            for module, original in zip(patched, saved, strict=True):
                module.utcnow = original
        if status == 200:
            body = self._rewrite(body)
        return status, headers, body

    def _stub(self, prepared: requests.PreparedRequest) -> tuple[int, Any, Any]:
        """Return moto's answer; an action moto does not know is "Not yet implemented"."""
        from botocore.model import OperationNotFoundError

        try:
            answer = self.stubber.process_prepared_request(prepared)
        except (OperationNotFoundError, NotImplementedError):
            answer = None
        # moto 5.2 answers an action it has no route for with an empty 404 instead of raising.
        if answer is None or (answer[0] == 404 and not answer[2]):
            return 404, {}, "Not yet implemented"
        return answer

    def error(self, status: int, message: str, code: str | None = None) -> tuple[int, dict, str]:
        """Return EC2's XML error reply."""
        code = code or _CODES.get(status, "InternalError")
        if status == 429:
            status = 503  # EC2 throttles with 503 RequestLimitExceeded
        root = ET.Element("Response")
        errors = ET.SubElement(ET.SubElement(root, "Errors"), "Error")
        ET.SubElement(errors, "Code").text = code
        ET.SubElement(errors, "Message").text = message
        ET.SubElement(root, "RequestID").text = self.cloud.new_id()
        return status, {"Content-Type": "text/xml"}, ET.tostring(root, encoding="unicode")

    # --- mirrors --------------------------------------------------------------------------

    def _run(self, prepared: requests.PreparedRequest, params: dict[str, str]):
        compute = self.cloud.service("compute")
        # Quota and validation of the world first: a refused launch leaves moto untouched.
        images = compute.list_images()
        image = next((i for i in images if i["name"] == "ubuntu"), images[0])
        flavor = min(compute.list_flavors(), key=lambda f: (f["ram"], f["vcpus"], f["id"]))
        networks = []
        if "network" in self.cloud.service_names():
            public = [
                n for n in self.cloud.service("network").list_networks() if n.get("router:external")
            ]
            networks = [{"uuid": public[0]["id"]}] if public else []
        status, headers, body = self._stub(prepared)
        if status != 200:
            return status, headers, body
        found = EC2_URL.match(prepared.url or "")
        region = found.group(1) if found else "us-east-1"
        kept = {k: v for k, v in sorted(params.items()) if k.startswith(_KEPT)}
        root = ET.fromstring(body)
        for item in root.iter():
            if _local(item.tag) != "instancesSet":
                continue
            for inst in item:
                iid = self._text(inst, "instanceId")
                with acting_as(caller_for("ec2", _access_key(prepared))):  # the key's account
                    server = compute.create_server(
                        iid,
                        image["id"],
                        flavor["id"],
                        networks=networks,
                        metadata={
                            MIRROR_KEY: iid,
                            REGION_KEY: region,
                            LAUNCH_KEY: json.dumps(kept, sort_keys=True),
                        },
                    )
                self.mirrors[iid] = server["id"]
                self._alias(server, inst)
        return status, headers, body

    def _alias(self, server: dict[str, Any], inst: ET.Element) -> None:
        ours = [a["addr"] for net in (server.get("addresses") or {}).values() for a in net]
        if not ours:
            return
        for field in ("ipAddress", "privateIpAddress"):
            shown = self._text(inst, field)
            if shown:
                rest_state(self.cloud).aliases[shown] = ours[0]

    def _ready(self, region: str) -> None:
        """Build moto's backend of *region*, then seed moto's ids from the world's seed.

        moto's reset may rebuild a region's backend at once or leave it to the
        first request (it caches them per process); building it before seeding
        makes the ids depend on the world's seed and the calls only.
        """
        if region in self._seeded:
            return
        self._backend(region)
        self._seeded.add(region)
        digest = hashlib.sha256(f"{self._seed}:{region}".encode()).hexdigest()
        self._random.seed(int(digest[:16], 16))

    def _backend(self, region: str) -> Any:
        from moto.core import DEFAULT_ACCOUNT_ID
        from moto.ec2.models import ec2_backends

        return ec2_backends[DEFAULT_ACCOUNT_ID][region]

    def _keep_tags(self, prepared: requests.PreparedRequest, params: dict[str, str]) -> None:
        """Copy a mirrored instance's tags into its mirror (a reopened world restores them)."""
        found = EC2_URL.match(prepared.url or "")
        region = found.group(1) if found else "us-east-1"
        compute = self.cloud.service("compute")
        for key, iid in sorted(params.items()):
            if not key.startswith("ResourceId.") or iid not in self.mirrors:
                continue
            tags = dict(self._backend(region).tags.get(iid, {}))
            compute.set_server_metadata(
                self.mirrors[iid], {TAGS_KEY: json.dumps(tags, sort_keys=True)}
            )

    def _restore(self) -> None:
        """Launch again, in moto, the instances a reopened world's mirrors stand for.

        moto's state lives in the process; the world keeps, in each mirror's
        metadata, the instance id, region, launch parameters and tags. The
        instance is launched again with them and given its old id; its state
        is the mirror's anyway.
        """
        compute = self.cloud.service("compute")
        for server in compute.list_servers():
            meta = server.get("metadata") or {}
            iid = meta.get(MIRROR_KEY)
            if not iid or iid in self.mirrors:
                continue
            region = meta.get(REGION_KEY) or "us-east-1"
            query = {
                "Action": "RunInstances",
                "MinCount": "1",
                "MaxCount": "1",
                "Version": "2016-11-15",
                **json.loads(meta.get(LAUNCH_KEY) or "{}"),
            }
            url = f"https://ec2.{region}.amazonaws.com/"
            prepared = requests.Request("GET", url, params=query).prepare()
            self._ready(region)
            status, _, body = self._stub(prepared)
            if status != 200:
                continue
            text = body.decode() if isinstance(body, bytes) else str(body)
            launched = text.split("<instanceId>", 1)[1].split("<", 1)[0]
            backend = self._backend(region)
            instance = backend.get_instance(launched)
            instance.id = iid
            tags = json.loads(meta.get(TAGS_KEY) or "{}")
            if tags:
                backend.create_tags([iid], tags)
            self.mirrors[iid] = server["id"]
            ours = [a["addr"] for net in (server.get("addresses") or {}).values() for a in net]
            for shown in (instance.public_ip, instance.private_ip):
                if shown and ours:
                    rest_state(self.cloud).aliases[shown] = ours[0]

    def _before(self, action: str, params: dict[str, str]) -> None:
        """Apply an instance action to the mirrors (the world decides whether it may happen)."""
        ids = [v for k, v in sorted(params.items()) if k.startswith("InstanceId.")]
        compute = self.cloud.service("compute")
        for iid in ids:
            server_id = self.mirrors.get(iid)
            if server_id is None:
                continue
            current = {s["id"]: s for s in compute.list_servers()}.get(server_id)
            if current is None:
                continue
            if action == "TerminateInstances":
                compute.delete_server(server_id)
            elif action == "StopInstances" and current["status"] == "ACTIVE":
                compute.stop_server(server_id)
            elif action == "StartInstances" and current["status"] == "SHUTOFF":
                compute.start_server(server_id)
            elif action == "RebootInstances" and current["status"] == "ACTIVE":
                compute.reboot_server(server_id, "SOFT")

    def state_of(self, iid: str) -> tuple[int, str] | None:
        """Return the EC2 state (code, name) of instance *iid* from its mirror (None: no mirror)."""
        server_id = self.mirrors.get(iid)
        if server_id is None:
            return None
        current = {s["id"]: s for s in self.cloud.service("compute").list_servers()}
        server = current.get(server_id)
        if server is None:
            return _TERMINATED
        task = server.get("OS-EXT-STS:task_state")
        return _TASKS.get(task or "", _STATES.get(server["status"], (0, "pending")))

    def _rewrite(self, body: Any) -> Any:
        """Show each mirrored instance's state in moto's answer; give it EC2's shape.

        EC2's answers start with ``<requestId>`` and boolean actions answer
        ``<return>true</return>``; some of moto's lack one or the other (its
        DescribeInstances, CreateTags), and clients that read the answer by
        position (Salt's ``salt.utils.aws.query`` takes the second child) need both.
        """
        text = body.decode() if isinstance(body, bytes) else str(body)
        if not text.lstrip().startswith("<"):
            return body
        root = ET.fromstring(text)
        namespace = root.tag[1:].split("}", 1)[0] if root.tag.startswith("{") else ""
        if namespace:
            ET.register_namespace("", namespace)
        if not len(root) or _local(root[0].tag) != "requestId":
            request_id = ET.Element(f"{{{namespace}}}requestId" if namespace else "requestId")
            request_id.text = self.cloud.new_id()
            root.insert(0, request_id)
        if len(root) == 1:  # EC2's boolean actions (CreateTags ...) answer <return>true</return>
            ET.SubElement(root, f"{{{namespace}}}return" if namespace else "return").text = "true"
        for item in root.iter():
            iid = self._text(item, "instanceId")
            state = self.state_of(iid) if iid else None
            if state is None:
                continue
            for child in item:
                if _local(child.tag) in ("instanceState", "currentState"):
                    for part in child:
                        if _local(part.tag) == "code":
                            part.text = str(state[0])
                        elif _local(part.tag) == "name":
                            part.text = state[1]
        return ET.tostring(root, encoding="unicode")

    @staticmethod
    def _text(element: ET.Element, name: str) -> str | None:
        for child in element:
            if _local(child.tag) == name:
                return child.text
        return None

    def leaks(self) -> list[str]:
        """Return the instances moto still has that are not terminated (their ids, sorted)."""
        return sorted(i for i in self.mirrors if self.state_of(i) != _TERMINATED)


_INDEXED = re.compile(r"^([A-Za-z]+)\.(\d+)(\..*)?$")


def one_based(prepared: requests.PreparedRequest) -> requests.PreparedRequest:
    """Return *prepared* with 0-based list parameters (``Tag.0.Key``) renumbered from 1.

    EC2 takes any index in its query lists (Salt's ec2 driver sends ``Tag.0.Key``);
    moto reads them from 1 and would drop the first item. Nothing else changes.
    """
    parts = urlsplit(prepared.url or "")
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    zero = {m.group(1) for k, _ in pairs if (m := _INDEXED.match(k)) and m.group(2) == "0"}
    if not zero:
        return prepared

    def shift(key: str) -> str:
        m = _INDEXED.match(key)
        if m is None or m.group(1) not in zero:
            return key
        return f"{m.group(1)}.{int(m.group(2)) + 1}{m.group(3) or ''}"

    fixed = prepared.copy()
    query = urlencode([(shift(k), v) for k, v in pairs])
    fixed.url = parts._replace(query=query).geturl()
    return fixed


class _Named:
    name = "ec2"


class _Req:
    def __init__(self, prepared: requests.PreparedRequest) -> None:
        self.method = prepared.method or "GET"
        self.url = prepared.url or ""


def _access_key(prepared: requests.PreparedRequest) -> str | None:
    """Return the access key id a SigV4-signed request names (``Credential=KEY/...``)."""
    header = str(prepared.headers.get("Authorization", ""))
    _, sep, rest = header.partition("Credential=")
    return rest.split("/", 1)[0] or None if sep else None
