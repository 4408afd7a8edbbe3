"""Apache CloudStack's API (``https://HOST/client/api?command=...``), as libcloud calls it.

CloudStack has one endpoint: every call is ``GET`` (or ``POST`` for long
user data) of the API path with ``command=NAME``, the caller's ``apiKey``,
``response=json`` and a ``signature`` - the base64 HMAC-SHA1, keyed by the
secret key, of the parameters sorted by lower-case name, URL-encoded and
lower-cased. Replies are ``{"<command>response": {...}}``; listings carry
``count`` and a list named after the kind (``{"zone": [...]}``), or are empty
objects when nothing matches. Changes (deploy, destroy, start, stop, reboot)
are asynchronous: the reply is a ``jobid`` that ``queryAsyncJobResult``
reports as pending (``jobstatus`` 0) until the transition it started is due
in virtual time, then done (1, with the virtual machine) or failed (2).

The zone is a *basic zone with security groups* (Salt's driver always asks for
the ``default`` group): a virtual machine's NIC is on the world's external
network, its address shown like Linode's (see
:meth:`fake_clouds.rest.linode.Linode.public_address`). Service offerings are
CloudStack's stock ones (``Small Instance``, ``Medium Instance``) running on
the smallest flavor that fits; templates are the world's images by family.
``startvm=false`` is honoured: the machine is stopped as soon as it has been
built (CloudStack never starts it; the fake passes through ``Running``).
"""

from __future__ import annotations

import hmac
import weakref
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from fake_clouds.rest.cloudstack_catalogue import (
    OFFERINGS,
    TEMPLATES,
    ZONES,
    CatalogueRoutes,
    sign,
    stable_id,
)
from fake_clouds.rest.common import Action, entity, iso, rest_state
from fake_clouds.rest.dialect import Dialect, Reply, Request, route

TASK = "OS-EXT-STS:task_state"
OFFERING_KEY = "cloudstack:serviceofferingid"
TEMPLATE_KEY = "cloudstack:templateid"
DISPLAY_KEY = "cloudstack:displayname"
_STATE = {
    "BUILD": "Starting",
    "ACTIVE": "Running",
    "SHUTOFF": "Stopped",
    "REBOOT": "Starting",
    "HARD_REBOOT": "Starting",
    "ERROR": "Error",
}
_TASK_STATE = {"powering-off": "Stopping", "powering-on": "Starting", "deleting": "Expunging"}
_CMD = "org.apache.cloudstack.api.command.user.vm."
_SERVER = ("compute", "servers.get", "server")


@dataclass
class Job:
    """One asynchronous job: the command, its virtual machine, the action it waits for."""

    id: str
    command: str
    vm_id: str
    created: float
    action: Action
    then_stop: bool = False
    last_view: dict[str, Any] | None = None


_JOBS: weakref.WeakKeyDictionary[Any, dict[str, Job]] = weakref.WeakKeyDictionary()


def jobs_of(cloud: Any) -> dict[str, Job]:
    """Return the asynchronous jobs of *cloud* (shared by every server of that world)."""
    jobs = _JOBS.get(cloud)
    if jobs is None:
        jobs = _JOBS[cloud] = {}
    return jobs


class CloudStack(CatalogueRoutes, Dialect):
    """The CloudStack dialect (one endpoint; routes are ``/<command>``)."""

    name = "cloudstack"
    default_base_url = "https://localhost/client/api"
    default_token = "plugsim-cloudstack-key"
    status_map = {  # noqa: RUF012 - CloudStack's own error codes
        400: 431,
        404: 431,
        409: 537,
        413: 535,
        422: 431,
        429: 436,
        500: 530,
        503: 530,
    }

    # --- the single endpoint --------------------------------------------------------------

    def params(self, req: Request) -> dict[str, str]:
        """Return the call's parameters (query and form body), names as sent."""
        found = {k: v[0] for k, v in req.query.items() if v}
        if req.method == "POST" and req.body:
            text = req.body.decode("utf-8", "replace")
            found.update(parse_qsl(text, keep_blank_values=True))
        return found

    def param(self, req: Request, name: str) -> str | None:
        """Return parameter *name* (CloudStack's names are case-insensitive)."""
        for key, value in self.params(req).items():
            if key.lower() == name.lower():
                return value
        return None

    def route_path(self, req: Request) -> str:
        """Route by ``command``: ``/listZones`` (``/`` when it is missing)."""
        return "/" + (self.param(req, "command") or "")

    def endpoint(self, req: Request) -> str:
        """The endpoint a request stands for in reports: the URL and its command."""
        base = req.url.split("?", 1)[0]
        return f"{base}?command={self.param(req, 'command') or ''}"

    def authenticate(self, req: Request) -> bool:
        """The API key must be known and the signature made with a known secret key."""
        known = {self.token, *self.accepted}
        params = self.params(req)
        key = self.param(req, "apiKey")
        signature = self.param(req, "signature")
        if key not in known or not signature:
            return False
        for secret in sorted(known):
            for safe in ("[]*", "*"):
                if hmac.compare_digest(sign(params, secret, safe), signature):
                    return True
        return False

    def error_body(self, status: int, message: str, field_name: str | None = None) -> Any:
        """CloudStack's ``{"errorresponse": {"errorcode", "cserrorcode", "errortext"}}``."""
        return {
            "errorresponse": {
                "uuidList": [],
                "errorcode": status,
                "cserrorcode": 4350 if status == 431 else 9999,
                "errortext": message,
            }
        }

    def unauthorized(self) -> Reply:
        """CloudStack's 401 for an unknown key or a wrong signature."""
        return Reply(
            401, self.error_body(401, "unable to verify user credentials and/or request signature")
        )

    def unserved(self, req: Request) -> Reply:
        """CloudStack's 432 for a command it does not know, naming it."""
        command = self.param(req, "command") or "(none)"
        message = (
            f"Not found: plugsim's fake cloudstack API does not serve command={command} "
            f"({req.method} {urlsplit(req.url).path})"
        )
        return Reply(432, self.error_body(432, message))

    def reply(self, req: Request, body: dict[str, Any]) -> Reply:
        """Wrap *body* as ``{"<command>response": body}``."""
        return Reply(200, {f"{(self.param(req, 'command') or '').lower()}response": body})

    def listing(self, req: Request, kind: str, items: list[dict[str, Any]]) -> Reply:
        """A listing: ``{"count": n, kind: [...]}``, or ``{}`` when empty."""
        return self.reply(req, {"count": len(items), kind: items} if items else {})

    def required(self, req: Request, name: str) -> str:
        """Return a required parameter or fail with CloudStack's 431."""
        value = self.param(req, name)
        if value in (None, ""):
            raise self.fail(
                431,
                f"Unable to execute API command {self.command(req)} due to "
                f"missing parameter {name.lower()}",
                name,
            )
        return value  # type: ignore[return-value]

    def command(self, req: Request) -> str:
        """The command's name, lower-case (as CloudStack's errors name it)."""
        return (self.param(req, "command") or "").lower()

    def lookup(self, req: Request, kind: str, table: dict[str, Any], name: str) -> str:
        """Return the catalogue name behind id parameter *name* (431 naming it otherwise)."""
        value = self.required(req, name)
        for entry in table:
            if stable_id(kind, entry) == value:
                return entry
        rest_state(self.cloud).misses.append((self.name, name, value))
        raise self.fail(
            431,
            f"Unable to execute API command {self.command(req)} due to invalid "
            f"value. Invalid parameter {name.lower()} value={value} due to "
            "incorrect long value format, or entity does not exist",
            name,
        )

    @property
    def compute(self) -> Any:
        """The compute service."""
        return self.cloud.service("compute")

    # --- virtual machines -------------------------------------------------------------------

    def vm_view(self, server: dict[str, Any]) -> dict[str, Any]:
        """Return a CloudStack virtual machine for a compute server."""
        from fake_clouds.rest.linode import Linode

        meta = server.get("metadata") or {}
        offering = next(
            (n for n in OFFERINGS if stable_id("offering", n) == meta.get(OFFERING_KEY)),
            "Small Instance",
        )
        template = next(
            (n for n in TEMPLATES if stable_id("template", n) == meta.get(TEMPLATE_KEY)), ""
        )
        cpus, speed, memory = OFFERINGS[offering]
        zone = server.get("OS-EXT-AZ:availability_zone") or "zone1"
        zone = zone if zone in ZONES else "zone1"
        public, private = Linode(self.cloud, Linode.default_base_url, "").addresses(server)
        state = _TASK_STATE.get(server.get(TASK) or "", _STATE.get(server["status"], "Starting"))
        nics = [
            {
                "id": stable_id("nic", f"{server['id']}:{n}"),
                "networkid": stable_id("network", "guest"),
                "networkname": "guestNetworkForBasicZone",
                "ipaddress": address,
                "netmask": "255.255.255.0",
                "gateway": address.rsplit(".", 1)[0] + ".1",
                "isdefault": n == 0,
                "traffictype": "Guest",
                "type": "Shared",
                "macaddress": "02:00:" + ":".join(server["id"][i : i + 2] for i in (0, 2, 4, 6)),
            }
            for n, address in enumerate(public + private)
        ]
        return {
            "id": server["id"],
            "name": server["name"],
            "displayname": meta.get(DISPLAY_KEY) or server["name"],
            "account": "admin",
            "domain": "ROOT",
            "created": iso(server["created_at"]).replace("Z", "+0000"),
            "state": state,
            "haenable": False,
            "zoneid": stable_id("zone", zone),
            "zonename": zone,
            "templateid": stable_id("template", template) if template else "",
            "templatename": template,
            "templatedisplaytext": template,
            "passwordenabled": bool(template and TEMPLATES[template][2]),
            "serviceofferingid": stable_id("offering", offering),
            "serviceofferingname": offering,
            "cpunumber": cpus,
            "cpuspeed": speed,
            "memory": memory,
            "guestosid": stable_id("ostype", template or "other"),
            "rootdeviceid": 0,
            "rootdevicetype": "ROOT",
            "securitygroup": [
                {"id": stable_id("securitygroup", g["name"]), "name": g["name"]}
                for g in server.get("security_groups") or []
            ],
            "nic": nics,
            "hypervisor": "KVM",
            "keypair": server.get("key_name") or "",
            "affinitygroup": [],
            "isdynamicallyscalable": False,
            "tags": [],
        }

    def find_vm(self, req: Request, name: str = "id") -> dict[str, Any]:
        """Return the server behind the id parameter *name* (431 otherwise)."""
        vm_id = self.required(req, name)
        ent = entity(self.cloud, "compute", "server", vm_id)
        if ent is None:
            raise self.fail(
                431,
                f"Unable to execute API command {self.command(req)} due to invalid value. "
                f"Invalid parameter {name} value={vm_id} due to incorrect long value format, "
                "or entity does not exist",
                name,
            )
        req.entity_id = vm_id
        return self.compute.get_server(vm_id)

    def list_vms_op(self, req: Request) -> tuple[str, str, str]:
        """``listVirtualMachines`` with ``id`` reads one server, otherwise lists them."""
        return _SERVER if self.param(req, "id") else ("compute", "servers.list", "server")

    @route("GET", "/listVirtualMachines", op="list_vms_op")
    def list_vms(self, req: Request) -> Reply:
        """``listVirtualMachines`` (``id``, ``name``, ``zoneid``, ``state`` filter)."""
        servers = self.compute.list_servers()
        views = [self.vm_view(s) for s in servers]
        for key in ("id", "name", "zoneid"):
            wanted = self.param(req, key)
            if wanted:
                views = [v for v in views if v[key] == wanted]
        state = self.param(req, "state")
        if state:
            views = [v for v in views if v["state"].lower() == state.lower()]
        return self.listing(req, "virtualmachine", views)

    @route("GET", "/listVolumes")
    def list_volumes(self, req: Request) -> Reply:
        """``listVolumes``: each virtual machine's ROOT disk (``virtualmachineid`` filter)."""
        wanted = self.param(req, "virtualmachineid")
        items = []
        for server in self.compute.list_servers():
            if wanted and server["id"] != wanted:
                continue
            view = self.vm_view(server)
            flavor = self.compute.get_flavor(server["flavor"]["id"])
            items.append(
                {
                    "id": stable_id("volume", server["id"]),
                    "name": f"ROOT-{server['id'][:8]}",
                    "type": "ROOT",
                    "deviceid": 0,
                    "virtualmachineid": server["id"],
                    "vmname": server["name"],
                    "vmstate": view["state"],
                    "size": int(flavor.get("disk") or 1) * 1024**3,
                    "state": "Ready",
                    "zoneid": view["zoneid"],
                    "zonename": view["zonename"],
                    "created": view["created"],
                    "storagetype": "shared",
                }
            )
        return self.listing(req, "volume", items)

    def start_job(
        self, req: Request, command: str, server: dict[str, Any], done: tuple[str, ...]
    ) -> Job:
        """Record an asynchronous job following *server*'s pending transition."""
        watch = ("compute", "server", server["id"])
        action = rest_state(self.cloud).start_action(
            self.cloud, command, 0, "VirtualMachine", "", watch, done
        )
        job = Job(self.cloud.new_id(), command, server["id"], self.cloud.now(), action)
        jobs_of(self.cloud)[job.id] = job
        return job

    def job_reply(self, req: Request, job: Job) -> Reply:
        """The immediate reply of an asynchronous command: the job and the machine's id."""
        return self.reply(req, {"id": job.vm_id, "jobid": job.id})

    @route("GET", "/deployVirtualMachine", op=("compute", "servers.create", "server"))
    @route("POST", "/deployVirtualMachine", op=("compute", "servers.create", "server"))
    def deploy(self, req: Request) -> Reply:
        """``deployVirtualMachine`` (asynchronous; ``startvm=false`` leaves it stopped)."""
        offering = self.lookup(req, "offering", OFFERINGS, "serviceofferingid")
        template = self.lookup(req, "template", TEMPLATES, "templateid")
        zone = self.lookup(req, "zone", ZONES, "zoneid")
        images = self.templates()
        if template not in images:
            rest_state(self.cloud).misses.append((self.name, "templateid", template))
            raise self.fail(431, f"Template {template} is not ready in zone {zone}", "templateid")
        cpus, _, memory = OFFERINGS[offering]
        flavors = self.compute.list_flavors()
        fits = [f for f in flavors if f["vcpus"] >= cpus and f["ram"] >= memory]
        flavor = min(fits or flavors, key=lambda f: (f["ram"], f["vcpus"], f["disk"], f["id"]))
        keypair = self.param(req, "keypair")
        if keypair and keypair not in {k["name"] for k in self.compute.list_keypairs()}:
            raise self.fail(431, f"A key pair with name '{keypair}' was not found.", "keypair")
        groups = [g for g in (self.param(req, "securitygroupnames") or "").split(",") if g]
        for group in groups:
            if group != "default":
                raise self.fail(431, f"Unable to find group by name {group}", "securitygroupnames")
        networks = []
        if "network" in self.cloud.service_names():
            nets = self.cloud.service("network").list_networks()
            public = [n for n in nets if n.get("router:external")]
            networks = [{"uuid": public[0]["id"]}] if public else []
        name = self.param(req, "name") or f"VM-{self.cloud.new_id()}"
        metadata = {
            OFFERING_KEY: stable_id("offering", offering),
            TEMPLATE_KEY: stable_id("template", template),
            DISPLAY_KEY: self.param(req, "displayname") or name,
        }
        options: dict[str, Any] = {
            "availability_zone": zone,
            "networks": networks,
            "metadata": metadata,
            "security_groups": groups or ["default"],
        }
        if keypair:
            options["key_name"] = keypair
        server = self.compute.create_server(name, images[template]["id"], flavor["id"], **options)
        req.entity_id = server["id"]
        job = self.start_job(req, "deployVirtualMachine", server, ("ACTIVE",))
        job.then_stop = (self.param(req, "startvm") or "true").lower() == "false"
        return self.job_reply(req, job)

    @route("GET", "/destroyVirtualMachine", op=("compute", "servers.delete", "server"))
    def destroy(self, req: Request) -> Reply:
        """``destroyVirtualMachine`` (asynchronous; the machine is expunged when it is due)."""
        server = self.find_vm(req)
        view = self.vm_view(server)
        self.compute.delete_server(server["id"])
        job = self.start_job(req, "destroyVirtualMachine", server, ())
        job.last_view = {**view, "state": "Destroyed"}
        return self.job_reply(req, job)

    @route("GET", "/stopVirtualMachine", op=("compute", "servers.stop", "server"))
    def stop(self, req: Request) -> Reply:
        """``stopVirtualMachine`` (asynchronous)."""
        server = self.find_vm(req)
        if server["status"] != "SHUTOFF":
            server = self.compute.stop_server(server["id"])
        return self.job_reply(req, self.start_job(req, "stopVirtualMachine", server, ("SHUTOFF",)))

    @route("GET", "/startVirtualMachine", op=("compute", "servers.start", "server"))
    def start(self, req: Request) -> Reply:
        """``startVirtualMachine`` (asynchronous)."""
        server = self.find_vm(req)
        if server["status"] == "SHUTOFF":
            server = self.compute.start_server(server["id"])
        return self.job_reply(req, self.start_job(req, "startVirtualMachine", server, ("ACTIVE",)))

    @route("GET", "/rebootVirtualMachine", op=("compute", "servers.reboot", "server"))
    def reboot(self, req: Request) -> Reply:
        """``rebootVirtualMachine`` (asynchronous)."""
        server = self.find_vm(req)
        server = self.compute.reboot_server(server["id"], "SOFT")
        return self.job_reply(req, self.start_job(req, "rebootVirtualMachine", server, ("ACTIVE",)))

    # --- jobs ---------------------------------------------------------------------------------

    def job_op(self, req: Request) -> tuple[str, str, str]:
        """Polling reads the machine, or stops it when a ``startvm=false`` deploy is built."""
        job = jobs_of(self.cloud).get(self.param(req, "jobid") or "")
        if job is not None and job.then_stop and self._built(job):
            return ("compute", "servers.stop", "server")
        return _SERVER

    def _built(self, job: Job) -> bool:
        ent = entity(self.cloud, "compute", "server", job.vm_id)
        return ent is not None and not ent.pending and ent.status == "ACTIVE"

    @route("GET", "/queryAsyncJobResult", op="job_op")
    def query_job(self, req: Request) -> Reply:
        """``queryAsyncJobResult``: pending (0), done (1, with the machine) or failed (2)."""
        job_id = self.required(req, "jobid")
        job = jobs_of(self.cloud).get(job_id)
        if job is None:
            raise self.fail(431, f"Unable to find job by id {job_id}", "jobid")
        req.entity_id = job.vm_id
        if job.then_stop and self._built(job):
            self.compute.stop_server(job.vm_id)
            job.then_stop = False
            watch = ("compute", "server", job.vm_id)
            job.action = rest_state(self.cloud).start_action(
                self.cloud, job.command, 0, "VirtualMachine", "", watch, ("SHUTOFF",)
            )
        status = job.action.status(self.cloud)
        body: dict[str, Any] = {
            "jobid": job.id,
            "cmd": _CMD
            + job.command[0].upper()
            + job.command[1:].replace("VirtualMachine", "VMCmd"),
            "created": iso(job.created).replace("Z", "+0000"),
            "jobinstancetype": "VirtualMachine",
            "jobinstanceid": job.vm_id,
            "jobprocstatus": 0,
            "userid": stable_id("user", "admin"),
            "accountid": stable_id("account", "admin"),
        }
        if status == "in-progress":
            body.update(jobstatus=0, jobresultcode=0)
        elif status == "errored":
            ent = entity(self.cloud, "compute", "server", job.vm_id)
            fault = (ent.attrs.get("fault") or {}).get("message") if ent is not None else None
            text = f"Failed to {job.command[: -len('VirtualMachine')]} VM {job.vm_id}"
            body.update(
                jobstatus=2,
                jobresultcode=530,
                jobresulttype="object",
                jobresult={"errorcode": 530, "errortext": text + (f": {fault}" if fault else "")},
            )
        else:
            view = job.last_view
            if view is None:
                view = self.vm_view(self.compute.get_server(job.vm_id))
                if job.command == "deployVirtualMachine" and view["passwordenabled"]:
                    view["password"] = f"plugsim-{job.vm_id[:8]}"
            body.update(
                jobstatus=1,
                jobresultcode=0,
                jobresulttype="object",
                jobresult={"virtualmachine": view},
            )
        return self.reply(req, body)
