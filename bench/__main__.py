"""Run every benchmark, one after another: `python -m bench` (quick sizes) or `python -m bench --full`.

    python -m bench [--full] [NAME ...]      (what `make bench` and `make bench FULL=1` run)

Each benchmark runs as its own process (`python -m bench.<name> [--quick]`) and writes its section of
bench/RESULTS.md; the summary of targets met and missed at the top is regenerated from the sections. A target
missed is reported there, not failed; a benchmark that crashes makes this exit 1 after the others have run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from bench.common import RESULTS, Check, bound_check, child_env, load_average, write_section

QUICK_BUDGET_S = 600.0
"""`make bench` (every benchmark at quick size) must take less than this (issue 26)."""

BENCHMARKS = [
    "answers",
    "slack_path",
    "discord_path",
    "leaderboard_queries",
    "fanout",
    "footprint",
    "chaos_fanout",
    "slack_flood",
    "startup",
    "scaleout",
    "kill_clicks",
    "click_memory",
    "partition",
    "gateway_fault",
    "daily_burst",
]
"""In the order of their sections in RESULTS.md."""


def main() -> int:
    """Run the benchmarks asked for (all by default); 1 if any crashed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--full", action="store_true", help="full sizes (default: the quick sizes)")
    parser.add_argument("names", nargs="*", metavar="NAME", help="some of: " + ", ".join(BENCHMARKS))
    args = parser.parse_args()
    unknown = [name for name in args.names if name not in BENCHMARKS]
    if unknown:
        parser.error("no such benchmark: " + ", ".join(unknown))
    names = args.names or BENCHMARKS
    crashed = []
    spent: dict[str, tuple[float, str, int]] = {}
    started = time.monotonic()
    for name in names:
        command = [sys.executable, "-m", f"bench.{name}", *([] if args.full else ["--quick"])]
        print(f"\n=== {' '.join(command[1:])}", flush=True)
        began, load = time.monotonic(), load_average()
        status = subprocess.run(command, env=child_env(), check=False).returncode
        spent[name] = (time.monotonic() - began, load, status)
        print(f"=== {name}: {spent[name][0]:.0f} s, exit {status}", flush=True)
        if status != 0:
            crashed.append(name)
    total = time.monotonic() - started
    print(f"\nall done in {total:.0f} s; results in {RESULTS}")
    if names == BENCHMARKS:
        _record_run(spent, total, full=args.full)
    if crashed:
        print("crashed: " + ", ".join(crashed), file=sys.stderr)
        return 1
    return 0


def _record_run(spent: dict[str, tuple[float, str, int]], total: float, *, full: bool) -> None:
    """The section on the run itself: where its time went, benchmark by benchmark; at quick size, the budget."""
    rows = [
        "| benchmark | seconds | share | load average at its start (1 / 5 / 15 min) | exit |",
        "|---|---|---|---|---|",
    ]
    for name, (seconds, load, status) in sorted(spent.items(), key=lambda item: -item[1][0]):
        rows.append(f"| {name} | {seconds:.0f} | {seconds / total:.0%} | {load} | {status} |")
    rows.append(f"| all | {total:.0f} | 100% | | |")
    checks: list[Check] = []
    if not full:
        checks.append(bound_check("`make bench` (quick), every benchmark", total / 60, QUICK_BUDGET_S / 60, "min"))
    write_section(
        "16. The bench itself",
        "python -m bench" + (" --full" if full else ""),
        "Wall time of each benchmark (a child process each, one after another), slowest first.\n\n" + "\n".join(rows),
        checks,
        size="full" if full else "quick",
    )


if __name__ == "__main__":
    sys.exit(main())
