"""Build step that ships ``cookiecutter-plugin/`` inside the wheel.

Everything else about the package lives in ``pyproject.toml``. The plug-in
template stays at the root of a checkout (where ``plugsim new`` finds it in an
editable install), and a regular build copies it to
``simulator/cookiecutter-plugin/`` so that an installed plugsim finds it too
(:func:`simulator.scaffold.find_template`). The template is not a Python package
(its directory names are Jinja expressions), so package data cannot describe it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
TEMPLATE = "cookiecutter-plugin"


class BuildPyWithTemplate(build_py):
    """``build_py`` that also copies the plug-in template next to ``simulator``'s modules."""

    def run(self) -> None:
        """Build the packages, then copy the template (not in editable mode: the checkout has it)."""
        super().run()
        if getattr(self, "editable_mode", False):
            return
        source = ROOT / TEMPLATE
        if not (source / "cookiecutter.json").is_file():
            raise FileNotFoundError(f"{source}/cookiecutter.json: the plug-in template is missing")
        target = Path(self.build_lib) / "simulator" / TEMPLATE
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildPyWithTemplate})
