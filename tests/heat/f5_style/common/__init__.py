"""Helpers the fixture plug-ins beside this package import as ``common`` (F5's layout)."""
