"""Fake clouds: stateful backends that simulate latency and failures from a seed."""
