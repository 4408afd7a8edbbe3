"""Sphinx configuration for the plugsim documentation."""

import os
import sys

sys.path.insert(0, os.path.abspath(".."))

project = "plugsim"
author = "plugsim developers"
copyright = "2026, plugsim developers"
release = "0.1.0"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sdk.sphinxext",
    "sphinx_click",
    "sphinx_copybutton",
]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
exclude_patterns = ["_build"]
# furo: a maintained theme whose content column is wide enough for the README's commands and
# 100-column code; sphinx-copybutton puts a copy button on every code block.
html_theme = "furo"
# Keep "--inclusion" as typed: smart quotes would turn the two hyphens into an en dash.
smartquotes = False
copybutton_prompt_text = "$ "
copybutton_only_copy_prompt_lines = False
nitpicky = False


def _pictures(app):
    """Draw the quickstart's timeline and graph from a real run of the README's example."""
    from pathlib import Path

    from simulator.views.docs_pictures import write_example_pictures

    here = Path(__file__).resolve().parent
    write_example_pictures(here.parent, here / "_generated")


def _all_commands(app):
    """Load every plugsim command: sphinx-click documents what the group's ``commands`` holds."""
    from simulator.cli import main

    main.load_all()


def setup(app):
    app.connect("builder-inited", _all_commands)
    app.connect("builder-inited", _pictures)
