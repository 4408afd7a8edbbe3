"""Sphinx configuration of the {{ cookiecutter.project_name }} documentation."""

import os
import sys

sys.path.insert(0, os.path.abspath(".."))

project = "{{ cookiecutter.project_name }}"
author = "{{ cookiecutter.author }}"
copyright = "{{ cookiecutter.author }}"
release = "0.1.0"

extensions = ["sphinx.ext.autodoc", "sdk.sphinxext"]
exclude_patterns = ["_build"]
html_theme = "alabaster"
