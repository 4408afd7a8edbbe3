"""Development sessions: ``pip install nox && nox`` runs them all.

``tests``        the default test tier, README's ``pytest -n auto`` (every Python from 3.11 on)
``material``     the material tier (``pytest -n auto -m material``): Heat differential and
                 lifecycle runs, thousand-seed campaigns, the docs build, whole-library lint,
                 mutants, the browser test (see docs/contributing.rst)
``lint``         ruff, then ``plugsim lint`` over the bundled plug-ins
``typecheck``    mypy over the SDK (the configuration is ``[tool.mypy]`` in pyproject.toml)
``docs``         the Sphinx site, warnings as errors
``scaffold``     generate every plug-in kind, install it in a fresh venv, run its checks
``conformance``  the conformance suite on every bundled plug-in
``bench``        the engine benchmark: prints figures, never fails on speed
``openstacksdk_functional``  openstacksdk's own functional tests against ``plugsim serve``
                 (a measurement: prints pass/fail/skip figures, see docs/openstack-wire.rst)
``heat_gabbi``   heat-tempest-plugin's gabbi API tests against ``plugsim serve``'s Orchestration
                 API (a measurement; ``-- GABBITS_DIR`` to use a checkout's, see docs/heat-wire.rst)
``heat_tempest`` heat-tempest-plugin's functional and scenario tests (tempest, stestr and a
                 generated tempest.conf) against ``plugsim serve`` (a measurement; ``-- DIR``
                 runs a checkout's tests, see docs/heat-wire.rst)
``hot_corpus``   openstack/heat-templates ``hot/`` through validate and simulate
                 (``nox -s hot_corpus -- SOURCE``: a checkout or its git directory)
``cfn_corpus``   openstack/heat-templates' CloudFormation-format templates: load, and validate
                 with Heat's AWS plug-ins when PLUGSIM_HEAT_PYTHON is set (``-- SOURCE``)
``heat_inventory`` which of Heat's in-tree plug-ins load and run, then how far each running
                 type gets beyond create and delete (needs PLUGSIM_HEAT_PYTHON; not in the
                 default sessions)
``heat_conformance``  plugsim conformance on each running Heat type, failures split into
                 plugsim's and the plug-in's (needs PLUGSIM_HEAT_PYTHON; not in the defaults)
``mutants``      the mutation benchmark: planted single bugs in the example, a scaffolded
                 plug-in and Heat's Volume/Net/Server, killed or not by plugsim conformance
                 (``-- --quick`` without Heat; Heat's needs PLUGSIM_HEAT_PYTHON; not in the defaults)
``tempest_templates``  heat-tempest-plugin's templates create -> delete (``-- SOURCE``), then
                 again with Heat's own plug-ins when PLUGSIM_HEAT_PYTHON is set
``heat_third_party``  third-party Heat plug-ins (files or checkouts given after ``--``),
                 measured as ``heat_inventory`` measures Heat's own (not in the defaults)
"""

import nox

nox.options.sessions = [
    "tests",
    "material",
    "lint",
    "typecheck",
    "docs",
    "scaffold",
    "conformance",
    "bench",
]
nox.options.reuse_existing_virtualenvs = True

BUNDLED_PLUGINS = ("simulator/resources/heat", "simulator/resources/openstack")


@nox.session(python=["3.11", "3.12", "3.13"])
def tests(session: nox.Session) -> None:
    """Run the default test tier (what README's test command runs) on every core."""
    session.install("-e", ".[test]")
    session.run("pytest", *(session.posargs or ["-n", "auto"]))


@nox.session
def material(session: nox.Session) -> None:
    """Run the material tier: the tests marked ``material`` (tens of seconds each).

    The Heat differential tests among them need PLUGSIM_HEAT_PYTHON (they skip, saying so,
    without it); the browser test needs Chromium. ``--dist loadfile`` keeps each module on one
    worker, so its module-scoped material (a thousand seeds, both engines over a corpus) is
    computed once.
    """
    session.install("-e", ".[test]")
    session.run("pytest", "-n", "auto", "--dist", "loadfile", "-m", "material", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Check style with ruff and the bundled plug-ins with plugsim lint."""
    session.install("-e", ".[test]")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("plugsim", "lint", *BUNDLED_PLUGINS)


@nox.session
def typecheck(session: nox.Session) -> None:
    """Type-check the SDK with mypy; the files and settings are pyproject's [tool.mypy]."""
    session.install("-e", ".[test]")
    session.run("mypy")


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
    # Module names: the directory loader skips a package's __init__.py, where the
    # mappings live. Types needing another resource first cannot run in the CLI's
    # one-resource stacks; tests/library/test_conformance_*.py covers them.
    needs_prerequisite = " or ".join(
        f"Test_{name}"
        for name in (
            "OS__Cinder__VolumeAttachment",
            "OS__Heat__ScalingPolicy",
            "OS__Heat__SoftwareDeployment",
            "OS__Heat__StructuredDeployment",
            "OS__Heat__WaitCondition",
            "OS__Neutron__FloatingIPAssociation",
            "OS__Neutron__RouterInterface",
            "OS__Neutron__SecurityGroupRule",
            "OS__Neutron__Subnet",
        )
    )
    # The handle's name contains the wait condition's: keep it selected.
    needs_prerequisite = needs_prerequisite.replace(
        "Test_OS__Heat__WaitCondition", "(Test_OS__Heat__WaitCondition and not Handle)"
    )
    # plugsim conformance refuses types its target lacks: one properties file per package.
    tmp = session.create_tmp()
    session.run("python", "-c", _SPLIT_PROPERTIES, "conformance/bundled-properties.yaml", tmp)
    for module in ("simulator.resources.heat", "simulator.resources.openstack"):
        session.run(
            "plugsim",
            "conformance",
            module,
            "--properties",
            f"{tmp}/{module}.yaml",
            "-k",
            f"not ({needs_prerequisite})",
        )
    # the README example's plug-ins, with the real values their cloud objects need
    files = "examples/three-tier/conformance"
    session.run(
        "plugsim",
        "conformance",
        "examples/three-tier/plugins",
        *("--properties", f"{files}/properties.yaml", "--companions", f"{files}/companions.yaml"),
        *("--updates", f"{files}/updates.yaml"),
    )


#: Splits the bundled property maps into one file per package (run in the session's Python).
_SPLIT_PROPERTIES = """
import importlib, sys, yaml
maps = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
for module in ("simulator.resources.heat", "simulator.resources.openstack"):
    types = importlib.import_module(module).resource_mapping()
    part = {k: v for k, v in maps.items() if k in types}
    with open(f"{sys.argv[2]}/{module}.yaml", "w", encoding="utf-8") as out:
        yaml.safe_dump(part, out, sort_keys=True)
"""


@nox.session
def salt_drivers(session: nox.Session) -> None:
    """Measure which of Salt's own cloud drivers run unmodified; write the table into the docs."""
    session.install("-e", ".[salt]")
    session.run("python", "tools/salt_drivers.py", "--write", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Print the engine benchmark figures (never fails on speed)."""
    session.install("-e", ".")
    for n in ("1000", "10000"):
        session.run("plugsim", "bench", "--resources", n)
    session.run("plugsim", "bench", "--floor", "--resources", "10000")
    session.run("plugsim", "bench", "--campaign", "200", "--repeat", "3")
    # plugsim serve under load: 8 clients x 500 requests, req/s (checks 5xx and lost entities)
    session.run("python", "tools/serve_load.py", "--clients", "8", "--requests", "500")


@nox.session
def heat_gabbi(session: nox.Session) -> None:
    """Run heat-tempest-plugin's gabbi API tests against ``plugsim serve`` (a measurement)."""
    session.install("-e", ".[openstack]", "gabbi")
    if session.posargs:
        gabbits = session.posargs[0]
    else:  # the plug-in's own files, from PyPI (its tempest dependencies are not needed)
        session.install("--no-deps", "heat-tempest-plugin")
        gabbits = session.run(
            "python",
            "-c",
            "import heat_tempest_plugin, os; print(os.path.join(os.path.dirname("
            "heat_tempest_plugin.__file__), 'tests', 'api', 'gabbits'))",
            silent=True,
        ).strip()
    session.run("python", "tools/heat_gabbi.py", gabbits, session.create_tmp())


@nox.session
def heat_tempest(session: nox.Session) -> None:
    """Run heat-tempest-plugin's functional and scenario tests against ``plugsim serve``."""
    session.install("-e", ".[openstack]", "tempest", "heat-tempest-plugin", "stestr")
    extra = ["--plugin", session.posargs[0], *session.posargs[1:]] if session.posargs else []
    session.run("python", "tools/heat_tempest.py", session.create_tmp(), *extra)


@nox.session
def openstacksdk_functional(session: nox.Session) -> None:
    """Run openstacksdk's functional tests against ``plugsim serve`` (a measurement)."""
    session.install("-e", ".[openstack]", "pytest", "pytest-timeout", "fixtures", "oslotest")
    workdir = session.create_tmp()
    services = session.posargs or [
        "identity",
        "compute",
        "network",
        "block_storage",
        "image",
        "object_store",
    ]
    session.run("python", "tools/openstacksdk_functional.py", workdir, *services)


@nox.session
def hot_corpus(session: nox.Session) -> None:
    """Measure the public HOT corpus: how many templates validate and simulate cleanly."""
    if not session.posargs:
        session.error(
            "give the openstack/heat-templates checkout (or its git directory): "
            "nox -s hot_corpus -- SOURCE [--json OUT]"
        )
    session.install("-e", ".")
    session.run("python", "tools/hot_corpus.py", *session.posargs)


@nox.session
def tempest_templates(session: nox.Session) -> None:
    """Measure heat-tempest-plugin's templates: how many simulate create -> delete."""
    import os

    if not session.posargs:
        session.error(
            "give the openstack/heat-tempest-plugin checkout (or its git directory): "
            "nox -s tempest_templates -- SOURCE"
        )
    session.install("-e", ".[test]")
    session.run("python", "tools/tempest_templates.py", *session.posargs)
    if os.environ.get("PLUGSIM_HEAT_PYTHON"):
        session.run("python", "tools/tempest_templates.py", "--heat-plugins", *session.posargs)
        session.run(
            "python", "tools/tempest_templates.py", "--heat-plugins", "missing", *session.posargs
        )


@nox.session
def cfn_corpus(session: nox.Session) -> None:
    """Measure the public CFN-format templates: how many load and validate."""
    if not session.posargs:
        session.error("give the openstack/heat-templates checkout: nox -s cfn_corpus -- SOURCE")
    session.install("-e", ".")
    session.run("python", "tools/cfn_corpus.py", *session.posargs)


@nox.session
def heat_inventory(session: nox.Session) -> None:
    """Print which of Heat's in-tree plug-in modules load and run under plugsim.

    Heat lives in a virtualenv of its own, named by ``$PLUGSIM_HEAT_PYTHON``
    (docs/heat-fidelity.rst); without it the session says so and stops.
    """
    import os

    if not os.environ.get("PLUGSIM_HEAT_PYTHON"):
        session.error("set PLUGSIM_HEAT_PYTHON to the python of a virtualenv with openstack-heat")
    session.install("-e", ".[test]")
    session.run("python", "tools/heat_inventory.py", *session.posargs)
    # beyond create and delete: update, suspend/resume, snapshot, check, leaks
    session.run("python", "tools/heat_inventory.py", "--lifecycle", *session.posargs)


@nox.session
def heat_conformance(session: nox.Session) -> None:
    """Run plugsim conformance on each of Heat's in-tree types that runs create -> delete.

    Counts passed, skipped and failed tests per type, and says which failures
    are plugsim's and which the plug-in's or Heat's own behaviour. Needs
    ``$PLUGSIM_HEAT_PYTHON``; not in the default sessions.
    """
    import os

    if not os.environ.get("PLUGSIM_HEAT_PYTHON"):
        session.error("set PLUGSIM_HEAT_PYTHON to the python of a virtualenv with openstack-heat")
    session.install("-e", ".[test]")
    session.run("python", "tools/heat_inventory.py", "--conformance", *session.posargs)


@nox.session
def heat_third_party(session: nox.Session) -> None:
    """Measure third-party Heat plug-ins as the inventory measures Heat's own.

    Give the plug-in files or directories (checkouts fetched beforehand; nothing
    is copied into this repository): ``nox -s heat_third_party -- DIR ...``.
    """
    import os

    if not os.environ.get("PLUGSIM_HEAT_PYTHON"):
        session.error("set PLUGSIM_HEAT_PYTHON to the python of a virtualenv with openstack-heat")
    if not session.posargs:
        session.error("give the plug-in files or directories: nox -s heat_third_party -- DIR ...")
    session.install("-e", ".[test]")
    session.run("python", "tools/heat_inventory.py", "--plugins", *session.posargs)


@nox.session
def mutants(session: nox.Session) -> None:
    """Run the mutation benchmark (docs/testing.rst, "Mutation benchmark"): the kit's kill rate.

    Arguments after ``--`` go to ``tools/mutants.py`` (``--quick``, ``--only``, ``--jobs``,
    ``--json``). Without ``$PLUGSIM_HEAT_PYTHON`` Heat's mutants are reported invalid.
    """
    session.install("-e", ".[test]")
    session.run("python", "tools/mutants.py", *session.posargs)


@nox.session
def serve_kill(session: nox.Session) -> None:
    """Kill ``plugsim serve`` ten times under load; fails if an acknowledged write is lost."""
    session.install("-e", ".")
    session.run("python", "tools/serve_kill.py", "--kills", "10", *session.posargs)
