"""Mutation benchmark: how many planted single bugs does ``plugsim conformance`` kill?

Each mutant (``tools/mutants_catalogue.py``) is one bug of one class of
issue 30 planted in one handler of a plug-in copied at run time into a
temporary directory: the bundled example (``examples/three-tier``), a plug-in
scaffolded with ``plugsim new --kind resource --no-input``, and Heat 27's
``OS::Cinder::Volume``, ``OS::Neutron::Net`` and ``OS::Nova::Server`` (copied
from the Heat install ``$PLUGSIM_HEAT_PYTHON`` names; nothing of Heat's is
kept). For each type the unmutated copy runs first: a test it fails cannot
kill a mutant, and a type whose create fails makes its mutants *invalid* (not
counted). A mutant is *killed* when a test the original passed fails.

Usage::

    python tools/mutants.py [--quick] [--only WORD[,WORD]] [--jobs N] [--json OUT] [--list]

``--quick`` leaves out Heat's plug-ins; ``--only`` keeps the mutants whose id,
target or class contains one of the words. Prints a table per class and per
mutant (with each kill's first failure message) and, with ``--json``, writes
the same as JSON. Exit status 0 (a measurement), 2 when it cannot run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mutants_catalogue import CLASSES, MUTANTS, TARGETS, Mutant, Target  # noqa: E402
from mutants_ops import MutationError  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
_RUN = (
    "import sys; from sdk.testing.cli import conformance; "
    "conformance(sys.argv[1:], prog_name='plugsim conformance')"
)
#: the same under ``plugsim --world WORLD`` (the world is the top-level option)
_RUN_IN_WORLD = (
    "import sys; from simulator.cli import main; "
    "main(['--world', sys.argv[1], 'conformance', *sys.argv[2:]], prog_name='plugsim')"
)
_NEW = (
    "import sys; from simulator.cli import main; main(['new', *sys.argv[1:]], prog_name='plugsim')"
)
#: Tests no mutant here can change the outcome of (schema-only, or not declared).
SKIPPED_TESTS = "not validation and not upgrade"


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


# -- materialising the plug-ins ----------------------------------------------------------


def heat_package() -> Path | None:
    """Heat's package directory in the install ``$PLUGSIM_HEAT_PYTHON`` names, or None."""
    python = os.environ.get("PLUGSIM_HEAT_PYTHON")
    if not python:
        return None
    done = subprocess.run(
        [python, "-c", "import heat, os; print(os.path.dirname(heat.__file__))"],
        capture_output=True,
        text=True,
        check=False,
    )
    return Path(done.stdout.strip()) if done.returncode == 0 else None


def scaffold_module(work: Path) -> Path:
    """Scaffold a resource plug-in with ``plugsim new`` and return its module file."""
    out = work / "scaffold"
    shutil.rmtree(out, ignore_errors=True)  # a --keep folder used again
    subprocess.run(
        [sys.executable, "-c", _NEW, "--kind", "resource", "--no-input", "-o", str(out)],
        check=True,
        capture_output=True,
        cwd=work,
    )
    found = sorted(out.glob("*/*/resource.py"))
    if not found:
        raise SystemExit("plugsim new made no resource.py")
    return found[0]


def original_source(target: Target, work: Path, cache: dict[str, str]) -> str:
    """The unmutated module text of *target* (read once per file)."""
    key = f"{target.source}:{target.file}"
    if key not in cache:
        if target.source == "example":
            path = ROOT / target.file
        elif target.source == "scaffold":
            path = scaffold_module(work)
        else:
            package = heat_package()
            if package is None:
                raise MutationError("PLUGSIM_HEAT_PYTHON is not set (or has no heat)")
            path = package / target.file
        cache[key] = path.read_text(encoding="utf-8")
    return cache[key]


# -- running the kit ---------------------------------------------------------------------


def _write_inputs(target: Target, folder: Path) -> list[str]:
    import yaml

    args = []
    if target.properties:
        (folder / "props.yaml").write_text(yaml.safe_dump({target.type_name: target.properties}))
        args += ["--properties", str(folder / "props.yaml")]
    if target.companions:
        (folder / "companions.yaml").write_text(
            yaml.safe_dump({target.type_name: target.companions})
        )
        args += ["--companions", str(folder / "companions.yaml")]
    if target.updates:
        (folder / "updates.yaml").write_text(yaml.safe_dump({target.type_name: target.updates}))
        args += ["--updates", str(folder / "updates.yaml")]
    return args


def _raised(report: str) -> str:
    """The exception's whole message in pytest's long report: its last block of ``E`` lines.

    pytest shortens a failure's ``message`` attribute (500 characters, whole lines) and writes
    the full report, traceback included, as the element's text; the source lines of the
    traceback are left out here, so a handler is named only when the message names it.
    """
    block: list[str] = []
    current: list[str] = []
    for line in report.splitlines():
        if line.startswith("E ") or line == "E":
            current.append(line[2:].strip() if len(line) > 1 else "")
        elif current:
            block, current = current, []
    return "\n".join(current or block)


def results(xml: Path, test_class: str) -> dict[str, dict[str, str]]:
    """``{test: {outcome, message, full}}`` of *test_class* in pytest's JUnit XML.

    ``full`` is the failure's whole message (the exception pytest reports, not the
    traceback); ``message`` its first 300 characters on one line.
    """
    out: dict[str, dict[str, str]] = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        if case.get("classname", "").rsplit(".", 1)[-1] != test_class:
            continue
        row = {"outcome": "passed", "message": "", "full": ""}
        for child in case:
            if child.tag in ("failure", "error"):
                full = child.get("message") or child.text or ""
                if full.endswith("full report in element text]"):
                    full = _raised(child.text or "") or full
                row = {"outcome": "failed", "message": _one_line(full), "full": full}
            elif child.tag == "skipped":
                row["outcome"] = "skipped"
        out[case.get("name", "")] = row
    return out


def run_kit(
    target: Target,
    source: str,
    folder: Path,
    filename: str,
    tests: tuple[str, ...] = (),
    *,
    leave_out: tuple[str, ...] = (),
    first_kill: bool = False,
) -> dict[str, Any]:
    """Run ``plugsim conformance`` on *source* (written to *folder*); its results and wall time.

    *tests* narrows the run to those test names (the regression tests run the one that kills).
    *leave_out* are tests not run (the ones the original fails: they cannot kill; ``-k``
    matches substrings, so a longer name containing one is left out too), and *first_kill*
    stops the run at its first failure -- with the original's failures left out, the first
    kill, which is the one the judgement reports.
    """
    folder.mkdir(parents=True, exist_ok=True)
    module = folder / filename
    module.write_text(source, encoding="utf-8")
    tests_wanted = tests
    narrow = "(" + " or ".join(tests) + ")" if tests else ""
    unwanted = "not (" + " or ".join(leave_out) + ")" if leave_out else ""
    words = (target.test_class, target.keyword_extra, SKIPPED_TESTS, narrow, unwanted)
    keyword = " and ".join(w for w in words if w)
    xml = folder / "results.xml"
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            *([_RUN_IN_WORLD, target.world] if target.world else [_RUN]),
            str(module),
            *_write_inputs(target, folder),
            "--junitxml",
            str(xml),
            "-k",
            keyword,
            "-q",
            *(["-x"] if first_kill else []),
        ],
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=1800,
        check=False,
    )
    tests = results(xml, target.test_class) if xml.is_file() else {}
    if narrow:  # -k matches substrings: keep exactly the tests asked for
        tests = {name: row for name, row in tests.items() if name in set(tests_wanted)}
    tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
    return {"tests": tests, "seconds": round(time.monotonic() - started, 1), "tail": tail[0]}


def judge(mutant: Mutant, baseline: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    """Killed (a test the original passed fails), survived, or invalid (the kit did not run)."""
    row: dict[str, Any] = {"seconds": run["seconds"]}
    if not run["tests"]:
        return {**row, "status": "invalid", "why": f"the kit did not run: {run['tail']}"}
    for test, result in run["tests"].items():
        before = baseline["tests"].get(test, {}).get("outcome")
        if before == "passed" and result["outcome"] == "failed":
            return {
                **row,
                "status": "killed",
                "killed_by": test,
                "message": result["message"],
                "full_message": result["full"],
                "names_handler": mutant.handler in result["full"],
            }
    return {**row, "status": "survived"}


def baseline_problem(baseline: dict[str, Any]) -> str | None:
    """Why a target's original cannot serve (its create fails, or the kit did not run)."""
    tests = baseline["tests"]
    if not tests:
        return f"the kit did not run on the original: {baseline['tail']}"
    if tests.get("test_create", {}).get("outcome") != "passed":
        return "the original fails test_create: " + tests.get("test_create", {}).get("message", "")
    return None


def benchmark(
    mutants: list[Mutant], work: Path, jobs: int = 1, first_kill: bool = True
) -> dict[str, Any]:
    """Run the originals then the mutants; the rows and the totals.

    With *first_kill* (the default) a mutant's run stops at its first kill (``--all-tests``
    runs every test of every mutant; the verdicts are the same, slower).
    """
    cache: dict[str, str] = {}
    baselines: dict[str, dict[str, Any]] = {}
    problems: dict[str, str] = {}
    names = sorted({m.target for m in mutants})

    def base(name: str) -> None:
        target = TARGETS[name]
        try:
            source = original_source(target, work, cache)
        except (MutationError, OSError, subprocess.CalledProcessError) as ex:
            problems[name] = str(ex)
            return
        baselines[name] = run_kit(target, source, work / "original" / name, Path(target.file).name)
        problem = baseline_problem(baselines[name])
        if problem:
            problems[name] = problem

    for name in names:  # the scaffold is generated once, before any thread reads it
        if TARGETS[name].source == "scaffold":
            base(name)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(base, [n for n in names if TARGETS[n].source != "scaffold"]))

    runs: dict[str, dict[str, Any] | str] = {}

    def one(mutant: Mutant) -> None:
        target = TARGETS[mutant.target]
        if mutant.target in problems:
            runs[mutant.id] = problems[mutant.target]
            return
        try:
            source = mutant.op(cache[f"{target.source}:{target.file}"])
        except MutationError as ex:
            runs[mutant.id] = f"transformation does not apply: {ex}"
            return
        failing = baselines[mutant.target]["tests"]
        runs[mutant.id] = run_kit(
            target,
            source,
            work / "mutants" / mutant.id,
            Path(target.file).name,
            leave_out=tuple(sorted(t for t, r in failing.items() if r["outcome"] == "failed")),
            first_kill=first_kill,
        )

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(one, mutants))
    return build_report(mutants, baselines, problems, runs)


def build_report(
    mutants: list[Mutant],
    baselines: dict[str, dict[str, Any]],
    problems: dict[str, str],
    runs: dict[str, dict[str, Any] | str],
) -> dict[str, Any]:
    """The report: each original's outcome, one row per mutant run, the totals."""
    rows = []
    for mutant in mutants:
        if mutant.id not in runs:
            continue
        row = {
            "id": mutant.id,
            "target": mutant.target,
            "type": TARGETS[mutant.target].type_name,
            "class": mutant.bug_class,
            "handler": mutant.handler,
            "mutation": mutant.op.describe,
        }
        run = runs[mutant.id]
        if isinstance(run, str):
            rows.append({**row, "status": "invalid", "why": run})
        else:
            rows.append({**row, **judge(mutant, baselines[mutant.target], run)})
    originals: dict[str, Any] = {
        name: {
            "failing": sorted(t for t, r in b["tests"].items() if r["outcome"] == "failed"),
            "passed": sum(r["outcome"] == "passed" for r in b["tests"].values()),
            "seconds": b["seconds"],
            **({"invalid": problems[name]} if name in problems else {}),
        }
        for name, b in sorted(baselines.items())
    }
    for name in sorted({m.target for m in mutants} - set(originals)):
        originals[name] = {"invalid": problems.get(name, "not run")}
    return {"originals": originals, "mutants": rows, "summary": summary(rows)}


def load_run(folder: Path, target: Target) -> dict[str, Any]:
    """A kept run (``--keep``) read back: its results, pytest's time for it."""
    xml = folder / "results.xml"
    if not xml.is_file():
        return {"tests": {}, "seconds": None, "tail": f"no results in {folder}"}
    suite = ET.parse(xml).getroot().find(".//testsuite")
    seconds = float(suite.get("time", 0)) if suite is not None else None
    return {"tests": results(xml, target.test_class), "seconds": seconds, "tail": ""}


def rejudge(folders: list[Path], mutants: list[Mutant]) -> dict[str, Any]:
    """The report of earlier ``--keep`` runs, judged again (a later folder wins for a mutant)."""
    baselines: dict[str, dict[str, Any]] = {}
    runs: dict[str, dict[str, Any] | str] = {}
    for folder in folders:
        for name, target in TARGETS.items():
            if (folder / "original" / name / "results.xml").is_file():
                baselines[name] = load_run(folder / "original" / name, target)
        for mutant in mutants:
            kept = folder / "mutants" / mutant.id
            if (kept / "results.xml").is_file() or (kept.is_dir() and mutant.id not in runs):
                runs[mutant.id] = load_run(folder / "mutants" / mutant.id, TARGETS[mutant.target])
    problems = {n: p for n, b in baselines.items() if (p := baseline_problem(b))}
    for mutant in mutants:
        if mutant.target in problems and mutant.id in runs:
            runs[mutant.id] = problems[mutant.target]
        elif mutant.id in runs and mutant.target not in baselines:
            runs[mutant.id] = "no run of the original"
    return build_report(mutants, baselines, problems, runs)


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Killed/survived/invalid per class and overall; the kill rate over the valid mutants."""
    per_class: dict[str, dict[str, int]] = {}
    for key in CLASSES:
        mine = [r for r in rows if r["class"] == key]
        if mine:
            per_class[key] = {
                s: sum(r["status"] == s for r in mine) for s in ("killed", "survived", "invalid")
            }
    killed = sum(r["status"] == "killed" for r in rows)
    valid = sum(r["status"] in ("killed", "survived") for r in rows)
    named = sum(bool(r.get("names_handler")) for r in rows if r["status"] == "killed")
    return {
        "per_class": per_class,
        "killed": killed,
        "valid": valid,
        "invalid": len(rows) - valid,
        "kill_rate": round(killed / valid, 3) if valid else None,
        "kills_naming_handler": named,
    }


def print_report(report: dict[str, Any]) -> None:
    """The per-class table, the per-mutant table and the totals."""
    s = report["summary"]
    print(f"{'class':<26} killed survived invalid")
    for key, c in s["per_class"].items():
        print(f"{key:<26} {c['killed']:>6} {c['survived']:>8} {c['invalid']:>7}")
    print()
    for r in report["mutants"]:
        detail = r.get("message") or r.get("why") or ""
        by = f"{r['killed_by']} " if r.get("killed_by") else ""
        named = " [names handler]" if r.get("names_handler") else ""
        print(
            f"{r['status']:<8} {r['id']:<28} {r['class']:<22} {by}{named} {_one_line(detail, 160)}"
        )
    print()
    for name, o in report["originals"].items():
        if o.get("invalid"):
            print(f"original {name}: INVALID ({_one_line(o['invalid'], 160)})")
        elif o["failing"]:
            print(
                f"original {name}: fails {', '.join(o['failing'])} (not used to judge its mutants)"
            )
    rate = f"{s['kill_rate']:.0%}" if s["kill_rate"] is not None else "-"
    print(
        f"killed {s['killed']}/{s['valid']} valid mutants ({rate}); {s['invalid']} invalid; "
        f"{s['kills_naming_handler']} kill messages name the handler"
    )


def select(only: list[str], quick: bool) -> list[Mutant]:
    """The mutants ``--only`` and ``--quick`` keep."""
    chosen = [m for m in MUTANTS if not (quick and TARGETS[m.target].source == "heat")]
    if only:
        chosen = [
            m for m in chosen if any(w in m.id or w in m.target or w == m.bug_class for w in only)
        ]
    return chosen


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="mutants", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="leave Heat's plug-ins out")
    parser.add_argument(
        "--only", default="", help="comma-separated ids, targets, classes or id parts"
    )
    parser.add_argument("--jobs", type=int, default=1, help="kit runs at once (default 1)")
    parser.add_argument("--json", type=Path, help="also write the report as JSON here")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument(
        "--all-tests",
        action="store_true",
        help="run every test of every mutant (default: stop a mutant's run at its first kill)",
    )
    parser.add_argument(
        "--keep", type=Path, help="work here (kept) instead of a temporary directory"
    )
    parser.add_argument(
        "--rejudge",
        type=Path,
        action="append",
        default=[],
        help="judge the runs kept in this --keep folder again, running nothing (repeatable: "
        "a later folder wins)",
    )
    args = parser.parse_args(argv)
    mutants = select([w for w in args.only.split(",") if w], args.quick)
    if not mutants:
        print("mutants: no mutant matches", file=sys.stderr)
        return 2
    if args.list:
        for m in mutants:
            print(f"{m.id:<28} {m.target:<20} {m.bug_class:<24} {m.op.describe}")
        return 0
    if args.rejudge:
        report = rejudge(args.rejudge, mutants)
    elif args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        report = benchmark(mutants, args.keep.resolve(), args.jobs, not args.all_tests)
    else:
        work = Path(tempfile.mkdtemp(prefix="plugsim-mutants-"))
        try:
            report = benchmark(mutants, work, args.jobs, not args.all_tests)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
