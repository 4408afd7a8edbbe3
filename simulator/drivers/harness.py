"""The harness: salt-cloud's operations over driver modules, against a fake cloud, in virtual time.

:class:`DriverHarness` reads providers/profiles, loads one driver module per
provider alias (see :mod:`simulator.drivers.loader`) and runs salt-cloud's
operations with salt-cloud's calling conventions:

================================  ====================================================
``create(profile, name)``         ``create(vm_)`` (``-p PROFILE NAME``)
``destroy(name)``                 ``destroy(name)`` on the provider holding the node
``query(fun)``                    ``list_nodes()`` / ``list_nodes_full()`` /
                                  ``list_nodes_select()`` on every provider (-Q/-F/-S)
``action(action, name, kwargs)``  ``action(name, call='action')`` or
                                  ``action(name, kwargs, call='action')`` (``-a``)
``function(fun, provider, kw)``   ``fun(call='function')`` or
                                  ``fun(kwargs=kw, call='function')`` (``-f``)
``avail(kind, provider)``         ``avail_images()`` / ``avail_sizes()`` /
                                  ``avail_locations()`` (``--list-*``)
================================  ====================================================

Every driver call runs in a *session*: the runtime of :mod:`sdk.cloud_driver`
is the harness's (virtual ``sleep``/``now``, the event bus, the simulated
deploy), ``requests`` is served by the fake REST dialects (a host no fake
serves fails with the URL) and raw sockets are refused. Any exception a
driver raises becomes a :class:`DriverCallError` naming the driver file, the
function and - for unexpected errors - the line.
"""

from __future__ import annotations

import copy
import functools
import importlib.util
import os
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from typing import Any

import requests
import responses

from sdk import cloud_driver as cd
from sdk.exception import ConfigurationError, EntityNotFound, PlugsimError
from simulator.backend import DEFAULT_BACKEND, CloudBackend, RestReport, RestService, load_backend
from simulator.clock import VirtualClock
from simulator.drivers.cloudmap import MapEntry
from simulator.drivers.config import CloudConfig, load_cloud_config
from simulator.drivers.deploy import DeploySimulator
from simulator.drivers.loader import (
    SALT_CLOUD_REQUIRED,
    DriverLoadError,
    DriverLocator,
    DriverUnavailable,
    LoadedDriver,
    load_driver,
)
from simulator.drivers.netguard import guard_sockets
from simulator.drivers.parallel import Outcome, run_parallel
from simulator.drivers.salt_mode import SaltMode, salt_mode_wanted
from simulator.drivers.utils import build_salt, build_utils
from simulator.drivers.vtime import DEFAULT_EPOCH, VirtualTimeModule
from simulator.rng import SeededRNG, derive_seed

#: What each listing flag calls.
QUERY_FUNCTIONS = ("list_nodes", "list_nodes_full", "list_nodes_select")
AVAIL_FUNCTIONS = {"images": "avail_images", "sizes": "avail_sizes", "locations": "avail_locations"}


class DriverCallError(PlugsimError):
    """A driver function raised; ``cause`` is the original exception."""

    def __init__(self, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.cause = cause

    @property
    def refused(self) -> bool:
        """True when the driver refused the call with a SaltCloudSystemExit."""
        return self.cause is not None and type(self.cause).__name__ == "SaltCloudSystemExit"


def _short_connection_error(ex: BaseException) -> str | None:
    text = str(ex)
    if text.startswith("no fake cloud serves "):
        return text
    if "Connection refused by Responses" not in text:
        return None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("- ") and "://" in line:
            # The query string may carry a credential (Vultr v1's api_key=...): never shown.
            method_url = line[2:].split("?", 1)[0]
            hint = ""
            if ".amazonaws.com" in method_url and importlib.util.find_spec("moto") is None:
                hint = "; EC2 is served through moto: pip install 'plugsim[aws]'"
            return f"no fake cloud serves {method_url} (real network I/O is refused{hint})"
    return "a request went to a host no fake cloud serves (real network I/O is refused)"


class _OneLineMock(responses.RequestsMock):
    """``responses``' mock whose refusal of an unserved host is one line.

    ``responses`` refuses a request no route matches with a ConnectionError
    listing every registered route (kilobytes). A driver that catches the
    error and prints it (Salt's proxmox driver logs it and returns False) would
    show that dump; the refusal names the method and URL instead.
    """

    def _on_request(self, adapter: Any, request: Any, **kwargs: Any) -> Any:
        try:
            return super()._on_request(adapter, request, **kwargs)
        except requests.exceptions.ConnectionError as ex:
            short = _short_connection_error(ex)
            if short is None:
                raise
            raise requests.exceptions.ConnectionError(short, request=request) from None


class DriverHarness:
    """salt-cloud over driver modules, against one fake cloud in virtual time."""

    def __init__(
        self,
        providers: Any,
        profiles: Any = None,
        *,
        settings: Any = None,
        drivers: Mapping[str, str | os.PathLike[str]] | None = None,
        driver_dirs: Iterable[str | os.PathLike[str]] = (),
        bundled: bool = True,
        seed: int = 0,
        faults: object = None,
        cloud: CloudBackend | None = None,
        rest: bool = True,
        rest_tokens: Mapping[str, str] | None = None,
        rest_base_urls: Mapping[str, str] | None = None,
        port_delay: tuple[float, float] = (5.0, 20.0),
        win_credential_delay: float = 0.0,
        epoch: float = DEFAULT_EPOCH,
        salt_mode: bool | None = None,
        strict_auth: str | None = None,
        accept_tokens: Iterable[str] = (),
        world: object = None,
    ) -> None:
        """Build a harness (no driver is loaded until first used).

        *providers*/*profiles*/*settings*: paths or mappings in salt-cloud's
        format. *cloud*: an existing fake cloud backend (e.g. a stored world's);
        otherwise the ``default`` backend is built from *seed* and *faults*.
        *salt_mode*: run drivers with Salt's own ``__opts__``/``__utils__``
        (see :mod:`simulator.drivers.salt_mode`); None turns it on when Salt
        imports (or as ``PLUGSIM_SALT_MODE`` says). The fake REST APIs accept
        the credentials the providers name (and *accept_tokens*) besides their
        default tokens; *strict_auth* makes every dialect accept that one token only.
        *world*: the world file or preset a new cloud starts from (``devstack``).
        """
        self.config: CloudConfig = load_cloud_config(providers, profiles, settings)
        if cloud is None:
            cloud = load_backend(
                DEFAULT_BACKEND,
                seed=derive_seed(seed, "cloud"),
                clock=VirtualClock(),
                faults=faults,
                world=world,
            )
        elif faults is not None:
            cloud.set_faults(faults)
        self.cloud: CloudBackend = cloud
        self.clock: VirtualClock = cloud.clock
        self.epoch = float(epoch)
        self.bus = cloud_driver_bus(self.clock)
        self.deployer = DeploySimulator(
            cloud,
            self.clock,
            SeededRNG(derive_seed(seed, "deploy")),
            port_delay=port_delay,
            win_credential_delay=win_credential_delay,
        )
        self.runtime = cloud_driver_runtime(self.bus, self.clock, self.epoch, self.deployer)
        self.time_shim = VirtualTimeModule(self.clock, self.epoch)
        self.cachedir_index: dict[str, Any] = {}
        self.salt_mode: SaltMode | None = None
        if salt_mode_wanted(salt_mode):
            self.salt_mode = SaltMode(self.config, self.time_shim, self.runtime)
            self.opts = self.salt_mode.opts
            self.utils = self.salt_mode.utils
            self.salt = self.salt_mode.salt
            self.salt.update(build_salt(self.opts))
        else:
            self.opts = self.config.opts()
            self.utils = build_utils(self.opts, self.cachedir_index)
            self.salt = build_salt(self.opts)
        self.locator = DriverLocator(
            drivers, driver_dirs, bundled=bundled, salt=self.salt_mode is not None
        )
        self._drivers: dict[str, LoadedDriver] = {}
        #: ``(alias, first line)`` of each provider listing that failed (see :meth:`query`)
        self.listing_errors: list[tuple[str, str]] = []
        self._depth = 0
        self.mock = _OneLineMock(assert_all_requests_are_fired=False)
        self.rest: RestService | None = None
        self.strict_auth = strict_auth or None
        self.accepted_tokens: list[str] = []
        if rest:
            bases = {**provider_base_urls(self.config), **(rest_base_urls or {})}
            self.rest = cloud.serve_rest(self.mock, tokens=rest_tokens, base_urls=bases or None)
            self.deployer.resolve_address = getattr(self.rest, "address_of", None)
            drivers_named = {self.config.driver_of(a) for a in self.config.aliases()}
            # optional services of the REST port (the bundled fake cloud has both)
            serve_ec2 = getattr(self.rest, "serve_ec2", None)
            serve_openstack = getattr(self.rest, "serve_openstack", None)
            if "ec2" in drivers_named and serve_ec2 is not None:
                serve_ec2()  # moto's EC2, when installed
            if "openstack" in drivers_named and serve_openstack is not None:
                site = serve_openstack(openstack_auth_url(self.config))
                if self.strict_auth is None:
                    for alias in self.config.aliases():
                        if self.config.driver_of(alias) == "openstack":
                            site.accept(self.config.provider_settings(alias).get("auth"))
            declare = getattr(self.rest, "declare_keypair", None)
            if declare is not None and self.strict_auth is None:
                for key_name, key_file in self.config.declared_keys():
                    declare(key_name, key_file)  # the keys the account is said to hold
            accepted = set(provider_credentials(self.config)) | set(accept_tokens)
            if self.strict_auth is None:
                self.accepted_tokens = sorted(accepted)
            for name, dialect in getattr(self.rest, "dialects", {}).items():
                if self.strict_auth is None:
                    dialect.accepted = frozenset(accepted)
                elif name not in (rest_tokens or {}):
                    dialect.token = self.strict_auth

    # --- sessions -------------------------------------------------------------------

    @contextmanager
    def session(self) -> Iterator[DriverHarness]:
        """Run driver code inside: harness runtime, fake REST, no sockets (re-entrant)."""
        with ExitStack() as stack:
            stack.enter_context(cd.use_runtime(self.runtime))
            if self._depth == 0:
                self.mock.start()
                stack.callback(self.mock.stop, allow_assert=False)
                stack.enter_context(guard_sockets())
                if self.salt_mode is not None:
                    stack.enter_context(self.salt_mode.scope())
            self._depth += 1
            stack.callback(self._leave)
            yield self

    def _leave(self) -> None:
        self._depth -= 1

    # --- drivers --------------------------------------------------------------------

    def driver(self, alias: str) -> LoadedDriver:
        """Return the driver loaded for provider *alias* (loading it on first use)."""
        if alias in self._drivers:
            return self._drivers[alias]
        cfg = self.config
        if alias not in cfg.providers:
            known = ", ".join(cfg.aliases()) or "none"
            raise ConfigurationError(
                f"{cfg.providers_file}: no provider {alias!r} (known: {known})"
            )
        name = cfg.driver_of(alias)
        where = f"{cfg.providers_file}: {alias}.driver"
        source = self.locator.find(name)
        if source is None:
            known = ", ".join(self.locator.known()) or "none"
            raise ConfigurationError(f"{where}: unknown driver {name!r} (known: {known})")
        before = len(self.runtime.notes)
        warned = len(self.salt_mode.warnings) if self.salt_mode is not None else 0
        try:
            loaded = load_driver(
                source,
                alias=alias,
                driver=name,
                opts=self.opts,
                utils=self.utils,
                salt=self.salt,
                time_shim=self.time_shim,
                session=self.session,
                runtime=self.runtime,
                where=where,
            )
        except DriverUnavailable as ex:
            self._raise_missing(alias, name, source, before)
            said = self.salt_mode.warnings_since(warned) if self.salt_mode is not None else []
            if said and str(ex).endswith("without a reason"):
                raise DriverUnavailable(
                    f"{str(ex)[: -len('it returned False without a reason')]}"
                    f"it returned False; Salt said: {'; '.join(said)}"
                ) from None
            raise
        if self.salt_mode is not None:
            loaded.required = SALT_CLOUD_REQUIRED
        if loaded.name != name and self.locator.by_file_name(name, source):
            loaded.name = name
        if loaded.name != name:
            raise DriverLoadError(
                f"{where}: {loaded.source} is the driver {loaded.name!r} (its __virtual__() says "
                f"so), not {name!r}"
            )
        self._check_configured(loaded, before)
        self._drivers[alias] = loaded
        return loaded

    def _raise_missing(self, alias: str, name: str, source: str, before: int) -> None:
        notes = [n for n in self.runtime.notes[before:] if n.provider in (f"{alias}:{name}", name)]
        if notes and notes[-1].missing:
            keys = notes[-1].missing
            key_list = ", ".join(keys)
            raise ConfigurationError(
                f"{self.config.providers_file}: {alias}.{keys[0]}: missing credential"
                f"{'s' if len(keys) > 1 else ''} {key_list} required by driver {name!r} ({source})"
            )

    def _check_configured(self, loaded: LoadedDriver, before: int) -> None:
        fun = loaded.function("get_configured_provider")
        if fun is None:
            return
        try:
            with self.session():
                result = fun()
        except Exception as ex:
            raise DriverLoadError(
                f"{loaded.source}: get_configured_provider() raised {type(ex).__name__}: {ex}"
            ) from None
        if not result:
            self._raise_missing(loaded.alias, loaded.name, loaded.source, before)
            raise ConfigurationError(
                f"{self.config.providers_file}: {loaded.alias}: driver {loaded.name!r} says the "
                f"provider is not configured (get_configured_provider() returned {result!r})"
            )

    # --- calling ----------------------------------------------------------------------

    def call(self, alias: str, function: str, *args: Any, **kwargs: Any) -> Any:
        """Call driver *function* of provider *alias* in a session; errors become DriverCallError."""
        loaded = self.driver(alias)
        fun = loaded.function(function)
        if fun is None:
            raise DriverCallError(
                f"{loaded.source}: driver {loaded.name!r} has no function {function!r}"
            )
        with self.session():
            try:
                return fun(*args, **kwargs)
            except Exception as ex:
                raise self._call_error(loaded, function, ex) from ex

    def _call_error(self, loaded: LoadedDriver, function: str, ex: Exception) -> DriverCallError:
        where = f"{loaded.source}: {function}()"
        short = _short_connection_error(ex)
        if short is not None:
            return DriverCallError(f"{where}: {short}", ex)
        if type(ex).__name__.startswith("SaltCloud") or isinstance(ex, PlugsimError):
            return DriverCallError(f"{where}: {type(ex).__name__}: {ex}", ex)
        frames = [f for f in traceback.extract_tb(ex.__traceback__) if f.filename == loaded.source]
        line = f" at line {frames[-1].lineno}" if frames else ""
        return DriverCallError(f"{where} raised {type(ex).__name__}{line}: {ex}", ex)

    def aliases(self) -> list[str]:
        """Return every provider alias, sorted."""
        return self.config.aliases()

    def _resolve(self, provider: str) -> str:
        alias, _ = self.config.resolve_provider(provider, f"provider {provider!r}")
        return alias

    # --- salt-cloud operations ---------------------------------------------------------

    def create(self, profile: str, name: str, overrides: Mapping[str, Any] | None = None) -> Any:
        """Create *name* from *profile* (``salt-cloud -p PROFILE NAME``); return create()'s result.

        *overrides* replace the profile's settings for this node (a map file's).
        """
        vm_ = self.vm(profile, name)
        if overrides:
            vm_.update(copy.deepcopy(dict(overrides)))
        alias = vm_["provider"].split(":", 1)[0]
        return self.call(alias, "create", vm_)

    def create_map(self, entries: Iterable[MapEntry], parallel: bool = False) -> dict[str, Any]:
        """Create a map's nodes (``salt-cloud -m MAP [-P]``); existing ones are left alone.

        With *parallel* the creates run at the same time in virtual time
        (:func:`~simulator.drivers.parallel.run_parallel`). Returns ``{name:
        result}`` (``{"Already exists": True}`` for a node that exists); the
        first failure is raised after every create has finished.
        """
        entries = list(entries)
        existing: set[str] = set()
        for alias in self.aliases():
            nodes = self._listing(alias)
            if isinstance(nodes, Mapping):
                existing.update(str(n) for n in nodes)
        todo = [e for e in entries if e.name not in existing]
        results: dict[str, Any] = {e.name: {"Already exists": True} for e in entries}
        calls = [functools.partial(self.create, e.profile, e.name, e.overrides) for e in todo]
        if parallel and len(calls) > 1:
            with self.session():
                outcomes = run_parallel(self.clock, calls)
        else:
            outcomes = []
            for call in calls:
                try:
                    outcomes.append(Outcome(call()))
                except DriverCallError as ex:
                    outcomes.append(Outcome(error=ex))
        for entry, outcome in zip(todo, outcomes, strict=True):
            results[entry.name] = outcome.value
        for outcome in outcomes:
            if outcome.error is not None:
                raise outcome.error
        return results

    def vm(self, profile: str, name: str) -> dict[str, Any]:
        """Return the ``vm_`` that ``create`` gets for *name* on *profile* (Salt's in salt mode)."""
        if self.salt_mode is not None:
            return self.salt_mode.vm(profile, name)
        return self.config.vm(profile, name)

    def locate(self, name: str) -> str | None:
        """Return the alias whose ``list_nodes()`` has a node called *name*."""
        for alias in self.aliases():
            nodes = self._listing(alias)
            if isinstance(nodes, Mapping) and name in nodes:
                return alias
        return None

    def destroy(self, name: str) -> dict[str, Any]:
        """Destroy node *name* wherever it is (``salt-cloud -d NAME``)."""
        alias = self.locate(name)
        if alias is None:
            raise EntityNotFound(entity="node", name=name)
        return {alias: {self.config.driver_of(alias): {name: self.call(alias, "destroy", name)}}}

    def deleting(self) -> set[tuple[str, str, str]]:
        """Return the keys of the world's entities whose deletion is under way."""
        return {i.key for i in self.cloud.inventory() if getattr(i, "status", "") == "DELETING"}

    def settle_deletions(self, before: set[tuple[str, str, str]], limit: float = 900.0) -> float:
        """Let virtual time pass until the deletions started since *before* are done.

        What the wall clock gives a salt-cloud user between ``-d`` and the next
        ``-Q``: the provider finishes deleting, and the node leaves its list.
        Waits at most *limit* virtual seconds (a stuck deletion stays); returns
        the seconds waited.
        """
        start = self.clock.now()
        started = self.deleting() - before
        while started and self.clock.now() - start < limit:
            self.clock.advance(1.0)
            started &= self.deleting()
        return self.clock.now() - start

    def query(self, function: str = "list_nodes") -> dict[str, Any]:
        """Run a listing function on every provider: ``{alias: {driver: result}}``."""
        if function not in QUERY_FUNCTIONS:
            raise ConfigurationError(
                f"unknown query {function!r} (known: {', '.join(QUERY_FUNCTIONS)})"
            )
        return {a: {self.config.driver_of(a): self._listing(a, function)} for a in self.aliases()}

    def _listing(self, alias: str, function: str = "list_nodes") -> Any:
        """Run one provider's listing as salt-cloud maps providers: a failure lists nothing.

        Salt's ``map_providers`` gives a provider whose listing raised an empty
        list and logs why; the other providers still answer. The error is kept
        in :attr:`listing_errors` (``(alias, message)``) for the caller to show.
        """
        try:
            return self.call(alias, function)
        except DriverCallError as ex:  # a configuration or load error still stops the command
            self.listing_errors.append((alias, str(ex).splitlines()[0] if str(ex) else ""))
            return []

    def action(
        self, action: str, name: str, kwargs: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Run *action* on node *name* (``salt-cloud -a ACTION NAME [k=v ...]``)."""
        alias = self.locate(name)
        if alias is None:
            raise EntityNotFound(entity="node", name=name)
        if kwargs:
            result = self.call(alias, action, name, dict(kwargs), call=cd.ACTION_CALL)
        else:
            result = self.call(alias, action, name, call=cd.ACTION_CALL)
        return {alias: {self.config.driver_of(alias): {name: result}}}

    def function(
        self, function: str, provider: str, kwargs: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Run provider *function* (``salt-cloud -f FUNCTION PROVIDER [k=v ...]``)."""
        alias = self._resolve(provider)
        if kwargs:
            result = self.call(alias, function, kwargs=dict(kwargs), call=cd.FUNCTION_CALL)
        else:
            result = self.call(alias, function, call=cd.FUNCTION_CALL)
        return {alias: {self.config.driver_of(alias): result}}

    def avail(self, kind: str, provider: str) -> dict[str, Any]:
        """List images, sizes or locations of *provider* (``--list-images`` ...)."""
        if kind not in AVAIL_FUNCTIONS:
            raise ConfigurationError(
                f"unknown listing {kind!r} (known: {', '.join(AVAIL_FUNCTIONS)})"
            )
        alias = self._resolve(provider)
        result = self.call(alias, AVAIL_FUNCTIONS[kind])
        return {alias: {self.config.driver_of(alias): result}}

    # --- records ---------------------------------------------------------------------------

    def events(self, prefix: str = "") -> list[cd.CloudEvent]:
        """Return the events drivers fired (tag prefix filter), in order."""
        return self.bus.events(prefix)

    def now(self) -> float:
        """Return the virtual time in seconds."""
        return self.clock.now()

    def rest_report(self) -> RestReport | None:
        """Return the fake REST server's report (calls, unserved endpoints, bugs), or None."""
        return self.rest.report() if self.rest is not None else None


def provider_credentials(config: CloudConfig) -> list[str]:
    """Return the credential values the providers name (secret-looking settings), sorted."""
    found = set()
    for alias in config.aliases():
        for key, value in config.provider_settings(alias).items():
            if isinstance(value, str) and value and (cd.is_secret_key(key) or key == "key"):
                found.add(value)
    return sorted(found)


def provider_base_urls(config: CloudConfig) -> dict[str, str]:
    """Return the base URL of each self-hosted API the providers name (first provider wins).

    A CloudStack provider's ``host``/``path``/``secure``/``port`` are where its
    API lives; the fake CloudStack API is served there.
    """
    found: dict[str, str] = {}
    for alias in config.aliases():
        settings = config.provider_settings(alias)
        if config.driver_of(alias) != "cloudstack" or "cloudstack" in found:
            continue
        host, path = settings.get("host"), settings.get("path")
        if not isinstance(host, str) or not host or not isinstance(path, str):
            continue
        scheme = "http" if settings.get("secure") is False else "https"
        port = settings.get("port")
        netloc = f"{host}:{port}" if port not in (None, "") else host
        found["cloudstack"] = f"{scheme}://{netloc}/{path.lstrip('/')}".rstrip("/")
    return found


def openstack_auth_url(config: CloudConfig) -> str | None:
    """Return the keystone URL the first openstack provider names (``auth.auth_url``)."""
    for alias in config.aliases():
        if config.driver_of(alias) != "openstack":
            continue
        auth = config.provider_settings(alias).get("auth")
        if isinstance(auth, Mapping) and isinstance(auth.get("auth_url"), str):
            return str(auth["auth_url"])
    return None


def cloud_driver_bus(clock: VirtualClock) -> cd.EventBus:
    """Return an event bus stamping events with *clock*'s virtual time."""
    return cd.EventBus(clock=clock.now)


def cloud_driver_runtime(
    bus: cd.EventBus, clock: VirtualClock, epoch: float, deploy: Callable[..., Any]
) -> cd.DriverRuntime:
    """Return the runtime the harness installs: virtual sleep/now, *bus*, simulated *deploy*."""

    def sleep(seconds: float) -> None:
        if seconds < 0:
            raise ValueError("sleep length must be non-negative")
        clock.sleep_sync(float(seconds))

    return cd.DriverRuntime(bus=bus, sleep=sleep, now=lambda: epoch + clock.now(), deploy=deploy)
