"""The ``plugsim`` command line, a package.

:mod:`simulator.cli.main` holds the top-level group (the ``plugsim = "simulator.cli:main"``
console script), :mod:`simulator.cli._shared` the options, output helpers and error handling the
commands share, and one module per command group: :mod:`~simulator.cli.stack`,
:mod:`~simulator.cli.simulate`, :mod:`~simulator.cli.cloud`, :mod:`~simulator.cli.capabilities`
and :mod:`~simulator.cli.misc` (``template``, ``bench``). The command modules import
``_shared``, never the entry module, so the package has no import circle.

Importing the package binds ``simulator.cli.main`` to the click group, the console script's target,
which shadows the submodule of the same name as an attribute; import the module itself with
``importlib.import_module("simulator.cli.main")`` if you need it.
"""

from simulator.cli.main import main

__all__ = ["main"]
