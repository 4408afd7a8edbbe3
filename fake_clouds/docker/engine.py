"""The ``containers`` service: a Docker Engine's containers and images, in virtual time.

Containers are entities of kind ``container`` whose status is Docker's
``State.Status``: ``created`` → ``running`` (start) ⇄ ``paused`` (pause /
unpause) → ``exited`` (stop, kill, or the process ending by itself) → gone
(remove). A container's process ends by itself when its command or image
says so (``true``, ``false``, ``echo ...``, ``sleep N``, the ``hello-world``
image): the exit is a transition due at a virtual instant, so ``inspect``
shows ``running`` until then and ``exited`` with the exit code after.
Containers left behind are entities, so the world's leak checks find them.

Images are not entities: the world knows the images its registry offers
(:data:`REGISTRY`, more with :meth:`ContainerService.define_image`); a
``pull`` copies one to the engine, and ``create`` needs it pulled, as
Docker does. Errors are Docker's: 404 ``No such container: ...`` / ``No such
image: ...``, 409 for a name in use or a running container removed without
``force``, 400 for a bad name; a start or stop that changes nothing answers
"not modified" (the API's 304).

The service is optional: the Docker API adds it to a world at its first
request (:func:`add_docker_service` adds it beforehand, e.g. to write fault
rules naming it). It runs every operation through the world's dispatch
path, so latency, seeded faults and the trace apply as for any service.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from fake_clouds.core.entities import Entity, Transition
from fake_clouds.core.registry import register_service
from fake_clouds.core.service import Service, operation
from sdk import exception

#: The engine's API version (what ``GET /version`` reports) and the oldest it accepts.
API_VERSION = "1.45"
MIN_API_VERSION = "1.24"
#: The bridge network containers join: gateway and the first address handed out.
GATEWAY = "172.17.0.1"

#: Images the world's registry offers: the process each runs by default.
#: ``exits_after`` None: runs until stopped; otherwise it ends with ``exit_code``.
REGISTRY: dict[str, dict[str, Any]] = {
    "alpine": {"cmd": ["/bin/sh"], "logs": []},
    "busybox": {"cmd": ["sh"], "logs": []},
    "cirros": {"cmd": ["/sbin/init"], "logs": ["cirros started"]},
    "debian": {"cmd": ["bash"], "logs": []},
    "hello-world": {
        "cmd": ["/hello"],
        "logs": ["Hello from Docker!", "This message shows that your installation works."],
        "exits_after": 0.5,
        "exit_code": 0,
    },
    "httpd": {
        "cmd": ["httpd-foreground"],
        "logs": ["AH00094: Command line: 'httpd -D FOREGROUND'"],
    },
    "nginx": {"cmd": ["nginx", "-g", "daemon off;"], "logs": ["start worker processes"]},
    "postgres": {"cmd": ["postgres"], "logs": ["database system is ready to accept connections"]},
    "redis": {"cmd": ["redis-server"], "logs": ["Ready to accept connections tcp"]},
    "ubuntu": {"cmd": ["/bin/bash"], "logs": []},
}

_NAME = re.compile(r"^/?[a-zA-Z0-9][a-zA-Z0-9_.-]+$")
_ADJECTIVES = ("brave", "calm", "eager", "gentle", "keen", "lucid", "quiet", "swift")
_NOUNS = ("curie", "hopper", "lovelace", "noether", "ritchie", "shannon", "turing", "wozniak")


def _fail(cls: type[exception.ClientError], message: str) -> exception.ClientError:
    return cls(message, body={"message": message})


def image_ref(image: Any) -> tuple[str, str]:
    """``(repository, tag)`` of an image reference (tag ``latest`` when none is given)."""
    if not isinstance(image, str) or not image:
        raise _fail(exception.BadRequest, "No image was specified")
    repo, _, tag = image.rpartition(":")
    if not repo or "/" in tag:
        return image, "latest"
    return repo, tag


def _image_id(ref: str) -> str:
    return "sha256:" + hashlib.sha256(ref.encode()).hexdigest()


def _process(config: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """How the container's process behaves: ``exits_after``, ``exit_code`` and its log lines."""
    cmd = config.get("Cmd") or spec.get("cmd") or []
    if isinstance(cmd, str):
        cmd = cmd.split()
    words = [str(w) for w in cmd]
    head = words[0].rsplit("/", 1)[-1] if words else ""
    if head == "true":
        return {"exits_after": 0.1, "exit_code": 0, "logs": []}
    if head == "false":
        return {"exits_after": 0.1, "exit_code": 1, "logs": []}
    if head == "echo":
        return {"exits_after": 0.1, "exit_code": 0, "logs": [" ".join(words[1:])]}
    if head == "sleep" and len(words) > 1 and words[1].replace(".", "", 1).isdigit():
        return {"exits_after": float(words[1]), "exit_code": 0, "logs": []}
    if config.get("Cmd"):
        return {"exits_after": None, "exit_code": 0, "logs": []}
    return {
        "exits_after": spec.get("exits_after"),
        "exit_code": spec.get("exit_code", 0),
        "logs": list(spec.get("logs", [])),
    }


class ContainerService(Service):
    """A Docker Engine: containers (entities) and the images pulled to it."""

    name = "containers"
    kinds = {"container": "dead"}  # noqa: RUF012 - Docker's state of a container that broke
    default_quotas = {"containers": 1000}

    # --- images ---------------------------------------------------------------------

    def _registry(self) -> dict[str, Any]:
        return {**REGISTRY, **self.counters.get("registry", {})}

    def define_image(
        self,
        name: str,
        *,
        cmd: list[str] | None = None,
        logs: list[str] | None = None,
        exits_after: float | None = None,
        exit_code: int = 0,
    ) -> None:
        """Offer image *name* in the world's registry (its default process and log lines)."""
        repo, _ = image_ref(name)
        self.counters.setdefault("registry", {})[repo] = {
            "cmd": list(cmd or ["/entrypoint"]),
            "logs": list(logs or []),
            "exits_after": exits_after,
            "exit_code": int(exit_code),
        }

    def _pulled(self) -> dict[str, Any]:
        return self.counters.setdefault("images", {})

    @operation("images.pull", kind="image")
    def pull(self, image: str, tag: str | None = None) -> dict[str, Any]:
        """Copy *image* from the registry to the engine; unknown: Docker's 404."""
        repo, ref_tag = image_ref(image)
        tag = tag or ref_tag
        if repo not in self._registry():
            raise _fail(
                exception.NotFound,
                f"pull access denied for {repo}, repository does not exist or may require "
                "'docker login': denied: requested access to the resource is denied",
            )
        ref = f"{repo}:{tag}"
        self._pulled()[ref] = {"Id": _image_id(ref), "RepoTags": [ref], "Created": self._now()}
        return {"image": ref, "id": _image_id(ref)}

    @operation("images.list", kind="image")
    def list_images(self) -> list[dict[str, Any]]:
        """The images pulled to the engine, by reference."""
        return [dict(self._pulled()[ref]) for ref in sorted(self._pulled())]

    # --- containers -----------------------------------------------------------------

    def _container(self, ref: Any) -> Entity:
        """The live container whose id, unique id prefix or name is *ref*; else Docker's 404."""
        self._refresh("container")
        live = [e for e in self._store["container"].values() if not e.deleted]
        if isinstance(ref, str) and ref:
            name = ref.lstrip("/")
            exact = [e for e in live if e.id == ref or e.name == name]
            if exact:
                return exact[0]
            prefixed = [e for e in live if e.id.startswith(ref)]
            if len(prefixed) == 1:
                return prefixed[0]
        raise _fail(exception.NotFound, f"No such container: {ref}")

    def _new_name(self) -> str:
        taken = {e.name for e in self._live("container")}
        rnd = self.world.rng.stream("ids")
        base = f"{rnd.choice(_ADJECTIVES)}_{rnd.choice(_NOUNS)}"
        name, count = base, 1
        while name in taken:
            count += 1
            name = f"{base}{count}"
        return name

    @operation("containers.create", kind="container")
    def create(self, config: dict[str, Any], name: str | None = None) -> dict[str, Any]:
        """Create a container from *config* (the API's body); the image must be pulled."""
        if not isinstance(config, dict):
            raise _fail(exception.BadRequest, "The container config must be a JSON object")
        repo, tag = image_ref(config.get("Image"))
        ref = f"{repo}:{tag}"
        if ref not in self._pulled():
            raise _fail(exception.NotFound, f"No such image: {ref}")
        if name:
            if not _NAME.match(name):
                raise _fail(
                    exception.BadRequest,
                    f"Invalid container name ({name}), only [a-zA-Z0-9][a-zA-Z0-9_.-] are allowed",
                )
            name = name.lstrip("/")
            for other in self._live("container"):
                if other.name == name:
                    raise _fail(
                        exception.Conflict,
                        f'Conflict. The container name "/{name}" is already in use by container '
                        f'"{other.id}". You have to remove (or rename) that container to be able '
                        "to reuse that name.",
                    )
        self._check_quota("containers", self._count("container"))
        cid = hashlib.sha256(self.world.new_id().encode()).hexdigest()
        process = _process(config, self._registry()[repo])
        attrs = {
            "image": ref,
            "config": dict(config),
            "process": process,
            "exit_code": 0,
            "error": "",
            "started_at": None,
            "finished_at": None,
            "ip": None,
            "runs": 0,
            "logs": [],
        }
        ent = self._create("container", name or self._new_name(), "created", attrs, entity_id=cid)
        return {"Id": ent.id, "Warnings": []}

    def _running_view(self, ent: Entity) -> None:
        """Give a starting container an address and schedule its process's end, if any."""
        now = self._now()
        counter = self.counters.get("next_ip", 2)
        while counter % 256 in (0, 255):  # no network or broadcast-looking last octet
            counter += 1
        self.counters["next_ip"] = counter + 1
        process = ent.attrs["process"]
        self._set(
            ent,
            started_at=now,
            finished_at=None,
            exit_code=0,
            error="",
            ip=f"172.17.{counter // 256 % 256}.{counter % 256}",
            runs=ent.attrs["runs"] + 1,
            logs=[*ent.attrs["logs"], *process["logs"]],
        )
        ent.status = "running"
        ent.pending.clear()
        if process["exits_after"] is not None:
            at = now + float(process["exits_after"])
            ent.pending.append(
                Transition(
                    at, "exited", {"exit_code": process["exit_code"], "finished_at": at, "ip": None}
                )
            )

    @operation("containers.start", kind="container")
    def start(self, ref: str) -> dict[str, Any]:
        """Start a container; ``modified`` False when it already runs (Docker's 304)."""
        ent = self._container(ref)
        if ent.status in ("running", "paused"):
            if ent.status == "paused":
                raise _fail(
                    exception.Conflict, "cannot start a paused container, try unpause instead"
                )
            return {"id": ent.id, "modified": False}
        if ent.status == "dead":
            raise _fail(
                exception.Conflict,
                f"Container {ent.id} is marked for removal and cannot be started",
            )
        call = self.world.call
        if call.effect == "error_state":
            self._set(ent, exit_code=128, error=call.reason, finished_at=self._now())
            self._set(ent, logs=[*ent.attrs["logs"], f"error: {call.reason}"])
            ent.status = "dead"
            ent.pending.clear()
            return {"id": ent.id, "modified": True}
        self._running_view(ent)
        return {"id": ent.id, "modified": True}

    def _end(self, ent: Entity, exit_code: int) -> None:
        ent.pending.clear()
        ent.status = "exited"
        self._set(ent, exit_code=exit_code, finished_at=self._now(), ip=None)

    @operation("containers.stop", kind="container")
    def stop(self, ref: str, timeout: float | None = None) -> dict[str, Any]:
        """Stop a running container (exit 0); ``modified`` False when it was not running."""
        ent = self._container(ref)
        if ent.status not in ("running", "paused"):
            return {"id": ent.id, "modified": False}
        self._end(ent, 0)
        return {"id": ent.id, "modified": True}

    @operation("containers.kill", kind="container")
    def kill(self, ref: str, signal: str | None = None) -> dict[str, Any]:
        """Kill a running container (exit 137); 409 when it is not running."""
        ent = self._container(ref)
        if ent.status not in ("running", "paused"):
            raise _fail(
                exception.Conflict,
                f"Cannot kill container: {ref}: Container {ent.id} is not running",
            )
        self._end(ent, 137)
        return {"id": ent.id, "modified": True}

    @operation("containers.pause", kind="container")
    def pause(self, ref: str) -> dict[str, Any]:
        """Freeze a running container; 409 when it is not running or already paused."""
        ent = self._container(ref)
        if ent.status == "paused":
            raise _fail(exception.Conflict, f"Container {ent.id} is already paused")
        if ent.status != "running":
            raise _fail(exception.Conflict, f"Container {ent.id} is not running")
        ent.status = "paused"
        ent.updated_at = self._now()
        return {"id": ent.id}

    @operation("containers.unpause", kind="container")
    def unpause(self, ref: str) -> dict[str, Any]:
        """Thaw a paused container; 409 when it is not paused."""
        ent = self._container(ref)
        if ent.status != "paused":
            raise _fail(exception.Conflict, f"Container {ent.id} is not paused")
        ent.status = "running"
        ent.updated_at = self._now()
        return {"id": ent.id}

    @operation("containers.remove", kind="container")
    def remove(self, ref: str, force: bool = False) -> dict[str, Any]:
        """Remove a container; 409 for a running one unless *force*."""
        ent = self._container(ref)
        if ent.status in ("running", "paused") and not force:
            raise _fail(
                exception.Conflict,
                f'cannot remove container "/{ent.name}": container is running: stop the '
                "container before removing or force remove",
            )
        self._start(ent, "remove", None, None)
        return {"id": ent.id}

    @operation("containers.get", kind="container")
    def get(self, ref: str) -> dict[str, Any]:
        """The container's entity view (what ``inspect`` is built from)."""
        return self._container(ref).view()

    @operation("containers.logs", kind="container")
    def logs(self, ref: str) -> dict[str, Any]:
        """The container's log lines and whether it has a TTY."""
        ent = self._container(ref)
        return {
            "id": ent.id,
            "lines": list(ent.attrs["logs"]),
            "tty": bool(ent.attrs["config"].get("Tty")),
        }

    @operation("containers.list", kind="container")
    def list_containers(self, include_all: bool = False) -> list[dict[str, Any]]:
        """Containers in creation order: running ones, or every one with *include_all*."""
        live = self._live("container")
        return [e.view() for e in live if include_all or e.status in ("running", "paused")]


register_service(ContainerService)


def add_docker_service(cloud: Any) -> ContainerService:
    """Add the ``containers`` service to *cloud* (once) and return it."""
    if "containers" in cloud.service_names():
        return cloud.service("containers")  # type: ignore[no-any-return]
    return cloud.add_service(ContainerService)  # type: ignore[no-any-return]
