"""Configuration of the linter from ``pyproject.toml``'s ``[tool.plugsim.lint]`` table.

Keys (all optional)::

    [tool.plugsim.lint]
    select = ["PS1", "PS201"]          # rule ids or id prefixes; default: every rule
    ignore = ["PS103"]                 # ids or prefixes switched off
    severity = { PS105 = "error" }     # per-rule severity overrides
    [tool.plugsim.lint.per-file-ignores]
    "legacy/*.py" = ["PS101", "PS2"]   # globs relative to the pyproject.toml's directory
    [tool.plugsim.lint.properties]     # property maps for the dynamic rules (PS15x)
    "Example::Storage::Volume" = { name = "v1", size = 1 }
    "Example::Storage::Attachment" = { volume = { get_resource = "vol" } }
    [tool.plugsim.lint.companions]     # resources created beside a type (PS15x)
    "Example::Storage::Attachment" = { vol = { type = "Example::Storage::Volume" } }
    [tool.plugsim.lint.driver]         # salt-cloud configs for the dynamic driver rules
    providers = "cloud/providers.yaml" # paths relative to the pyproject.toml's directory
    profiles = "cloud/profiles.yaml"
    profile = "small"                  # optional: the profile to create from

The file is found by walking up from the first linted path to the nearest
``pyproject.toml`` that has the table. Every mistake (unknown key, unknown
rule id, bad severity, wrong value type) is a :class:`ConfigurationError`
naming the file and the key.
"""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from sdk.exception import ConfigurationError
from sdk.lint.registry import Rule, Severity, all_rules

TABLE = "[tool.plugsim.lint]"
KEYS = (
    "select",
    "ignore",
    "per-file-ignores",
    "severity",
    "properties",
    "companions",
    "driver",
)
DRIVER_KEYS = ("providers", "profiles", "profile")


@dataclass(frozen=True)
class DriverConfig:
    """``[tool.plugsim.lint.driver]``: where the providers and profiles files are."""

    providers: Path
    profiles: Path
    profile: str | None = None


@dataclass
class LintConfig:
    """Which rules run, where they are ignored, and how severe they are."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    severity: dict[str, Severity] = field(default_factory=dict)
    root: Path | None = None
    source: Path | None = None
    #: Type name -> property map the dynamic rules create that type with.
    properties: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Type name -> resource name -> HOT body of a resource created beside that type.
    companions: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: The salt-cloud configuration the dynamic driver rules run with (None: they do not run).
    driver: DriverConfig | None = None

    def enabled(self, rule: Rule) -> bool:
        """Whether *rule* is selected and not ignored."""
        if self.select and not _matches(rule.id, self.select):
            return False
        return not _matches(rule.id, self.ignore)

    def ignored_in(self, path: Path, rule_id: str) -> bool:
        """Whether a per-file-ignores glob switches *rule_id* off for *path*."""
        if not self.per_file_ignores:
            return False
        candidates = [path.as_posix()]
        if self.root is not None:
            try:
                candidates.insert(0, path.resolve().relative_to(self.root.resolve()).as_posix())
            except ValueError:
                pass
        for pattern, ids in sorted(self.per_file_ignores.items()):
            if not _matches(rule_id, ids):
                continue
            for candidate in candidates:
                if fnmatch.fnmatch(candidate, pattern) or PurePosixPath(candidate).match(pattern):
                    return True
        return False

    def severity_of(self, rule: Rule) -> Severity:
        """The rule's severity after overrides."""
        return self.severity.get(rule.id, rule.severity)


def _matches(rule_id: str, prefixes: tuple[str, ...]) -> bool:
    return any(rule_id.startswith(p) for p in prefixes)


def _where(source: Path | None, key: str) -> str:
    place = f"{TABLE} {key}" if key else TABLE
    return f"{source}: {place}" if source is not None else place


def _id_list(value: Any, source: Path | None, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigurationError(
            f'{_where(source, key)} must be a list of rule ids such as ["PS101", "PS2"], '
            f"got {value!r}"
        )
    known = [r.id for r in all_rules()]
    out = []
    for item in value:
        prefix = item.strip().upper()
        if not prefix or not any(rid.startswith(prefix) for rid in known):
            raise ConfigurationError(
                f"{_where(source, key)}: unknown rule id or prefix {item!r}; "
                "run 'plugsim lint --list-rules' to see the catalogue"
            )
        out.append(prefix)
    return tuple(out)


def config_from_table(
    table: Any, source: Path | None = None, root: Path | None = None
) -> LintConfig:
    """Build a :class:`LintConfig` from the parsed ``[tool.plugsim.lint]`` table."""
    if not isinstance(table, dict):
        raise ConfigurationError(f"{_where(source, '')} must be a table")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ConfigurationError(
            f"{_where(source, unknown[0])}: unknown key; valid keys are {', '.join(KEYS)}"
        )
    config = LintConfig(root=root, source=source)
    if "select" in table:
        config.select = _id_list(table["select"], source, "select")
    if "ignore" in table:
        config.ignore = _id_list(table["ignore"], source, "ignore")
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigurationError(
            f"{_where(source, 'per-file-ignores')} must be a table of glob = [rule ids]"
        )
    for pattern, ids in pfi.items():
        config.per_file_ignores[pattern] = _id_list(ids, source, f"per-file-ignores.{pattern!r}")
    severities = table.get("severity", {})
    if not isinstance(severities, dict):
        raise ConfigurationError(
            f'{_where(source, "severity")} must be a table of rule id = "error"|"warning"|"info"'
        )
    known = {r.id for r in all_rules()}
    for rule_id, level in severities.items():
        key = str(rule_id).strip().upper()
        if key not in known:
            raise ConfigurationError(
                f"{_where(source, f'severity.{rule_id}')}: unknown rule id {rule_id!r}"
            )
        try:
            config.severity[key] = Severity.parse(level)
        except ValueError as exc:
            raise ConfigurationError(f"{_where(source, f'severity.{rule_id}')}: {exc}") from None
    config.properties = _properties(table.get("properties", {}), source)
    config.companions = _companions(table.get("companions", {}), source)
    if "driver" in table:
        config.driver = _driver(table["driver"], source, root)
    return config


def _properties(value: Any, source: Path | None) -> dict[str, dict[str, Any]]:
    if not isinstance(value, dict):
        raise ConfigurationError(
            f"{_where(source, 'properties')} must be a table of type name = {{ property = value }}"
        )
    out: dict[str, dict[str, Any]] = {}
    for type_name, props in sorted(value.items()):
        if not isinstance(props, dict):
            raise ConfigurationError(
                f"{_where(source, f'properties.{type_name!r}')} must be a table of property "
                f"values, got {props!r}"
            )
        out[type_name] = dict(props)
    return out


def _companions(value: Any, source: Path | None) -> dict[str, dict[str, Any]]:
    if not isinstance(value, dict):
        raise ConfigurationError(
            f"{_where(source, 'companions')} must be a table of type name = "
            "{ resource name = { type = ..., properties = {...} } }"
        )
    out: dict[str, dict[str, Any]] = {}
    for type_name, resources in sorted(value.items()):
        where = f"companions.{type_name!r}"
        if not isinstance(resources, dict):
            raise ConfigurationError(
                f"{_where(source, where)} must be a table of resources, got {resources!r}"
            )
        for name, body in resources.items():
            if not isinstance(body, dict) or not isinstance(body.get("type"), str):
                raise ConfigurationError(
                    f"{_where(source, f'{where}.{name}')} must be a table with a 'type', "
                    f"got {body!r}"
                )
        out[type_name] = {name: dict(body) for name, body in resources.items()}
    return out


def _driver(value: Any, source: Path | None, root: Path | None) -> DriverConfig:
    if not isinstance(value, dict):
        raise ConfigurationError(
            f"{_where(source, 'driver')} must be a table with providers and profiles paths"
        )
    unknown = sorted(set(value) - set(DRIVER_KEYS))
    if unknown:
        raise ConfigurationError(
            f"{_where(source, f'driver.{unknown[0]}')}: unknown key; valid keys are "
            f"{', '.join(DRIVER_KEYS)}"
        )
    paths: dict[str, Path] = {}
    for key in ("providers", "profiles"):
        raw = value.get(key)
        if not isinstance(raw, str) or not raw:
            raise ConfigurationError(
                f"{_where(source, f'driver.{key}')} must be the path of a YAML file, got {raw!r}"
            )
        path = Path(raw) if root is None else root / raw
        if not path.is_file():
            raise ConfigurationError(f"{_where(source, f'driver.{key}')}: {path}: no such file")
        paths[key] = path
    profile = value.get("profile")
    if profile is not None and (not isinstance(profile, str) or not profile):
        raise ConfigurationError(
            f"{_where(source, 'driver.profile')} must be a profile name, got {profile!r}"
        )
    return DriverConfig(paths["providers"], paths["profiles"], profile)


def load_config(pyproject: Path) -> LintConfig:
    """Read the linter configuration of *pyproject* (defaults when it has no table)."""
    try:
        with pyproject.open("rb") as handle:
            data = tomllib.load(handle)
    except OSError as exc:
        raise ConfigurationError(f"{pyproject}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigurationError(f"{pyproject}: not valid TOML: {exc}") from None
    table = data.get("tool", {}).get("plugsim", {}).get("lint")
    if table is None:
        return LintConfig(root=pyproject.parent, source=pyproject)
    return config_from_table(table, source=pyproject, root=pyproject.parent)


def has_lint_table(pyproject: Path) -> bool:
    """Whether *pyproject* parses and has a ``[tool.plugsim.lint]`` table."""
    try:
        with pyproject.open("rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return pyproject.is_file()
    return isinstance(data.get("tool", {}).get("plugsim", {}).get("lint"), dict)


def find_config(start: Path) -> LintConfig:
    """Walk up from *start* to the nearest pyproject.toml with the lint table."""
    here = start.resolve()
    if not here.is_dir():
        here = here.parent
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file() and has_lint_table(candidate):
            return load_config(candidate)
    return LintConfig()
