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

from bench.common import RESULTS, child_env

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
    started = time.monotonic()
    for name in names:
        command = [sys.executable, "-m", f"bench.{name}", *([] if args.full else ["--quick"])]
        print(f"\n=== {' '.join(command[1:])}", flush=True)
        began = time.monotonic()
        status = subprocess.run(command, env=child_env(), check=False).returncode
        print(f"=== {name}: {time.monotonic() - began:.0f} s, exit {status}", flush=True)
        if status != 0:
            crashed.append(name)
    print(f"\nall done in {time.monotonic() - started:.0f} s; results in {RESULTS}")
    if crashed:
        print("crashed: " + ", ".join(crashed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
