"""Simulated deployment: wait in virtual time for the fake server's port, never connect.

``salt-cloud`` logs into a new machine over SSH (or SMB/WinRM for Windows)
and runs a bootstrap script. Under the harness the machine is a fake cloud
server found by its address: its SSH/WinRM port *opens* a few seconds (from
the seeded ``deploy`` stream) after the server became ACTIVE. Deployment
waits for that in virtual time up to the configured timeout, then - for
Windows - tries the credentials ``win_deploy_auth_retries`` times,
``win_deploy_auth_retry_delay`` seconds apart, and reports success or why it
failed (no server with that address, the server went to ERROR or was deleted,
the port never opened, the credentials were never accepted).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn

from sdk.cloud_driver import SaltCloudExecutionTimeout, SaltCloudSystemExit
from simulator.backend import CloudBackend
from simulator.clock import VirtualClock
from simulator.rng import SeededRNG


@dataclass
class DeployRecord:
    """One simulated deployment and its outcome."""

    host: str
    method: str
    server_id: str | None
    started: float
    finished: float
    deployed: bool
    message: str

    def to_dict(self) -> dict[str, Any]:
        """Return the record as plain data."""
        return dict(vars(self))


@dataclass
class DeploySimulator:
    """The harness's deploy hook (``DriverRuntime.deploy``)."""

    cloud: CloudBackend
    clock: VirtualClock
    rng: SeededRNG
    port_delay: tuple[float, float] = (5.0, 20.0)
    poll_interval: float = 5.0
    win_credential_delay: float = 0.0
    records: list[DeployRecord] = field(default_factory=list)
    #: Maps an address a REST dialect shows to the fake cloud's own (None: identity).
    resolve_address: Callable[[str], str] | None = None
    _delays: dict[str, float] = field(default_factory=dict)

    def _delay(self, server_id: str) -> float:
        if server_id not in self._delays:
            low, high = self.port_delay
            self._delays[server_id] = self.rng.stream("deploy").uniform(low, high)
        return self._delays[server_id]

    def _fail(self, rec: DeployRecord, message: str, timeout: bool = False) -> NoReturn:
        rec.finished = self.clock.now()
        rec.message = message
        self.records.append(rec)
        raise (SaltCloudExecutionTimeout if timeout else SaltCloudSystemExit)(message)

    def __call__(self, method: str, settings: Mapping[str, Any]) -> dict[str, Any]:
        """Wait for the port of the server at ``settings['host']`` and deploy (simulated)."""
        host = str(settings.get("host"))
        port = settings.get("winrm_port" if method == "winrm" else "port") or 22
        timeout = float(settings.get("timeout") or 900)
        start = self.clock.now()
        rec = DeployRecord(host, method, None, start, start, False, "")
        server = self.cloud.find_server(host)
        if server is None and self.resolve_address is not None:
            server = self.cloud.find_server(self.resolve_address(host))
        if server is None:
            self._fail(
                rec,
                f"deploy to {host}:{port} failed: no server of the fake cloud has the address "
                f"{host} (nothing was contacted)",
            )
        rec.server_id = server.id
        while True:
            current = self.cloud.find_server(server.id)
            if current is None:
                self._fail(rec, f"deploy to {host}:{port} failed: server {server.id} was deleted")
            if current.status == "ERROR":
                fault = current.fault
                self._fail(
                    rec,
                    f"deploy to {host}:{port} failed: server {server.id} is in ERROR"
                    + (f" ({fault})" if fault else ""),
                )
            now = self.clock.now()
            if current.status == "ACTIVE" and now >= current.updated_at + self._delay(server.id):
                break
            if now - start + self.poll_interval > timeout:
                self._fail(
                    rec,
                    f"deploy to {host}:{port} failed: the port did not open within {timeout:g} s "
                    f"(server {server.id} is {current.status}"
                    + (
                        ": it was stopped or never started)" if current.status == "SHUTOFF" else ")"
                    ),
                    timeout=True,
                )
            self.clock.sleep_sync(self.poll_interval)
        attempts = 1
        if settings.get("windows"):
            retries = max(1, int(settings.get("win_deploy_auth_retries", 10)))
            delay = float(settings.get("win_deploy_auth_retry_delay", 1))
            ready = self.clock.now() + self.win_credential_delay
            while self.clock.now() < ready:
                if attempts >= retries:
                    self._fail(
                        rec,
                        f"deploy to {host} failed: the Windows credentials were not accepted "
                        f"after {attempts} attempt(s) {delay:g} s apart",
                    )
                self.clock.sleep_sync(delay)
                attempts += 1
        rec.deployed = True
        rec.finished = self.clock.now()
        rec.message = f"deployed {settings.get('script', 'bootstrap-salt')} over {method}"
        self.records.append(rec)
        return {
            "deployed": True,
            "host": host,
            "port": port,
            "server_id": server.id,
            "waited": rec.finished - start,
            "auth_attempts": attempts,
        }
