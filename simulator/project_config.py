"""The project configuration: a ``plugsim.yaml`` next to a template.

When a template file has a ``plugsim.yaml`` beside it, its ``plugin_dirs``
(paths relative to that file) are added to the stack's plug-in directories
(:mod:`simulator.stack_source`) and its ``lifecycle_plugins``
(``module:Class`` strings) are stored with the stack and run around that
stack's actions (:mod:`simulator.lifecycle`). This is how the bundled
examples run with no extra flags. Both readers import this module, not each
other.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sdk import exception
from simulator.limits import CONFIG_KEY as LIMITS_KEY
from simulator.limits import read_config_limits
from simulator.project_trust import CONFIG_NAME, announce, may_run, project_plugin_dirs

#: The project configuration file looked for next to a template.


#: The key listing a project's stack lifecycle plug-ins (``module:Class`` strings).
LIFECYCLE_PLUGINS = "lifecycle_plugins"
#: The key listing a project's plug-in directories (relative to the file).
PLUGIN_DIRS = "plugin_dirs"
#: Every key the file may set.
#: wall seconds one plug-in call may take (:mod:`simulator.watchdog`); kept with the world
HANDLER_WALL_LIMIT = "handler_wall_limit"
CONFIG_KEYS = (LIFECYCLE_PLUGINS, PLUGIN_DIRS, LIMITS_KEY, HANDLER_WALL_LIMIT)


def read_config(template_dir: Path) -> dict[str, Any]:
    """Read ``plugsim.yaml`` in *template_dir* (empty when there is none).

    Returns ``{"plugin_dirs": [absolute paths], "lifecycle_plugins": ["module:Class"],
    "limits": {name: value}}`` with the keys the file sets; anything else is a
    configuration error naming the file and the key. The file is read like a
    template (regular file, bounded; :mod:`simulator.template.files`), and
    ``plugin_dirs`` must lie inside *template_dir* (:mod:`simulator.project_trust`).
    """
    from simulator.template.files import read_text
    from simulator.template.text import parse_text

    path = Path(template_dir) / CONFIG_NAME
    if not path.is_file():
        return {}
    try:
        text = read_text(path, "The project configuration file")
        data = parse_text(text, str(path), "project configuration") or {}
    except exception.StackValidationFailed as ex:
        raise exception.ConfigurationError(str(ex)) from None
    if not isinstance(data, dict):
        raise exception.ConfigurationError(f"{path}: must be a map (e.g. plugin_dirs: [plugins])")
    unknown = sorted(str(k) for k in data if k not in CONFIG_KEYS)
    if unknown:
        raise exception.ConfigurationError(
            f"{path}: unknown key {unknown[0]!r} (known: {', '.join(CONFIG_KEYS)})"
        )
    out: dict[str, Any] = {}
    dirs = data.get("plugin_dirs") or []
    if not isinstance(dirs, list) or not all(isinstance(d, str) for d in dirs):
        raise exception.ConfigurationError(f"{path}: plugin_dirs must be a list of paths")
    if dirs:
        out["plugin_dirs"] = project_plugin_dirs(template_dir, dirs, path)
    specs = data.get("lifecycle_plugins") or []
    if not isinstance(specs, list) or not all(isinstance(x, str) for x in specs):
        raise exception.ConfigurationError(
            f"{path}: lifecycle_plugins must be a list of 'module:Class' strings"
        )
    if specs:
        out["lifecycle_plugins"] = list(specs)
    out.update(read_config_limits(data, path))
    if data.get(HANDLER_WALL_LIMIT) is not None:
        out[HANDLER_WALL_LIMIT] = check_wall_limit(data[HANDLER_WALL_LIMIT], str(path))
    return out


def check_wall_limit(value: Any, where: str) -> float:
    """*value* as a positive number of seconds (``handler_wall_limit``), or an error naming *where*."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise exception.ConfigurationError(
            f"{where}: {HANDLER_WALL_LIMIT} must be a positive number of seconds, not {value!r}"
        )
    return float(value)


def check_trusted(template_dir: str | os.PathLike[str]) -> None:
    """Raise :class:`~simulator.project_trust.UntrustedProject` when the ``plugsim.yaml`` in
    *template_dir* lists code (plug-in directories, lifecycle plug-ins) the trust rule does not let
    run: what a single run of the template would refuse.

    For commands that start many runs (a campaign): they refuse once, before the first run,
    instead of filing the refusal as every seed's failure.
    """
    config = read_config(Path(template_dir))
    if config.get(PLUGIN_DIRS) or config.get(LIFECYCLE_PLUGINS):
        may_run(Path(template_dir) / CONFIG_NAME, True)


def lifecycle_specs(template_dir: str | os.PathLike[str]) -> list[str]:
    """Return the ``lifecycle_plugins`` list of the ``plugsim.yaml`` in *template_dir*."""
    return list(read_config(Path(template_dir)).get(LIFECYCLE_PLUGINS, []))


def adopted_plugin_dirs(adopt_data: Mapping[str, Any]) -> list[str]:
    """The plug-in directories of the project an abandon document came from.

    ``stack abandon`` names the project (``plugsim_project``) whose
    ``plugsim.yaml`` gave the stack its plug-ins; ``stack adopt`` loads them
    under the same trust rule as ``stack create`` (:mod:`simulator.project_trust`).
    """

    project = adopt_data.get("plugsim_project")
    if not isinstance(project, str) or not (Path(project) / CONFIG_NAME).is_file():
        return []
    config_path = Path(project) / CONFIG_NAME
    dirs = list(read_config(Path(project)).get(PLUGIN_DIRS, []))
    if not dirs or not may_run(config_path, True):
        return []
    announce(dirs, config_path)
    return dirs
