"""The Docker Engine API over the ``containers`` service: routes, replies and errors.

Paths may carry the API version (``/v1.45/containers/create``) or not
(``/version``, ``/_ping``), as the ``docker`` library sends them. Replies
have Docker's shapes: ``inspect`` (``GET /containers/{id}/json``) with
``State``, ``Config``, ``HostConfig``, ``NetworkSettings`` and the
``/name``; errors as ``{"message": ...}`` with Docker's statuses; logs as
Docker's multiplexed stream (8-byte frame headers) unless the container
has a TTY. A handler whose body is not JSON (``/_ping``, a pull's progress
lines, logs) leaves its bytes in ``req.raw_body`` for
:class:`~fake_clouds.docker.wire.DockerServer` to send. See :mod:`fake_clouds.docker.engine` for the behaviour behind
them and ``docs/fake-clouds-rest.rst`` for the list of endpoints.
"""

from __future__ import annotations

import json
import re
import struct
from typing import Any, ClassVar

from fake_clouds.docker.engine import API_VERSION, GATEWAY, MIN_API_VERSION, _image_id
from fake_clouds.rest.common import iso
from fake_clouds.rest.dialect import Dialect, Reply, Request, route

_VERSIONED = re.compile(r"^/v(\d+\.\d+)(/.*)$")
#: What an unset time shows in ``inspect`` (Go's zero time, as Docker prints it).
ZERO_TIME = "0001-01-01T00:00:00Z"
JSON = {"Content-Type": "application/json"}


def api_version(path: str) -> tuple[str | None, str]:
    """``(version or None, path without it)`` of a request path."""
    found = _VERSIONED.match(path)
    if found is None:
        return None, path
    return found.group(1), found.group(2)


def _version_key(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def version_error(version: str | None) -> str | None:
    """Docker's message for an API version it does not serve, or None."""
    if version is None:
        return None
    if _version_key(version) > _version_key(API_VERSION):
        return (
            f"client version {version} is too new. Maximum supported API version is {API_VERSION}"
        )
    if _version_key(version) < _version_key(MIN_API_VERSION):
        return (
            f"client version {version} is too old. Minimum supported API version is "
            f"{MIN_API_VERSION}, please upgrade your client to a newer version"
        )
    return None


def _flag(value: str | None) -> bool:
    return (value or "").lower() in ("1", "true", "yes")


def _time(value: float | None) -> str:
    return ZERO_TIME if value is None else iso(value)


def _ports(config: dict[str, Any], host: dict[str, Any]) -> dict[str, Any]:
    """``NetworkSettings.Ports``: every exposed or bound port, with its host bindings."""
    out: dict[str, Any] = {port: None for port in sorted(config.get("ExposedPorts") or {})}
    for port, bindings in sorted((host.get("PortBindings") or {}).items()):
        out[port] = [
            {"HostIp": b.get("HostIp") or "0.0.0.0", "HostPort": str(b.get("HostPort") or "")}
            for b in bindings or []
        ]
    return out


def _mac(ip: str) -> str:
    """Docker's MAC address of a bridge address (``02:42`` and the address's octets)."""
    if not ip:
        return ""
    return "02:42:" + ":".join(f"{int(octet):02x}" for octet in ip.split("."))


def inspect(view: dict[str, Any]) -> dict[str, Any]:
    """The ``GET /containers/{id}/json`` body of a container's entity view."""
    config = dict(view["config"])
    host = dict(config.pop("HostConfig", None) or {})
    status = view["status"]
    running = status in ("running", "paused")
    ip = view.get("ip") or ""
    config["Hostname"] = config.get("Hostname") or view["id"][:12]
    network = {
        "Bridge": "",
        "Gateway": GATEWAY if ip else "",
        "IPAddress": ip,
        "IPPrefixLen": 16 if ip else 0,
        "MacAddress": _mac(ip),
        "Ports": _ports(config, host) if running else {},
        "Networks": {
            "bridge": {"Gateway": GATEWAY if ip else "", "IPAddress": ip, "IPPrefixLen": 16}
        },
    }
    cmd = config.get("Cmd") or []
    return {
        "Id": view["id"],
        "Created": iso(view["created_at"]),
        "Path": cmd[0] if cmd else "",
        "Args": list(cmd[1:]),
        "State": {
            "Status": status,
            "Running": running,
            "Paused": status == "paused",
            "Restarting": False,
            "OOMKilled": False,
            "Dead": status == "dead",
            "Pid": 1000 + view["runs"] if running else 0,
            "ExitCode": view["exit_code"],
            "Error": view["error"],
            "StartedAt": _time(view["started_at"]),
            "FinishedAt": _time(view["finished_at"]),
        },
        "Image": _image_id(view["image"]),
        "Name": "/" + view["name"],
        "RestartCount": 0,
        "Driver": "overlay2",
        "Platform": "linux",
        "Mounts": [],
        "Config": config,
        "HostConfig": host,
        "NetworkSettings": network,
    }


def _summary(view: dict[str, Any]) -> dict[str, Any]:
    """One entry of ``GET /containers/json``."""
    return {
        "Id": view["id"],
        "Names": ["/" + view["name"]],
        "Image": view["config"].get("Image"),
        "ImageID": _image_id(view["image"]),
        "Command": " ".join(view["config"].get("Cmd") or []),
        "Created": int(view["created_at"]),
        "State": view["status"],
        "Status": view["status"],
    }


def log_stream(lines: list[str], tty: bool) -> bytes:
    """The logs body: raw text with a TTY, else stdout frames of Docker's multiplexed stream."""
    if tty:
        return "".join(line + "\n" for line in lines).encode()
    out = b""
    for line in lines:
        data = (line + "\n").encode()
        out += struct.pack(">BxxxL", 1, len(data)) + data
    return out


class DockerEngine(Dialect):
    """The Docker Engine API of a fake cloud's ``containers`` service."""

    name = "docker"
    #: ``docker.APIClient("tcp://docker.fake:2375")`` reaches it here.
    default_base_url = "http://docker.fake:2375"
    default_token = ""
    #: Further base URLs served: the local socket ``docker.APIClient()`` uses by default.
    aliases: ClassVar[tuple[str, ...]] = ("http+docker://localhost",)

    def authenticate(self, req: Request) -> bool:
        """A Docker daemon's TCP socket asks for no token."""
        return True

    def route_path(self, req: Request) -> str:
        """The path without its ``/v1.xx`` prefix."""
        return api_version(req.path)[1]

    def _service(self) -> Any:
        return self.cloud.service("containers")

    # --- system ----------------------------------------------------------------------

    @route("GET", "/_ping")
    def ping(self, req: Request) -> Reply:
        """``OK``, as text."""
        req.raw_body = b"OK"  # type: ignore[attr-defined]
        return Reply(200, None, {"Content-Type": "text/plain; charset=utf-8"})

    @route("GET", "/version")
    def version(self, req: Request) -> Reply:
        """The engine's version and API versions."""
        return Reply(
            200,
            {
                "Version": "26.1.0-plugsim",
                "ApiVersion": API_VERSION,
                "MinAPIVersion": MIN_API_VERSION,
                "Os": "linux",
                "Arch": "amd64",
                "KernelVersion": "6.1.0-plugsim",
                "GoVersion": "go1.21.9",
                "GitCommit": "plugsim",
                "Components": [{"Name": "Engine", "Version": "26.1.0-plugsim"}],
            },
            dict(JSON),
        )

    # --- images ----------------------------------------------------------------------

    @route("POST", "/images/create", op=("containers", "images.pull", "image"))
    def pull(self, req: Request) -> Reply:
        """Pull ``fromImage`` (and ``tag``): a stream of JSON progress lines."""
        image = req.arg("fromImage") or ""
        done = self._service().pull(image, req.arg("tag"))
        ref = done["image"]
        tag = ref.rsplit(":", 1)[1]
        lines = [
            {"status": f"Pulling from library/{ref.rsplit(':', 1)[0]}", "id": tag},
            {"status": f"Digest: {done['id']}"},
            {"status": f"Status: Downloaded newer image for {ref}"},
        ]
        body = "".join(json.dumps(line, sort_keys=True) + "\r\n" for line in lines)
        req.raw_body = body.encode()  # type: ignore[attr-defined]
        return Reply(200, None, dict(JSON))

    @route("GET", "/images/json", op=("containers", "images.list", "image"))
    def images(self, req: Request) -> Reply:
        """The images pulled to the engine."""
        return Reply(200, self._service().list_images(), dict(JSON))

    # --- containers ------------------------------------------------------------------

    @route("POST", "/containers/create", op=("containers", "containers.create", "container"))
    def create(self, req: Request) -> Reply:
        """Create a container from the body's config (``?name=`` optional): 201 ``{Id}``."""
        config = req.json(self)
        created = self._service().create(config, req.arg("name"))
        req.entity_id = created["Id"]
        return Reply(201, created, dict(JSON))

    @route("GET", "/containers/json", op=("containers", "containers.list", "container"))
    def list_containers(self, req: Request) -> Reply:
        """Running containers, or every one with ``?all=1``."""
        views = self._service().list_containers(include_all=_flag(req.arg("all")))
        return Reply(200, [_summary(v) for v in views], dict(JSON))

    @route("GET", "/containers/{id}/json", op=("containers", "containers.get", "container"))
    def inspect_container(self, req: Request) -> Reply:
        """``docker inspect``."""
        view = self._service().get(req.params["id"])
        req.entity_id = view["id"]
        return Reply(200, inspect(view), dict(JSON))

    def _no_content(self, done: dict[str, Any], req: Request) -> Reply:
        req.entity_id = done["id"]
        return Reply(204 if done.get("modified", True) else 304, None, {})

    @route("POST", "/containers/{id}/start", op=("containers", "containers.start", "container"))
    def start(self, req: Request) -> Reply:
        """204, or 304 when it already runs."""
        return self._no_content(self._service().start(req.params["id"]), req)

    @route("POST", "/containers/{id}/stop", op=("containers", "containers.stop", "container"))
    def stop(self, req: Request) -> Reply:
        """204, or 304 when it was not running."""
        timeout = req.arg("t")
        seconds = float(timeout) if timeout and timeout.lstrip("-").isdigit() else None
        return self._no_content(self._service().stop(req.params["id"], seconds), req)

    @route("POST", "/containers/{id}/kill", op=("containers", "containers.kill", "container"))
    def kill(self, req: Request) -> Reply:
        """204; 409 when it is not running."""
        return self._no_content(self._service().kill(req.params["id"], req.arg("signal")), req)

    @route("POST", "/containers/{id}/pause", op=("containers", "containers.pause", "container"))
    def pause(self, req: Request) -> Reply:
        """204; 409 when it is not running."""
        return self._no_content(self._service().pause(req.params["id"]), req)

    @route("POST", "/containers/{id}/unpause", op=("containers", "containers.unpause", "container"))
    def unpause(self, req: Request) -> Reply:
        """204; 409 when it is not paused."""
        return self._no_content(self._service().unpause(req.params["id"]), req)

    @route("DELETE", "/containers/{id}", op=("containers", "containers.remove", "container"))
    def remove(self, req: Request) -> Reply:
        """204; 409 for a running container without ``?force=1``."""
        done = self._service().remove(req.params["id"], force=_flag(req.arg("force")))
        return self._no_content(done, req)

    @route("GET", "/containers/{id}/logs", op=("containers", "containers.logs", "container"))
    def logs(self, req: Request) -> Reply:
        """The container's output (``stdout``; ``tail`` honoured)."""
        found = self._service().logs(req.params["id"])
        req.entity_id = found["id"]
        lines = found["lines"] if _flag(req.arg("stdout", "1")) else []
        tail = req.arg("tail", "all") or "all"
        if tail.isdigit():
            lines = lines[len(lines) - int(tail) :] if int(tail) else []
        kind = "raw-stream" if found["tty"] else "multiplexed-stream"
        headers = {"Content-Type": f"application/vnd.docker.{kind}"}
        req.raw_body = log_stream(lines, found["tty"])  # type: ignore[attr-defined]
        return Reply(200, None, headers)
