"""Campaigns: thousands of seeded runs, with failures confirmed, deduplicated, shrunk and reported.

``plugsim campaign`` is the command line; :func:`run_campaign` and :func:`write_reports` the library.
"""

from sdk.testing.campaign.campaign import CampaignResult, Finding, parse_seeds, run_campaign
from sdk.testing.campaign.reports import write_reports
from sdk.testing.campaign.runs import RunResult, RunSpec, run_one
from sdk.testing.campaign.signature import Signature

__all__ = [
    "CampaignResult",
    "Finding",
    "RunResult",
    "RunSpec",
    "Signature",
    "parse_seeds",
    "run_campaign",
    "run_one",
    "write_reports",
]
