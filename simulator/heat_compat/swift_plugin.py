"""What Heat's plug-ins read of Heat's swift and heat (orchestration) client plug-ins.

Swift signals (``OS::Heat::SwiftSignalHandle``, a wait condition handle
with ``TEMP_URL_SIGNAL``) keep one container per stack in the object store
and give the server a *TempURL* to PUT its signal to.
:class:`SwiftClientPlugin` answers Heat's calls over the fake cloud's object
store (whose client is shaped like python-swiftclient's ``Connection``),
following Heat's rules, read from its source and written anew:
``get_temp_url`` (the account's TempURL key, made once; a URL signed with
it), ``get_signal_url`` (versioning asked for on the container, the
``in progress`` object written), ``is_valid_temp_url_path``,
``parse_last_modified`` and the not-found / conflict / over-limit tests.
Differences: the account's TempURL key is derived from the project (Heat
draws a random one), and the fake object store keeps no object versions, so
a second PUT to the same TempURL replaces the first signal.

:class:`OrchestrationClientPlugin` is Heat's ``heat`` client plug-in as the
plug-ins read it: the orchestration API's URLs (no fake orchestration
service runs; signals reach plugsim through ``signal_resource``).
"""

from __future__ import annotations

import datetime
import email.utils
import hashlib
import hmac
import sys
from typing import Any

from sdk import exception
from simulator.heat_compat._finder import plugin_site
from simulator.heat_compat.engine_api import HeatClientPlugin
from simulator.heat_compat.missing import MissingHeatName

#: The body of the object a swift signal handle starts with (Heat's marker).
IN_PROGRESS = "in progress"
#: The latest expiry a TempURL may have.
MAX_EPOCH = 2147483647
#: Heat's name of the object-store client.
CLIENT_NAME = "swift"
#: Where the fake object store is said to be (a URL no client reaches).
OBJECT_STORE_URL = "https://object-store.plugsim.invalid"
#: Where the orchestration API is said to be.
ORCHESTRATION_URL = "https://orchestration.plugsim.invalid"
#: The region every fake service is in.
REGION = "RegionOne"
_TEMP_URL_KEY = "x-account-meta-temp-url-key"


class SwiftConnection:
    """The fake object store's client with python-swiftclient's account calls and ``url``."""

    def __init__(self, client: Any, project_id: str) -> None:
        self._client = client
        #: the storage URL of the project's account
        self.url = f"{OBJECT_STORE_URL}/v1/AUTH_{project_id}"

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def head_account(self) -> dict[str, str]:
        """The account's headers: counts, bytes used and metadata (lower-case names)."""
        info = self._client.service.head_account()
        return {
            **{str(k).lower(): str(v) for k, v in info["headers"].items()},
            "x-account-container-count": str(info["container_count"]),
            "x-account-object-count": str(info["object_count"]),
            "x-account-bytes-used": str(info["bytes_used"]),
        }

    def post_account(self, headers: dict[str, str]) -> None:
        """Merge metadata *headers* into the account's."""
        self._client.service.post_account(headers)


class SwiftClientPlugin(HeatClientPlugin):
    """Heat's swift client plug-in over the fake object store (see the module docstring)."""

    OBJECT_STORE = "object-store"

    def __init__(self, plugin: Any, name: str = CLIENT_NAME, project_id: str = "") -> None:
        super().__init__(plugin, name)
        self._project_id = project_id

    def client(self, *args: Any, **kwargs: Any) -> Any:
        """The object-store connection (python-swiftclient's shape)."""
        return SwiftConnection(super().client(*args, **kwargs), self._project_id)

    def is_client_exception(self, ex: BaseException) -> bool:
        """True for an error the object store answered."""
        return isinstance(ex, exception.ClientError)

    def is_not_found(self, ex: BaseException) -> bool:
        """True for a 404."""
        return isinstance(ex, exception.NotFound)

    def is_conflict(self, ex: BaseException) -> bool:
        """True for a 409 (a container that is not empty)."""
        return isinstance(ex, exception.Conflict)

    def is_over_limit(self, ex: BaseException) -> bool:
        """True for a 413."""
        return isinstance(ex, exception.ClientError) and getattr(ex, "code", None) == 413

    def is_valid_temp_url_path(self, path: str) -> bool:
        """True for ``/v1/AUTH_<project>/<container>/<object>`` of this project, as Heat checks."""
        parts = path.split("/", 4)
        return bool(
            len(parts) == 5
            and not parts[0]
            and parts[1] == "v1"
            and parts[2].endswith(self._project_id)
            and parts[3]
            and parts[4].strip("/")
        )

    def _temp_url_key(self) -> str:
        connection = self.client()
        headers = connection.head_account()
        if _TEMP_URL_KEY not in headers:
            digest = hashlib.sha256(f"temp-url-key:{self._project_id}".encode()).hexdigest()
            connection.post_account({_TEMP_URL_KEY: digest[:32]})
            headers = connection.head_account()
        return headers[_TEMP_URL_KEY]

    def get_temp_url(
        self, container_name: str, obj_name: str, timeout: int | None = None, method: str = "PUT"
    ) -> str:
        """A TempURL letting *method* on the object, signed with the account's key."""
        key = self._temp_url_key()
        path = f"/v1/AUTH_{self._project_id}/{container_name}/{obj_name}"
        expires = MAX_EPOCH - 60 if timeout is None else int(timeout)
        body = f"{method}\n{expires}\n{path}".encode()
        signature = hmac.new(key.encode(), body, hashlib.sha256).hexdigest()
        return f"{OBJECT_STORE_URL}{path}?temp_url_sig={signature}&temp_url_expires={expires}"

    def get_signal_url(self, container_name: str, obj_name: str, timeout: int | None = None) -> str:
        """Ask for versioning on the container, write the marker object; return its TempURL."""
        connection = self.client()
        connection.put_container(container_name, headers={"x-versions-location": container_name})
        connection.put_object(container_name, obj_name, IN_PROGRESS)
        return self.get_temp_url(container_name, obj_name, timeout)

    def parse_last_modified(self, lm: str | None) -> datetime.datetime | None:
        """An object's ``last-modified`` header as a naive UTC datetime (None for none)."""
        if not lm:
            return None
        parsed = email.utils.parsedate(lm)
        return None if parsed is None else datetime.datetime(*parsed[:6])


class OrchestrationClientPlugin:
    """Heat's ``heat`` client plug-in as plug-ins read it: the orchestration API's URLs."""

    #: Heat's service types -> the fake cloud's client names
    SERVICE_NAMES = {"object-store": "swift", "identity": "keystone", "compute": "nova"}

    def __init__(self, project_id: str, has_service: Any = None) -> None:
        self._project_id = project_id
        self._has_service = has_service

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise MissingHeatName(
            f"heat.engine.clients.os.heat_plugin.HeatClientPlugin.{name}",
            plugin_site(sys._getframe(1)),
        )

    def does_endpoint_exist(self, service_type: str, service_name: str) -> bool:
        """True when the fake cloud runs the service (Heat asks its catalog)."""
        if self._has_service is None:
            return False
        return bool(self._has_service(self.SERVICE_NAMES.get(service_name, service_type)))

    def get_heat_url(self) -> str:
        """The orchestration API of the project (``.../v1/<project>``)."""
        return f"{ORCHESTRATION_URL}/v1/{self._project_id}"

    def get_heat_cfn_url(self) -> str:
        """The CloudFormation-compatible API."""
        return f"{ORCHESTRATION_URL}:8000/v1"

    def get_cfn_metadata_server_url(self) -> str:
        """Where a server's agent polls its metadata over the CFN API."""
        return f"{ORCHESTRATION_URL}:8000/v1/"

    def get_watch_server_url(self) -> str:
        """The CloudWatch-compatible API (long gone from Heat; still asked for)."""
        return f"{ORCHESTRATION_URL}:8003"

    def get_insecure_option(self) -> bool:
        """Whether clients skip TLS verification (no)."""
        return False

    def _get_region_name(self) -> str:
        return REGION
