"""Real-Salt mode: drivers written against Salt's own modules run unmodified under the harness.

When Salt is importable, a driver that does ``import salt.config as config``,
``import salt.utils.cloud`` and ``from salt.exceptions import ...`` gets what
salt-cloud would give it:

* ``__opts__`` built by Salt's own configuration code
  (``salt.config.apply_master_config``, ``apply_cloud_providers_config``,
  ``apply_vm_profiles_config`` and ``cloud_config``) with Salt's own
  directories (cache, pki, sockets ...) in a private temporary directory and
  the user's providers, profiles and settings exactly as written - so ``opts["providers"][alias][driver]``
  carries its ``profiles`` and every profile names ``alias:driver``, exactly as
  in salt-cloud;
* ``vm_`` built like ``salt.cloud.Cloud.vm_config`` (global settings, then the
  provider's, then the profile's, then ``name``) plus ``os`` as
  ``Cloud.create`` sets it;
* ``__utils__``: a mapping like Salt's loader gives, whose pure helpers
  (``cloud.filter_event``, ``cloud.is_public_ip``, ``cloud.list_nodes_select``,
  ``cloud.wait_for_ip``, ``cloud.cache_node`` ...) are Salt's own functions from
  a private copy of ``salt.utils.cloud`` (its ``__opts__`` injected, its
  ``time`` virtual), while ``cloud.fire_event`` goes to the harness's bus,
  ``cloud.bootstrap`` / ``deploy_script`` / ``deploy_windows`` /
  ``wait_for_port`` to the simulated deploy and ``http.query`` through
  ``requests`` to the fake clouds.

Nothing is patched for good. For the duration of a driver call
(:meth:`SaltMode.scope`, entered by the harness session) the *global*
``salt.utils.cloud`` / ``salt.utils.files`` modules see virtual time and
their event, SSH and deploy functions are the harness's, so a driver calling
``salt.utils.cloud.wait_for_ip`` directly polls in virtual time and nothing
reaches Salt's event bus or a real machine. The patch is process-wide while
it lasts, so other threads calling Salt in the same process during a driver
call see it too.
"""

from __future__ import annotations

import collections
import copy
import functools
import importlib
import importlib.metadata
import importlib.util
import inspect
import itertools
import logging
import os
import sys
import tempfile
import types
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from importlib.machinery import PathFinder
from typing import Any

import yaml

from sdk import cloud_driver as cloud
from sdk.exception import ConfigurationError
from simulator.drivers.config import DEFAULT_SELECTION, CloudConfig
from simulator.drivers.utils import UtilsMap, http_query
from simulator.drivers.vtime import VirtualTimeModule, patch_module_time

#: Environment variable forcing the mode: ``1``/``true``/``on`` or ``0``/``false``/``off``.
SALT_MODE_ENV = "PLUGSIM_SALT_MODE"

#: The Salt modules that must import cleanly for the mode to be available.
SALT_MODULES = ("salt.config", "salt.exceptions", "salt.utils.cloud", "salt.cloud")

#: Global Salt modules whose ``time`` is virtual (and impure helpers replaced) during a call.
SCOPED_MODULES = (
    "salt.utils.cloud",
    "salt.utils.files",
    # libcloud polls asynchronous jobs (CloudStack's) with time.sleep/time.time, and retries.
    "libcloud.common.base",
    "libcloud.utils.retry",
    # shade (Salt's openstack driver) waits for servers with time.sleep.
    "shade._utils",
    "shade.openstackcloud",
)

#: ``__utils__`` keys served by Salt's own functions (a private copy of salt.utils.cloud).
SALT_HELPERS = (
    "cachedir_index_add",
    "cachedir_index_del",
    "cache_node",
    "cache_node_list",
    "check_key_path_and_mode",
    "check_name",
    "delete_minion_cachedir",
    "filter_event",
    "get_salt_interface",
    "init_cachedir",
    "is_public_ip",
    "list_cache_nodes_full",
    "list_nodes_select",
    "minion_config",
    "run_func_until_ret_arg",
    "salt_config_to_yaml",
    "ssh_usernames",
    "userdata_template",
    "wait_for_fun",
    "wait_for_ip",
)

#: salt.utils.cloud functions that would reach the event bus, SSH, WinRM or a real machine.
IMPURE_HELPERS = (
    "bootstrap",
    "deploy_script",
    "deploy_windows",
    "fire_event",
    "remove_sshkey",
    "wait_for_passwd",
    "wait_for_port",
    "wait_for_psexecsvc",
    "wait_for_winexe",
    "wait_for_winrm",
)

#: Seconds Salt's deploy waits for the SSH/SMB port (deploy_script's 15-minute default).
SALT_PORT_TIMEOUT = 15 * 60.0

_ENABLED = {"1", "true", "yes", "on"}
_DISABLED = {"0", "false", "no", "off"}
_PLACEHOLDER_ROOT = "/__plugsim_salt_root__"
_COUNTER = itertools.count(1)
_MISSING_KEY_MESSAGE = "The required '%s' configuration setting is"


@functools.cache
def salt_unavailable_reason() -> str | None:
    """Return why Salt cannot be used (None when every module in SALT_MODULES imports)."""
    if importlib.util.find_spec("salt") is None:
        return "Salt is not installed (pip install 'plugsim[salt]')"
    for name in SALT_MODULES:
        try:
            importlib.import_module(name)
        except Exception as ex:  # a broken Salt install must not break the harness
            return f"Salt is installed but {name} does not import: {type(ex).__name__}: {ex}"
        finally:
            _drop_vendored_metadata_finders()
    return None


def _drop_vendored_metadata_finders() -> list[str]:
    """Undo one import-time side effect of Salt; return the finders removed.

    Importing ``salt.config`` installs the distribution finder of Salt's
    vendored, older ``importlib_metadata`` on ``sys.meta_path``. Its
    distributions lack what the standard library's ``importlib.metadata``
    expects, so every later ``importlib.metadata.entry_points()`` call in the
    process - plugsim's registry of fake clouds, pytest's plugin loading -
    fails with ``AttributeError: 'PathDistribution' object has no attribute
    '_normalized_name'``. The standard library's own finder still serves Salt.
    """
    removed = [
        f for f in sys.meta_path if type(f).__module__.startswith("salt.ext.importlib_metadata")
    ]
    for finder in removed:
        sys.meta_path.remove(finder)
    names = [type(f).__qualname__ for f in removed]
    # The vendored package also deletes the standard PathFinder's find_distributions
    # ("give the backport primacy"); without it the standard library finds no
    # distribution at all. Put the standard behaviour back.
    if not hasattr(PathFinder, "find_distributions"):
        PathFinder.find_distributions = staticmethod(_find_distributions)  # type: ignore[attr-defined]
        names.append("PathFinder.find_distributions (restored)")
    return names


def _find_distributions(*args: Any, **kwargs: Any) -> Any:
    """The standard library's path-based distribution search (what PathFinder offers)."""
    return importlib.metadata.MetadataPathFinder.find_distributions(*args, **kwargs)


def salt_available() -> bool:
    """Return True when Salt imports cleanly in this interpreter."""
    return salt_unavailable_reason() is None


def salt_version() -> str | None:
    """Return the installed Salt's version string, or None when Salt is unavailable."""
    if not salt_available():
        return None
    return str(importlib.import_module("salt.version").__version__)


def salt_mode_wanted(requested: bool | None = None) -> bool:
    """Decide whether a harness runs in real-Salt mode.

    *requested* True/False wins; None reads :data:`SALT_MODE_ENV` and, when it
    is unset, turns the mode on exactly when Salt imports. Asking for the mode
    (argument or environment) when Salt is unavailable is a
    :class:`~sdk.exception.ConfigurationError` saying why.
    """
    source = "salt_mode=True"
    if requested is None:
        env = os.environ.get(SALT_MODE_ENV, "").strip().lower()
        if env in _DISABLED:
            return False
        if env not in _ENABLED:
            if env:
                raise ConfigurationError(
                    f"{SALT_MODE_ENV}={os.environ[SALT_MODE_ENV]!r}: expected 1/true/on or "
                    "0/false/off"
                )
            return salt_available()
        source = f"{SALT_MODE_ENV}={os.environ[SALT_MODE_ENV]}"
    elif not requested:
        return False
    reason = salt_unavailable_reason()
    if reason is not None:
        raise ConfigurationError(f"{source}: real-Salt mode is not available: {reason}")
    return True


# --- __opts__ -----------------------------------------------------------------------------------


@functools.cache
def _master_template() -> dict[str, Any]:
    salt_config = importlib.import_module("salt.config")
    root = _PLACEHOLDER_ROOT
    roots = {"base": [os.path.join(root, "srv", "salt")]}
    overrides = {
        "root_dir": root,
        "conf_file": os.path.join(root, "master"),
        "file_roots": roots,
        "pillar_roots": copy.deepcopy(roots),
    }
    return salt_config.apply_master_config(overrides, dict(salt_config.DEFAULT_MASTER_OPTS))


def _salt_package_dir() -> str:
    return os.path.dirname(importlib.import_module("salt").__file__ or "")


def reroot(value: Any, root: str, keep: tuple[str, ...] = ()) -> Any:
    """Return *value* with every absolute path moved under *root* (paths under *keep* stay)."""
    if isinstance(value, str):
        if value.startswith(_PLACEHOLDER_ROOT):
            return root + value[len(_PLACEHOLDER_ROOT) :]
        if not os.path.isabs(value) or value == os.sep or value.startswith(root):
            return value
        if any(value.startswith(k) for k in keep):
            return value
        return os.path.join(root, value.lstrip(os.sep))
    if isinstance(value, Mapping):
        return {k: reroot(v, root, keep) for k, v in value.items()}
    if isinstance(value, list):
        return [reroot(v, root, keep) for v in value]
    if isinstance(value, tuple):
        return tuple(reroot(v, root, keep) for v in value)
    return value


def redirect_salt_dirs(
    opts: dict[str, Any], root: str, user_settings: Mapping[str, Any]
) -> dict[str, Any]:
    """Move Salt's own directories in *opts* under *root*; leave the user's configuration alone.

    Salt's own directories are the path-valued master options (``cachedir``,
    ``pki_dir``, ``sock_dir``, ``file_roots`` ...) - always redirected, so a
    run never writes to ``/var/cache/salt`` or ``/etc/salt/pki``. Everything
    the user wrote (providers, profiles, other global settings such as
    ``ssh_key_file: /dev/null`` or a URL) stays exactly as written; so do
    paths into Salt's package (its deploy scripts).
    """
    own = salt_owned_keys()
    out: dict[str, Any] = {}
    for key, value in opts.items():
        if key in ("providers", "profiles") or (key in user_settings and key not in own):
            out[key] = value
        else:
            out[key] = reroot(value, root, keep=(_salt_package_dir(),))
    return out


@functools.cache
def salt_owned_keys() -> frozenset[str]:
    """Return the master options whose default value holds a path of Salt's own."""
    template = _master_template()
    return frozenset(key for key, value in template.items() if _PLACEHOLDER_ROOT in repr(value))


def salt_cloud_opts(config: CloudConfig, root: str) -> dict[str, Any]:
    """Return salt-cloud's ``__opts__`` for *config*, built by Salt's own config code under *root*.

    The global settings are written to ``<root>/cloud`` and read back by
    ``salt.config.cloud_config``; the master options are Salt's defaults. Every
    absolute path (cachedir, sock_dir, pki_dir, file_roots ...) ends up under
    *root*, except Salt's own package directory (its built-in deploy scripts).
    """
    salt_config = importlib.import_module("salt.config")
    os.makedirs(root, exist_ok=True)
    cloud_file = os.path.join(root, "cloud")
    with open(cloud_file, "w", encoding="utf-8") as fh:
        yaml.safe_dump(config.settings, fh)
    raw_providers = {a: copy.deepcopy(config.provider_settings(a)) for a in config.aliases()}
    try:
        providers = salt_config.apply_cloud_providers_config(raw_providers)
        profiles = salt_config.apply_vm_profiles_config(providers, copy.deepcopy(config.profiles))
        master = reroot(copy.deepcopy(_master_template()), root)
        # Empty mappings count as "not given" there (Salt then reads the absent
        # <root>/cloud.providers and <root>/cloud.profiles files: empty too).
        opts = salt_config.cloud_config(
            cloud_file,
            master_config=master,
            providers_config=providers or None,
            profiles_config=profiles or None,
        )
    except Exception as ex:  # Salt's own validation (SaltCloudConfigError ...)
        raise ConfigurationError(
            f"{config.providers_file}, {config.profiles_file}: Salt's configuration code "
            f"refused them: {type(ex).__name__}: {ex}"
        ) from None
    opts = redirect_salt_dirs(dict(opts), root, config.settings)
    opts.setdefault("query.selection", list(DEFAULT_SELECTION))
    opts.setdefault("deploy", True)
    opts.setdefault("minion", {})
    opts.setdefault("filter_events", {})
    opts.setdefault("update_cachedir", False)
    opts["parallel"] = False
    return opts


# --- __utils__ ------------------------------------------------------------------------------------


def _load_private_cloud_utils(namespace: Mapping[str, Any]) -> types.ModuleType:
    """Execute salt/utils/cloud.py as a private module (not in sys.modules) with *namespace*."""
    source = importlib.import_module("salt.utils.cloud").__file__
    spec = importlib.util.spec_from_file_location(
        f"_plugsim_salt_utils_cloud_{next(_COUNTER)}", source
    )
    module = importlib.util.module_from_spec(spec)
    module.__dict__.update(namespace)
    spec.loader.exec_module(module)
    return module


def simulated_helpers(vm_provider: Callable[[Mapping[str, Any]], Mapping[str, Any]]) -> dict:
    """Return the harness's stand-ins for Salt's impure ``salt.utils.cloud`` functions.

    *vm_provider* turns a Salt-style ``vm_`` into the one :func:`sdk.cloud_driver.bootstrap`
    reads (``driver`` as ``alias:driver``).
    """

    def fire_event(
        key: str,
        msg: str,
        tag: str,
        sock_dir: str | None = None,
        args: Mapping[str, Any] | None = None,
        transport: str | None = "zeromq",
    ) -> cloud.CloudEvent:
        return cloud.fire_event(key, msg, tag, sock_dir=sock_dir, args=args, transport=transport)

    def bootstrap(vm_: Mapping[str, Any], opts: Mapping[str, Any] | None = None) -> dict:
        return cloud.bootstrap(vm_provider(vm_), opts)

    def wait_for_port(
        host: str, port: int = 22, timeout: float = 900, gateway: Any = None, **_ignored: Any
    ) -> bool:
        try:
            cloud.current_runtime().deploy(
                "port", {"host": host, "port": port, "timeout": timeout, "script": "port check"}
            )
        except cloud.CloudDriverError:
            return False
        return True

    def wait_for_passwd(
        host: str,
        port: int = 22,
        ssh_timeout: float = 15,
        username: str = "root",
        maxtries: int = 15,
        **_ignored: Any,
    ) -> bool:
        # An SSH login (key or password) succeeds once the simulated server's port is open;
        # Salt tries up to maxtries times, ssh_timeout seconds each.
        timeout = float(ssh_timeout or 15) * max(1, int(maxtries or 1))
        try:
            cloud.current_runtime().deploy(
                "ssh",
                {"host": host, "port": port, "timeout": timeout, "script": f"login {username}"},
            )
        except cloud.CloudDriverError:
            return False
        return True

    def refuse(name: str) -> Callable[..., Any]:
        def refused(*_args: Any, **_kwargs: Any) -> Any:
            raise cloud.SaltCloudSystemExit(
                f"salt.utils.cloud.{name}() would reach a real machine; the plugsim harness "
                "does not simulate it (use cloud.bootstrap / cloud.wait_for_port)"
            )

        refused.__name__ = name
        return refused

    helpers: dict[str, Callable[..., Any]] = {
        "fire_event": fire_event,
        "bootstrap": bootstrap,
        "deploy_script": cloud.deploy_script,
        "deploy_windows": cloud.deploy_windows,
        "wait_for_port": wait_for_port,
        "wait_for_passwd": wait_for_passwd,
    }
    for name in IMPURE_HELPERS:
        helpers.setdefault(name, refuse(name))
    return helpers


# --- the mode ------------------------------------------------------------------------------------


class _MissingKeyNotes(logging.Handler):
    """Turns Salt's "required setting is missing" warnings into runtime ConfigNotes.

    Salt's other warnings while a driver loads or runs ("Missing dependency:
    'IPy'. The proxmox driver requires ...") are kept in *warnings* so a driver
    that disables itself without a reason can be reported with Salt's words.
    """

    def __init__(self, runtime: cloud.DriverRuntime, warnings: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.runtime = runtime
        self.warnings = warnings

    def emit(self, record: logging.LogRecord) -> None:
        if not str(record.msg).startswith(_MISSING_KEY_MESSAGE):
            try:
                self.warnings.append(record.getMessage())
            except Exception:  # noqa: BLE001 - a malformed log record must not break a call
                self.warnings.append(str(record.msg))
        if not str(record.msg).startswith(_MISSING_KEY_MESSAGE) or len(record.args or ()) != 3:
            return
        key, provider, alias = (str(a) for a in record.args)  # type: ignore[union-attr]
        driver = provider.split(":")[-1]
        self.runtime.notes.append(cloud.ConfigNote(f"{alias}:{driver}", [key]))


class SaltMode:
    """What salt-cloud injects, built with Salt's own code, wired to one harness."""

    def __init__(
        self,
        config: CloudConfig,
        time_shim: VirtualTimeModule,
        runtime: cloud.DriverRuntime,
        salt_functions: Mapping[str, Any] | None = None,
    ) -> None:
        """Build ``__opts__`` and ``__utils__`` for *config* in a private temporary directory."""
        reason = salt_unavailable_reason()
        if reason is not None:
            raise ConfigurationError(f"real-Salt mode is not available: {reason}")
        self.config = config
        self.time_shim = time_shim
        self.runtime = runtime
        self._tmp = tempfile.TemporaryDirectory(prefix="plugsim-salt-")
        self.root = self._tmp.name
        self.opts = salt_cloud_opts(config, self.root)
        self.version = salt_version()
        self.simulated = simulated_helpers(self._vm_for_sdk)
        self.utils = UtilsMap()
        self.salt = UtilsMap(salt_functions or {})
        #: Salt's warnings logged while driver code ran (see :meth:`warnings_since`).
        self.warnings: list[str] = []
        self.private_utils = _load_private_cloud_utils(
            {
                "__opts__": self.opts,
                "__utils__": self.utils,
                "__salt__": self.salt,
                "__context__": {},
            }
        )
        patch_module_time(self.private_utils, time_shim)
        vars(self.private_utils).update(self.simulated)
        for name in SALT_HELPERS:
            self.utils[f"cloud.{name}"] = getattr(self.private_utils, name)
        for name, fun in self.simulated.items():
            self.utils[f"cloud.{name}"] = fun
        self.utils["http.query"] = http_query
        # Salt's pure dictionary helper (the openstack driver merges its settings with it).
        self.utils["dictupdate.update"] = importlib.import_module("salt.utils.dictupdate").update

    def warnings_since(self, mark: int) -> list[str]:
        """Return Salt's warnings logged during driver calls since *mark* (distinct, in order)."""
        return list(dict.fromkeys(self.warnings[mark:]))

    def close(self) -> None:
        """Remove the temporary directory."""
        self._tmp.cleanup()

    def _vm_for_sdk(self, vm_: Mapping[str, Any]) -> dict[str, Any]:
        # Salt's bootstrap waits for the port with deploy_script's own default
        # (15 minutes), never the master's ssh_timeout (60 s, a salt-ssh setting).
        out = {**vm_, "ssh_timeout": SALT_PORT_TIMEOUT}
        provider = out.get("provider")
        if isinstance(provider, str) and ":" in provider:
            out["driver"] = provider
        return out

    def vm(self, profile: str, name: str) -> dict[str, Any]:
        """Return the ``vm_`` salt-cloud passes to ``create`` for *name* on *profile*."""
        salt_config = importlib.import_module("salt.config")
        cloud_mod = importlib.import_module("salt.cloud")
        self.config.profile(profile)  # unknown profile: the harness's message
        details = self.opts["profiles"].get(profile)
        if details is None:
            raise ConfigurationError(
                f"{self.config.profiles_file}: {profile}: Salt's configuration code dropped "
                "this profile (its provider has no usable configuration)"
            )
        alias, driver = str(details["provider"]).split(":", 1)
        provider = copy.deepcopy(self.opts["providers"][alias][driver])
        provider.pop("profiles", None)
        vm_ = cloud_mod.Cloud.vm_config(
            name, copy.deepcopy(self.config.settings), provider, copy.deepcopy(details), {}
        )
        vm_["os"] = salt_config.get_cloud_config_value("script", vm_, self.opts)
        return vm_

    @contextmanager
    def scope(self) -> Iterator[SaltMode]:
        """For one driver call: global Salt helpers in virtual time and harness-served.

        ``salt.utils.cloud`` / ``salt.utils.files`` (when imported) get the
        virtual ``time`` and the harness's event, deploy and port functions;
        Salt's "required setting is missing" warnings become config notes
        (so the harness can name the missing key). Everything is restored on exit.
        """
        saved: list[tuple[types.ModuleType, dict[str, Any]]] = []
        handler = _MissingKeyNotes(self.runtime, self.warnings)
        salt_logger = logging.getLogger("salt")
        level = salt_logger.level
        if salt_logger.getEffectiveLevel() > logging.WARNING:
            salt_logger.setLevel(logging.WARNING)
        salt_logger.addHandler(handler)
        try:
            for name in SCOPED_MODULES:
                module = sys.modules.get(name)
                if module is None:
                    continue
                namespace = vars(module)
                before = dict(namespace)
                replaced = patch_module_time(module, self.time_shim)
                if name == "salt.utils.cloud":
                    namespace.update(self.simulated)
                    replaced += list(self.simulated)
                if name == "shade._utils" and not hasattr(namespace.get("inspect"), "getargspec"):
                    namespace["inspect"] = _InspectWithArgspec()
                    replaced.append("inspect")
                saved.append((module, {k: before.get(k, _ABSENT) for k in replaced}))
            yield self
        finally:
            for module, values in reversed(saved):
                namespace = vars(module)
                for key, value in values.items():
                    if value is _ABSENT:
                        namespace.pop(key, None)
                    else:
                        namespace[key] = value
            salt_logger.removeHandler(handler)
            salt_logger.setLevel(level)


_ABSENT = object()


class _InspectWithArgspec(types.ModuleType):
    """``inspect`` with ``getargspec``, for shade 1.33 (its last release) on Python >= 3.11.

    Salt 3007's own packages run Python 3.10, where ``inspect.getargspec``
    still exists; shade calls it in every decorated method. Only shade's
    module sees this stand-in, and only during a driver call.
    """

    def __init__(self) -> None:
        super().__init__("inspect")

    def __getattr__(self, name: str) -> Any:
        return getattr(inspect, name)

    @staticmethod
    def getargspec(func: Any) -> Any:
        """Return ``(args, varargs, keywords, defaults)`` like Python 3.10's getargspec."""
        spec = inspect.getfullargspec(func)
        return _ArgSpec(spec.args, spec.varargs, spec.varkw, spec.defaults)


_ArgSpec = collections.namedtuple("_ArgSpec", "args varargs keywords defaults")
