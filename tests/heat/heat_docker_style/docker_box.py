"""A Docker container written against Heat's plug-in API and ``docker.APIClient``.

It uses the Heat names and the client calls openstack/heat's contrib
``heat_docker`` uses (``pull``, ``create_container``, ``start``,
``inspect_container``, ``logs``, ``kill``, ``remove_container``, ``stop``,
``version``; the same conditional import and ``available_resource_mapping``),
written for these tests, with ``create_container`` arguments docker 7 takes.
"""

import packaging.version
from heat.common import exception
from heat.common.i18n import _
from heat.engine import attributes, constraints, properties, resource, support
from oslo_log import log as logging

LOG = logging.getLogger(__name__)

try:
    import docker
except ImportError:
    docker = None

#: The oldest Docker API version each property needs.
NEEDS_API = {"read_only": "1.17"}


class ApiTooOld(exception.HeatException):
    msg_fmt = _('"%(arg)s" needs Docker API %(min_version)s or newer')


class DockerBox(resource.Resource):
    """A container started on create, stopped on suspend, killed and removed on delete."""

    support_status = support.SupportStatus(status=support.UNSUPPORTED, message=_("A test fixture."))

    PROPERTIES = (ENDPOINT, IMAGE, CMD, NAME, TTY, PORT_BINDINGS, READ_ONLY) = (
        "docker_endpoint",
        "image",
        "cmd",
        "name",
        "tty",
        "port_bindings",
        "read_only",
    )
    properties_schema = {
        ENDPOINT: properties.Schema(properties.Schema.STRING, _("Daemon URL."), default=None),
        IMAGE: properties.Schema(properties.Schema.STRING, _("Image."), required=True),
        CMD: properties.Schema(properties.Schema.LIST, _("Command."), default=[]),
        NAME: properties.Schema(
            properties.Schema.STRING,
            _("Container name."),
            constraints=[constraints.Length(max=64)],
        ),
        TTY: properties.Schema(properties.Schema.BOOLEAN, _("Allocate a TTY."), default=False),
        PORT_BINDINGS: properties.Schema(properties.Schema.MAP, _("Port -> host port.")),
        READ_ONLY: properties.Schema(
            properties.Schema.BOOLEAN, _("Read-only root file system."), default=False
        ),
    }
    attributes_schema = {
        "info": attributes.Schema(_("What inspect says.")),
        "network_ip": attributes.Schema(_("The container's address.")),
        "network_tcp_ports": attributes.Schema(_("Published TCP host ports, comma-separated.")),
        "logs_tail": attributes.Schema(_("The last line of output.")),
    }

    def get_client(self):
        endpoint = self.properties[self.ENDPOINT]
        return docker.APIClient(endpoint) if endpoint else docker.APIClient()

    def _state(self, container_id):
        return self.get_client().inspect_container(container_id)["State"]

    def validate(self):
        super().validate()
        for name, oldest in sorted(NEEDS_API.items()):
            if self.properties[name]:
                have = self.get_client().version()["ApiVersion"]
                if packaging.version.Version(have) < packaging.version.Version(oldest):
                    raise ApiTooOld(arg=name, min_version=oldest)

    def handle_create(self):
        client = self.get_client()
        client.pull(self.properties[self.IMAGE])
        bindings = self.properties[self.PORT_BINDINGS] or {}
        host_config = client.create_host_config(
            port_bindings=bindings, read_only=self.properties[self.READ_ONLY] or None
        )
        created = client.create_container(
            image=self.properties[self.IMAGE],
            command=self.properties[self.CMD] or None,
            name=self.properties[self.NAME],
            tty=self.properties[self.TTY],
            ports=sorted(int(p.split("/")[0]) for p in bindings) or None,
            host_config=host_config,
        )
        self.resource_id_set(created["Id"])
        client.start(created["Id"])
        return created["Id"]

    def check_create_complete(self, container_id):
        state = self._state(container_id)
        if state.get("ExitCode"):
            output = self.get_client().logs(container_id).decode()
            raise exception.ResourceInError(
                resource_status=state["Status"], status_reason=output.strip()
            )
        return state["Running"]

    def handle_delete(self):
        if self.resource_id is None:
            return None
        try:
            self.get_client().kill(self.resource_id)
        except docker.errors.APIError as ex:
            if ex.response.status_code != 404:
                raise
        return self.resource_id

    def check_delete_complete(self, container_id):
        if container_id is None:
            return True
        try:
            if not self._state(container_id)["Running"]:
                self.get_client().remove_container(container_id)
        except docker.errors.APIError as ex:
            if ex.response.status_code == 404:
                return True
            raise
        return False

    def handle_suspend(self):
        self.get_client().stop(self.resource_id)
        return self.resource_id

    def check_suspend_complete(self, container_id):
        return not self._state(container_id)["Running"]

    def handle_resume(self):
        self.get_client().start(self.resource_id)
        return self.resource_id

    def check_resume_complete(self, container_id):
        return self._state(container_id)["Running"]

    def _resolve_attribute(self, name):
        if not self.resource_id:
            return None
        client = self.get_client()
        if name == "logs_tail":
            return client.logs(self.resource_id).decode().rstrip("\n").split("\n")[-1]
        info = client.inspect_container(self.resource_id)
        if name == "info":
            return info
        network = info["NetworkSettings"]
        if name == "network_ip":
            return network["IPAddress"]
        ports = []
        for port, bound in sorted(network["Ports"].items()):
            if port.endswith("/tcp") and bound:
                ports.append(bound[0]["HostPort"])
        return ",".join(ports)


def resource_mapping():
    return {"Test::Docker::Box": DockerBox}


def available_resource_mapping():
    if docker is None:
        LOG.warning("DockerBox loaded without the docker library: no type registered")
        return {}
    return resource_mapping()
