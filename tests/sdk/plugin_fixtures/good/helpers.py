"""A module without mapping functions: loaded, registers nothing."""

GREETING = "hello"
