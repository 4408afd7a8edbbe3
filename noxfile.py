"""Development sessions: ``pip install nox && nox`` runs them all.

``tests``        the test suite (every available Python from 3.11 on)
``lint``         ruff, then ``plugsim lint`` over the bundled plug-ins
``docs``         the Sphinx site, warnings as errors
``scaffold``     generate every plug-in kind, install it in a fresh venv, run its checks
``conformance``  the conformance suite on every bundled plug-in
``bench``        the engine benchmark: prints figures, never fails on speed
"""

import nox

nox.options.sessions = ["tests", "lint", "docs", "scaffold", "conformance", "bench"]
nox.options.reuse_existing_virtualenvs = True

BUNDLED_PLUGINS = ("simulator/resources/heat", "simulator/resources/openstack")


@nox.session(python=["3.11", "3.12", "3.13"])
def tests(session: nox.Session) -> None:
    """Run the test suite."""
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Check style with ruff and the bundled plug-ins with plugsim lint."""
    session.install("-e", ".[test]")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("plugsim", "lint", *BUNDLED_PLUGINS)


@nox.session
def docs(session: nox.Session) -> None:
    """Build the Sphinx documentation with warnings as errors."""
    session.install("-e", ".[docs]")
    session.run("sphinx-build", "-W", "--keep-going", "-b", "html", "docs", "docs/_build/html")


@nox.session
def scaffold(session: nox.Session) -> None:
    """Generate every plug-in kind and check it passes its own tests, lint and docs."""
    session.install("-e", ".[test]")
    session.run("pytest", "-p", "no:cacheprovider", "-m", "slow", "tests/scaffold")


@nox.session
def conformance(session: nox.Session) -> None:
    """Run the conformance suite on every bundled plug-in."""
    session.install("-e", ".[test]")
    for path in BUNDLED_PLUGINS:
        session.run("plugsim", "conformance", path)


@nox.session
def bench(session: nox.Session) -> None:
    """Print the engine benchmark figures (never fails on speed)."""
    session.install("-e", ".")
    for n in ("1000", "10000"):
        session.run("plugsim", "bench", "--resources", n)
