"""Tests of stack lifecycle plug-ins."""
