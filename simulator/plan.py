"""Stack plans: compile a stack's inputs once, run them many times.

A campaign builds the same stack from the same files in every seed's world, a conformance run in
every test that uses it, and ``plugsim bench`` in every repetition. What does not depend on the
world — reading and parsing the template, its environments, its template-resource files and its
``plugsim.yaml``, merging the environments, checking the template — is a *plan*, made once per
process and shared:

* :func:`load_source` keeps each loaded :class:`~simulator.stack_source.StackSource` (with the
  parsed template and the merged environment it caches) under the arguments it was loaded with.
  Before a kept source is handed out again, every file it was read from is read again and its
  content hash compared (:class:`Inputs`), so an edited file is always seen; so is a template
  resource file that appeared since, and a file that ``get_file`` read from disk. The project
  trust decision is asked again each time.
* :func:`validate` remembers that a top-level stack's definition passed validation, under the
  source's content digest, the *plug-in set identity* (:func:`plugin_set_identity`: the very
  classes that implement each type name), the stack name, its parameter values (all but the
  seeded stack and project ids), the fake cloud's kind and service set, and what ``get_file``
  read from disk. A verdict is only kept when validating asked the fake cloud for nothing and
  did not look at the clock, so skipping it later changes no event, call or random draw: the
  same seed gives the same run with and without plans. Failures are never kept: bad input is
  checked (and reported) every time.
* :func:`shared_template` and :func:`shared_environment` give a nested stack's source (marked
  with :data:`NESTED`) the checked template and merged environment made before from the same
  content. A nested stack's validation is not shared (its parameters come from its parent,
  usually seeded physical ids, so an exact key would never repeat across seeds).

Stacks built from a plan are the same objects they always were (their definition is bound to
their own name and id), so nothing of one world leaks into another. ``PLUGSIM_PLAN_CACHE=0`` (or
:func:`disabled`) turns plans off, for comparison.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import marshal
import os
import stat
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simulator.limits import Limits
from simulator.project_config import CONFIG_NAME
from simulator.stack_source import StackSource

#: How many loaded sources and validation verdicts are kept (most recently used).
KEPT_SOURCES = 32
KEPT_VERDICTS = 256

_SOURCES: OrderedDict[tuple[Any, ...], _SourceEntry] = OrderedDict()
_VERDICTS: OrderedDict[tuple[Any, ...], None] = OrderedDict()
_enabled = os.environ.get("PLUGSIM_PLAN_CACHE", "1") != "0"

#: While a validation is watched: the names of the clients it asked the world for.
CLIENT_WATCH: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "plugsim_plan_client_watch", default=None
)

#: Pseudo parameters that differ between stacks built from one plan (seeded ids).
_STACK_ID_PARAMS = ("OS::stack_id", "OS::project_id", "AWS::StackId")


def enabled() -> bool:
    """True when plans are made and shared (the default)."""
    return _enabled


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """Build every stack from scratch meanwhile (for comparisons and tests)."""
    global _enabled
    before, _enabled = _enabled, False
    try:
        yield
    finally:
        _enabled = before


def clear() -> None:
    """Forget every plan of this process."""
    _SOURCES.clear()
    _VERDICTS.clear()
    _TEMPLATES.clear()
    _ENVIRONMENTS.clear()


def stats() -> dict[str, int]:
    """How many sources, verdicts, nested templates and nested environments are kept now."""
    return {
        "sources": len(_SOURCES),
        "verdicts": len(_VERDICTS),
        "templates": len(_TEMPLATES),
        "environments": len(_ENVIRONMENTS),
    }


# -- the inputs of a plan ----------------------------------------------------------------


#: the most bytes hashed of one input file; a larger one is never kept (loading refuses it anyway
#: under the default limits, and hashing it would read untrusted input without a bound)
MAX_HASHED_BYTES = 64 * 1024 * 1024


class NotKept(Exception):
    """An input file that a plan must not be kept for: not a regular file (a pipe, a device,
    which reading would block on or never end) or larger than :data:`MAX_HASHED_BYTES`."""


def _content(path: str) -> bytes | None:
    """The bytes of *path*, or None when it does not exist or cannot be read.

    Opened without blocking and checked on the open descriptor, so a pipe named as a template
    is never waited on here (the loader says what is wrong with it).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (OSError, ValueError):  # ValueError: a NUL byte in the name (the loader says so)
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_HASHED_BYTES:
            raise NotKept(path)
        chunks, left = [], MAX_HASHED_BYTES + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Inputs:
    """The files a plan was made from and the content hash of each (None: absent)."""

    hashes: tuple[tuple[str, str | None], ...]

    @classmethod
    def of(cls, paths: Iterable[str]) -> Inputs:
        """Read every path of *paths* now and hash its content."""
        out = []
        for path in dict.fromkeys(paths):
            data = _content(path)
            out.append((path, None if data is None else hashlib.sha256(data).hexdigest()))
        return cls(tuple(out))

    def fresh(self) -> bool:
        """True when every file still has the content it had (and absent ones are still absent)."""
        try:
            return Inputs.of(path for path, _ in self.hashes) == self
        except NotKept:
            return False


@dataclass
class _SourceEntry:
    source: StackSource
    inputs: Inputs
    #: the project configuration file whose plug-in directories the source holds (trust asked)
    config: str | None
    trusted: bool
    #: that file's plug-in directories (announced again when the source is shared)
    dirs: tuple[str, ...] = ()


def _source_key(
    template: Any,
    environment: Any,
    parameters: Any,
    files: Any,
    plugin_dirs: Iterable[str],
    limits: Limits | None,
    project_plugins: bool,
) -> tuple[Any, ...] | None:
    """The key a loaded source is kept under, or None when these inputs are not kept.

    Only sources read from files are kept (a map given in Python may change under the caller);
    relative paths mean something else in another working directory, so it is part of the key.
    """
    if not isinstance(template, str | os.PathLike):
        return None
    envs = [environment] if isinstance(environment, str | os.PathLike | Mapping) else environment
    env_names: list[str] = []
    for item in envs or ():
        if not isinstance(item, str | os.PathLike):
            return None
        env_names.append(os.fspath(item))
    try:
        values = json.dumps([parameters, files], sort_keys=True)
    except (TypeError, ValueError):
        return None
    return (
        os.getcwd(),
        os.fspath(template),
        tuple(env_names),
        values,
        tuple(plugin_dirs),
        limits,
        bool(project_plugins),
    )


def _input_paths(source: StackSource, template: Any, environment: Any) -> list[str]:
    """Every file *source* was read from, and every template-resource file it looked for."""
    paths = [os.fspath(template)]
    envs = [environment] if isinstance(environment, str | os.PathLike) else environment
    paths.extend(os.fspath(e) for e in envs or ())
    if source.base_dir:
        paths.append(os.path.join(source.base_dir, CONFIG_NAME))
    paths.extend(source.files)
    # names that were not files when the source was read: one that appears must be seen
    paths.extend(source._registry_templates())  # noqa: SLF001 - the source's own reading list
    paths.extend(source._template_types())  # noqa: SLF001
    return paths


def _project_config(source: StackSource) -> tuple[str | None, bool, tuple[str, ...]]:
    """The ``plugsim.yaml`` listing plug-in directories for *source*, whether they were run, and
    the directories."""
    if not source.base_dir:
        return None, False, ()
    from simulator.project_config import PLUGIN_DIRS, read_config

    config = read_config(Path(source.base_dir))
    dirs = config.get(PLUGIN_DIRS, [])
    if not dirs:
        return None, False, ()
    config_path = str(Path(source.base_dir) / CONFIG_NAME)
    return config_path, all(d in source.plugin_dirs for d in dirs), tuple(dirs)


def load_source(
    template: Any,
    environment: Iterable[Any] = (),
    parameters: Mapping[str, Any] | None = None,
    *,
    files: Mapping[str, str] | None = None,
    plugin_dirs: Iterable[str] = (),
    limits: Limits | None = None,
    project_plugins: bool = True,
) -> StackSource:
    """:meth:`StackSource.load`, sharing the source loaded before from the same unchanged files.

    The shared source must not be changed by its users (stacks never do: an update makes a new
    source, :meth:`StackSource.with_changes` copies).
    """
    dirs = list(plugin_dirs)
    key = (
        _source_key(template, environment, parameters, files, dirs, limits, project_plugins)
        if _enabled
        else None
    )

    def load() -> StackSource:
        return StackSource.load(
            template,
            environment,
            parameters,
            files=files,
            plugin_dirs=dirs,
            limits=limits,
            project_plugins=project_plugins,
        )

    if key is None:
        return load()
    entry = _SOURCES.get(key)
    if (
        entry is not None
        and entry.inputs.fresh()
        and _files_unchanged(entry.source)
        and _same_trust(entry, project_plugins)
    ):
        _SOURCES.move_to_end(key)
        return entry.source
    try:
        before = Inputs.of(_top_paths(template, environment))
    except NotKept:
        _SOURCES.pop(key, None)
        return load()
    source = load()
    try:
        hashes = dict(Inputs.of(_input_paths(source, template, environment)).hashes)
    except NotKept:
        return source
    hashes.update(before.hashes)  # what was read, or older: an edit meanwhile is seen next time
    config, trusted, config_dirs = _project_config(source)
    _SOURCES[key] = _SourceEntry(
        source, Inputs(tuple(hashes.items())), config, trusted, config_dirs
    )
    if len(_SOURCES) > KEPT_SOURCES:
        _SOURCES.popitem(last=False)
    return source


def _files_unchanged(source: StackSource) -> bool:
    """True unless *source*'s checked template read a ``get_file`` from disk that changed since."""
    tmpl = source.__dict__.get("_template")
    return tmpl is None or tmpl.files_unchanged()


def _top_paths(template: Any, environment: Any) -> list[str]:
    envs = [environment] if isinstance(environment, str | os.PathLike) else environment
    return [os.fspath(template), *(os.fspath(e) for e in envs or ())]


def _same_trust(entry: _SourceEntry, project_plugins: bool) -> bool:
    """Ask the project trust again: a source is only shared when the answer is the same.

    An untrusted project that must run raises its one-line error here, as loading does.
    """
    if entry.config is None:
        return True
    from simulator.project_trust import announce, may_run

    runs = may_run(entry.config, project_plugins)
    if runs and entry.trusted:
        announce(entry.dirs, entry.config)
    return runs == entry.trusted


# -- nested stacks: checked templates and merged environments -----------------------------

#: How many checked templates and merged environments of nested stacks are kept.
KEPT_TEMPLATES = 64

_TEMPLATES: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_ENVIRONMENTS: OrderedDict[tuple[Any, ...], Any] = OrderedDict()


def _content_key(*values: Any) -> bytes | None:
    """A hash of plain data *values* that tells every type and order apart (``1`` from ``"1"``,
    one key order from another), or None for data that is not plain."""
    try:
        data = marshal.dumps(values, 2)  # version 2: no back-references, so equal data, equal bytes
    except (ValueError, TypeError, RecursionError):
        return None
    return hashlib.sha256(data).digest()


def _template_key(source: StackSource) -> tuple[Any, ...] | None:
    """Everything :meth:`StackSource.check_template` reads: the template and files (content),
    the name (in messages), the directory and the limits; the working directory when the
    directory is not absolute, and whether the name is a file when there is no directory."""
    content = _content_key(source.template, source.files)
    if content is None:
        return None
    base, name = source.base_dir, source.template_name
    return (
        content,
        name,
        base,
        os.getcwd() if base is None or not os.path.isabs(base) else None,
        bool(name) and base is None and os.path.isfile(name),
        tuple(sorted(source.limits.items())),
    )


def shared_template(source: StackSource) -> Any:
    """The checked template of nested *source*, made once per content and shared.

    A template that read a ``get_file`` from disk is only shared while that file holds what was
    read; a template that fails its checks is never kept (it is checked, and fails, every time).
    """
    key = _template_key(source) if _enabled else None
    if key is None:
        return source.check_template()
    tmpl = _TEMPLATES.get(key)
    if tmpl is not None and tmpl.files_unchanged():
        _TEMPLATES.move_to_end(key)
        return tmpl
    tmpl = _TEMPLATES[key] = source.check_template()
    if len(_TEMPLATES) > KEPT_TEMPLATES:
        _TEMPLATES.popitem(last=False)
    return tmpl


def shared_environment(source: StackSource) -> Any:
    """The merged environment of nested *source*, made once per content and shared.

    An environment whose registry lists candidate templates is not kept: it reads their files
    when a type is resolved, so another stack must read them again.
    """
    content = _content_key(source.environments, source.environment_names, source.files)
    if content is None or not _enabled:
        return source.merge_environments()
    key = (content, os.getcwd())
    env = _ENVIRONMENTS.get(key)
    if env is not None:
        _ENVIRONMENTS.move_to_end(key)
        return env
    env = source.merge_environments()
    if not env.registry.choice_entries():
        _ENVIRONMENTS[key] = env
        if len(_ENVIRONMENTS) > KEPT_TEMPLATES:
            _ENVIRONMENTS.popitem(last=False)
    return env


class _NestedPlans:
    """The plans a nested stack's source takes its template and environment from."""

    template = staticmethod(shared_template)
    environment = staticmethod(shared_environment)


#: what :meth:`StackSource.share_plans` is given for a nested stack's source
NESTED = _NestedPlans()


# -- validation verdicts -----------------------------------------------------------------


def plugin_set_identity(registry: Any, dirs: Iterable[str]) -> tuple[Any, ...]:
    """Which class implements each type name for a stack with plug-in *dirs*.

    Two registries give the same identity exactly when they map every type name to the very same
    class object (plug-in modules are loaded once per process, so every world of a campaign
    shares them); the identity holds the classes, so an id is never reused by another class.
    """
    memo = registry.__dict__.setdefault("_plan_identities", {})
    key = tuple(dirs)
    found = memo.get(key)
    if found is None:
        found = memo[key] = tuple(sorted(registry.plugins(key).items()))
    return found


def _verdict_key(source: StackSource, definition: Any, stack: Any) -> tuple[Any, ...] | None:
    world = stack.world
    if stack.parent_resource is not None:
        return None  # a nested stack's validation reads its parent's resources
    params = {k: v for k, v in definition.parameters.items() if k not in _STACK_ID_PARAMS}
    try:
        values = json.dumps(params, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return None
    service_names = getattr(world.cloud, "service_names", None)  # a backend may not have one
    return (
        source.digest,
        plugin_set_identity(world.registry, source.plugin_dirs),
        stack.name,
        values,
        type(world.cloud),
        tuple(sorted(service_names())) if callable(service_names) else None,
    )


def validate(source: StackSource, definition: Any, stack: Any) -> None:
    """Validate *definition* of top-level *stack* (:meth:`StackSource.validate`), once per plan.

    A verdict is reused only for a stack with the same key (see the module docstring); the first
    validation of a key always runs, and so does every one that failed.
    """
    lookup = stack.world.registry.type_lookup(source, stack)
    key = _verdict_key(source, definition, stack) if _enabled else None
    if key is None:
        source.validate(definition, lookup)
        return
    full = (*key, _files_read(definition))
    if full in _VERDICTS:
        _VERDICTS.move_to_end(full)
        return
    asked: list[str] = []
    token = CLIENT_WATCH.set(asked)
    lookup.clock = _WatchedClock(stack.world.clock, asked)
    started = stack.world.clock.now()
    try:
        source.validate(definition, lookup)
    finally:
        CLIENT_WATCH.reset(token)
    if asked or stack.world.clock.now() != started:
        return  # the fake cloud or the clock took part: this verdict belongs to this world
    _VERDICTS[(*key, _files_read(definition))] = None  # what it read now, as a later lookup sees
    if len(_VERDICTS) > KEPT_VERDICTS:
        _VERDICTS.popitem(last=False)


def _files_read(definition: Any) -> tuple[tuple[str, str], ...]:
    """What ``get_file`` read from disk for the definition's template (a verdict depends on it;
    the source's digest holds only its files map)."""
    cache = getattr(getattr(definition, "template", None), "_file_cache", None)
    return tuple(sorted(cache.items())) if cache else ()


class _WatchedClock:
    """The world's clock, noting that a validation used it (its verdict then depends on time)."""

    def __init__(self, clock: Any, used: list[str]) -> None:
        self._clock = clock
        self._used = used

    def __getattr__(self, name: str) -> Any:
        self._used.append(f"clock.{name}")
        return getattr(self._clock, name)
