"""Campaigns: thousands of seeded runs, with failures confirmed, deduplicated, shrunk and reported.

``plugsim campaign`` is the command line; :func:`run_campaign` and :func:`write_reports` the library.
A campaign runs a :class:`RunSpec` (a template's lifecycle, optionally with the adversary), a
:class:`PathSpec` (a plug-in's conformance paths) or a :class:`SequenceSpec` (a plug-in's action
sequences).
"""

from sdk.testing.campaign.campaign import CampaignResult, Finding, parse_seeds, run_campaign
from sdk.testing.campaign.paths import PathSpec
from sdk.testing.campaign.reports import write_reports
from sdk.testing.campaign.runs import RunResult, RunSpec, run_one
from sdk.testing.campaign.sequences import SequenceSpec
from sdk.testing.campaign.signature import Signature

__all__ = [
    "CampaignResult",
    "Finding",
    "PathSpec",
    "RunResult",
    "RunSpec",
    "SequenceSpec",
    "Signature",
    "parse_seeds",
    "run_campaign",
    "run_one",
    "write_reports",
]
