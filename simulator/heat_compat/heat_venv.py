"""Where the openstack-heat that plugsim reads lives: a virtualenv of its own.

Nothing here imports Heat; the modules that read its files (the loader, the
Heat name lookup) find its package through :func:`find_heat_package`.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

#: Environment variable naming the python of a virtualenv with ``openstack-heat``.
HEAT_PYTHON_ENV = "PLUGSIM_HEAT_PYTHON"
#: Where the Heat venv is looked for when the variable is not set.
DEFAULT_HEAT_VENV = "/tmp/heatvenv"


def heat_python() -> str | None:
    """The python of the Heat virtualenv (``$PLUGSIM_HEAT_PYTHON`` or the default), or None."""
    configured = os.environ.get(HEAT_PYTHON_ENV)
    candidate = configured or os.path.join(DEFAULT_HEAT_VENV, "bin", "python")
    return candidate if os.path.isfile(candidate) and os.access(candidate, os.X_OK) else None


def find_heat_package(python: str | None = None) -> Path | None:
    """Return the directory of the installed ``heat`` package next to *python*, or None.

    Looks in the virtualenv that *python* (default :func:`heat_python`) belongs
    to, without importing Heat.
    """
    python = python or heat_python()
    if python is None:
        return None
    venv = Path(python).parent.parent
    for found in sorted(glob.glob(str(venv / "lib" / "python*" / "site-packages" / "heat"))):
        if (Path(found) / "engine" / "resource.py").is_file():
            return Path(found)
    return None
