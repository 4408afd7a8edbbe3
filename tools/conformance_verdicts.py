"""Every verdict of one ``plugsim conformance`` run, as JSON, to compare two trees' runs.

Usage (in a directory where the target is trusted)::

    plugsim conformance PATH --junitxml=junit.xml > out.txt 2>&1
    python tools/conformance_verdicts.py out.txt junit.xml \\
        .plugsim/replays/conformance-<target>/failures.txt > verdicts.json

It keeps, per test: the outcome and message (JUnit), the ``E`` lines of the
failure report and the plugsim section (seed, replay line, verdict fields);
and the lifecycle coverage table, the summary counts and the replay file.
Left out, as they are no verdict: wall times, object addresses, the
checkout's path, and the kit's own ``file:line`` of a skip (they move when
the kit's sources are edited). Two runs gave the same verdicts when the JSON
files are equal (``diff``).
"""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

_ADDRESS = re.compile(r"0x[0-9a-f]{6,}")
_CHECKOUT = re.compile(r"[^\s'\"(]*/(?=(?:sdk|simulator|fake_clouds)/)")


def _normal(text: str) -> str:
    """*text* without object addresses and with the checkout's path (any tree) as ``ROOT/``."""
    return _CHECKOUT.sub("ROOT/", _ADDRESS.sub("0x?", text))


def verdicts(output: str, junit: str, failures: str) -> dict[str, Any]:
    """The verdicts of the run whose terminal *output*, JUnit XML and replay file are given."""
    out: dict[str, Any] = {"tests": {}, "E": {}, "plugsim": {}}
    for case in ET.fromstring(junit).iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome, message = child.tag, child.get("message") or ""
                if child.tag == "skipped":
                    message = re.sub(r"^.*?\.py:\d+: ", "", message)
        out["tests"][name] = [outcome, _normal(message)]
    sections = re.split(r"^_{3,} (\S+) _{3,}$", output, flags=re.M)
    for i in range(1, len(sections), 2):
        name, body = sections[i], sections[i + 1]
        report, _, tail = body.partition("- plugsim -")
        out["E"][name] = [_normal(line) for line in report.splitlines() if line[:2] == "E "]
        lines = tail.split("\n=")[0].splitlines()[1:]
        out["plugsim"][name] = [
            _normal(line) for line in lines if line.strip() and "generated xml" not in line
        ]
    table = re.search(r"plugsim lifecycle coverage =+\n(.*?)\n=", output, flags=re.S)
    out["coverage"] = table.group(1).splitlines() if table else None
    counts = re.search(r"=+ (\d+ (?:failed|passed).*?) in [\d.]+s", output)
    out["summary"] = re.sub(r", \d+ warnings?", "", counts.group(1)) if counts else None
    out["failures_txt"] = _normal(failures)
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    output, junit, failures = (Path(a).read_text(encoding="utf-8") for a in argv)
    json.dump(verdicts(output, junit, failures), sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
