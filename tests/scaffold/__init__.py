"""Tests of the plug-in scaffold (cookiecutter-plugin/ and plugsim new)."""
