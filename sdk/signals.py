"""Where orchestration signals are sent: one endpoint per signalled resource.

A resource that takes signals (a wait-condition handle, a scaling policy)
gives its endpoint as ``SIGNAL_ENDPOINT_PREFIX + <physical id>``; the fake
cloud's server config agent recognises the prefix in a server's user_data
and reports what it sends there, which the resource reads through
``context.signals().from_agents(endpoint)``.
"""

from __future__ import annotations

#: The start of every signal endpoint URL.
SIGNAL_ENDPOINT_PREFIX = "https://orchestration.plugsim.invalid/v1/signal/"


def signal_endpoint(physical_id: str) -> str:
    """Return the signal endpoint of the resource with *physical_id*."""
    return SIGNAL_ENDPOINT_PREFIX + str(physical_id)
