{%- set kind = cookiecutter.kind -%}
"""nox sessions: ``tests``, ``lint``{{ ', ``docs`` and ``upgrade``' if kind == 'resource' else ' and ``docs``' }} (``nox`` runs them all).

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
    session.run("plugsim", "lint", "--inclusion", "{{ cookiecutter.package_name }}")


@nox.session
def docs(session: nox.Session) -> None:
    """Build the documentation with warnings as errors."""
    _install(session, "docs")
    session.run("python", "-m", "sphinx", "-W", "-b", "html", "docs", "docs/_build/html")
{%- if kind == "resource" %}


@nox.session
def upgrade(session: nox.Session) -> None:
    """Check that stacks built with the last release keep working with this version.

    The last release is the newest wheel of this project on the package index (``pip
    download``); without one (before the first release) there is nothing to check. Name
    another previous version with ``nox -s upgrade -- OLD`` or ``UPGRADE_FROM=OLD``: a
    wheel, a directory or a git ref (``v0.1.0``). It is unpacked into a temporary directory,
    then ``plugsim lint --against`` and the upgrade conformance test run against it.
    """
    _install(session, "test")
    package = "{{ cookiecutter.package_name }}"
    old = list(session.posargs)
    if not old and os.environ.get("UPGRADE_FROM"):
        old = [os.environ["UPGRADE_FROM"]]
    session.run("python", "-m", "sdk.testing.previous_release", package, *old)
{%- endif %}
