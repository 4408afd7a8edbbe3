"""nox sessions: ``tests``, ``lint`` and ``docs`` (``nox`` runs them all).

``PLUGSIM`` names where plugsim comes from, as pip arguments (default: what
``plugsim new`` recorded, the plugsim that generated the project; ``plugsim``
once it is on PyPI).
"""

import os
import shlex

import nox

PLUGSIM = os.environ.get("PLUGSIM", {{ cookiecutter.plugsim_source | tojson }})


def _install(session: nox.Session, extras: str) -> None:
    session.install(*shlex.split(PLUGSIM))
    session.install("-e", f".[{extras}]")


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (the conformance suite included)."""
    _install(session, "test")
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff, then the plugsim linter with the contribution checklist."""
    _install(session, "test")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("python", "-m", "sdk.lint", "--inclusion", "{{ cookiecutter.package_name }}")


@nox.session
def docs(session: nox.Session) -> None:
    """Build the documentation with warnings as errors."""
    _install(session, "docs")
    session.run("python", "-m", "sphinx", "-W", "-b", "html", "docs", "docs/_build/html")
