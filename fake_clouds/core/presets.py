"""Named fault presets: ``none``, ``flaky``, ``slow`` and ``chaos``.

=========  =====================================================================================
``none``   no faults at all (the default).
``flaky``  a cloud on a bad day: 5 % of any call fails with 503, 2 % of calls time out after
           30 s, 3 % of server and volume creations end in ERROR.
``slow``   every call and every state transition takes four times as long, and each call gets
           0.5-2 s of extra latency; nothing fails.
``chaos``  everything at once: list/get calls throttled to 2/s (burst 10), 10 % 503s, 5 %
           timeouts, 5 % of creations end in ERROR, 3 % get stuck in their transitional state,
           20 % of creations are eventually consistent (invisible for 1-10 s), 5 % over-limit.
=========  =====================================================================================

Probabilities are drawn from the world's ``faults`` stream, so a preset is as
deterministic as the seed.
"""

from __future__ import annotations

from typing import Any

FAULT_PRESETS: dict[str, list[dict[str, Any]]] = {
    "none": [],
    "flaky": [
        {"name": "flaky-503", "probability": 0.05, "effect": {"type": "error", "status": 503}},
        {
            "name": "flaky-timeout",
            "probability": 0.02,
            "effect": {"type": "timeout", "after": 30},
        },
        {
            "name": "flaky-server-error",
            "operation": "servers.create",
            "probability": 0.03,
            "effect": {"type": "error_state", "reason": "No valid host was found"},
        },
        {
            "name": "flaky-volume-error",
            "operation": "volumes.create",
            "probability": 0.03,
            "effect": {"type": "error_state", "reason": "Volume backend failure"},
        },
    ],
    "slow": [
        {
            "name": "slow",
            "effect": {
                "type": "delay",
                "factor": 4.0,
                "seconds": {"dist": "uniform", "low": 0.5, "high": 2.0},
            },
        },
    ],
    "chaos": [
        {
            "name": "chaos-throttle",
            "operation": "*.list",
            "effect": {"type": "throttle", "rate": 2.0, "burst": 10},
        },
        {"name": "chaos-503", "probability": 0.10, "effect": {"type": "error", "status": 503}},
        {
            "name": "chaos-timeout",
            "probability": 0.05,
            "effect": {"type": "timeout", "after": 60},
        },
        {
            "name": "chaos-error-state",
            "operation": "*.create",
            "probability": 0.05,
            "effect": {"type": "error_state", "reason": "Chaos"},
        },
        {
            "name": "chaos-stuck",
            "operation": "*.create",
            "probability": 0.03,
            "effect": "stuck",
        },
        {
            "name": "chaos-eventual",
            "operation": "*.create",
            "probability": 0.20,
            "effect": {
                "type": "eventual_consistency",
                "lag": {"dist": "uniform", "low": 1, "high": 10},
            },
        },
        {
            "name": "chaos-quota",
            "operation": "*.create",
            "probability": 0.05,
            "effect": "over_limit",
        },
    ],
}
