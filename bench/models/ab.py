#!/usr/bin/env python3
"""ab.py - two modules of one model (a change's before and after, two
compilers' builds, two tuning rows) compared dispatch by dispatch and call
by call, in the same run.

  bench/models/ab.py A.vmfb B.vmfb --input=X.npy [--workers=1]
                     [--rounds=6] [--calls=10] [--build=build] [--top=25]
                     [--statistic=median|min]

Each round runs a new strata-benchmark process per module (3 warm-up
calls, then --calls traced calls), A then B in even rounds and B then A
in odd ones (ABBA): on the shared machines the second module of a round
ran about 3% faster whichever it was (2026-12-06), which a fixed order
would report as a gain. Per round and module, each dispatch name's time
is its median per call (the sum of its launches in a call; a launch is
the span from its first worker's start to its last worker's end; names
without their ordinal, so that dispatches of one kind add up and two
compilers' numberings meet), and
the call's wall time is the median over the calls. A row's ratio is the
median over rounds of that round's B / A: a ratio means something, a lone
time on these machines does not. Names found on one side only (another
compiler numbering or fusing differently) are listed apart with their
times; the totals compare the sums of each side's dispatches and the wall.

--statistic=min takes each side's minimum instead, over all of its calls
in all rounds (per dispatch name and for the wall), and a row's ratio is
B's minimum over A's. Load from other processes only adds time, so on a
machine that switches between a fast and a slow state during a run (the
Intel Xeon of 2026-12-06: whole calls 1.2-1.5x slower for seconds at a
time, both sides alike) the minima compare the fast state where medians
mix the two.

--input takes what strata-benchmark's --input takes (@file.npy, or a
value); repeat it for several inputs.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import kernel_bench  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layers  # noqa: E402


# A dispatch's ordinal (main_dispatch_12_conv_...): two compilers number
# differently, so rows are the dispatch kinds (main_dispatch_conv_...),
# each the sum of that kind's launches in a call.
ORDINAL = re.compile(r"_dispatch_[0-9]+_")


def run_module(benchmark, module, inputs, workers, calls, trace_path,
               statistic):
    """One strata-benchmark process: {dispatch name: `statistic` (median
    or min) of its ms per call}, that of the wall ms per call."""
    cmd = [benchmark, "--module=" + module, "--task_workers=%d" % workers,
           "--warmup=3", "--repetitions=%d" % calls, "--trace=" + trace_path]
    cmd += ["--input=" + value for value in inputs]
    result = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        raise SystemExit("ab.py: %s failed on %s:\n%s" %
                         (benchmark, module, result.stderr.strip()))
    with open(trace_path) as f:
        trace = json.load(f)
    # The warm-up calls are traced too: skip them.
    per_call, walls = layers.strata_calls(trace, skip=3)
    by_name = {}
    for call in per_call:
        sums = {}
        for (name, _), ms in call.items():
            kind = ORDINAL.sub("_dispatch_", name)
            sums[kind] = sums.get(kind, 0.0) + ms
        for name, ms in sums.items():
            by_name.setdefault(name, []).append(ms)
    return ({name: statistic(v) for name, v in by_name.items()},
            statistic(walls))


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("a", help="module A (the base)")
    parser.add_argument("b", help="module B (the change)")
    parser.add_argument("--input", action="append", default=[],
                        help="an input as strata-benchmark takes it "
                        "(@file.npy); repeat for several")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--calls", type=int, default=10,
                        help="traced calls per module per round")
    parser.add_argument("--build", default="build")
    parser.add_argument("--top", type=int, default=25,
                        help="rows listed, by A's time")
    parser.add_argument("--statistic", choices=("median", "min"),
                        default="median",
                        help="per side: the median of its rounds' medians "
                        "(the default; a row's ratio is the median of the "
                        "rounds' ratios), or the minimum over all its calls "
                        "(the ratio is that of the minima)")
    args = parser.parse_args()
    if args.rounds < 1 or args.calls < 1 or args.workers < 1:
        parser.error("--rounds, --calls and --workers must be positive")
    for path in (args.a, args.b):
        if not os.path.isfile(path):
            parser.error("no module %s" % path)
    benchmark = kernel_bench.tools(args.build)["benchmark"]
    if not os.path.isfile(benchmark):
        parser.error("no strata-benchmark in %s (build it, or --build)" %
                     args.build)

    statistic = statistics.median if args.statistic == "median" else min
    rounds = []  # [(A times, A wall, B times, B wall)]
    with tempfile.TemporaryDirectory() as scratch:
        trace = os.path.join(scratch, "trace.json")
        for r in range(args.rounds):
            got = {}
            for side in ("ab" if r % 2 == 0 else "ba"):
                module = args.a if side == "a" else args.b
                got[side] = run_module(benchmark, module, args.input,
                                       args.workers, args.calls, trace,
                                       statistic)
            rounds.append((got["a"][0], got["a"][1], got["b"][0],
                           got["b"][1]))
            print("round %d: wall A %.3f ms, B %.3f ms" %
                  (r + 1, got["a"][1], got["b"][1]), file=sys.stderr)

    def value_of(index, name):
        """The statistic of side `index`'s rounds for dispatch `name`."""
        values = [rnd[index][name] for rnd in rounds if name in rnd[index]]
        return statistic(values) if values else None

    def ratio_of(pairs):
        """B / A of [(A, B)] per round: the median of the rounds' ratios,
        or with --statistic=min the ratio of the minima."""
        pairs = [(a, b) for a, b in pairs if a > 0]
        if not pairs:
            return float("nan")
        if args.statistic == "min":
            return min(b for _, b in pairs) / min(a for a, _ in pairs)
        return statistics.median(b / a for a, b in pairs)

    names_a = set().union(*(rnd[0].keys() for rnd in rounds))
    names_b = set().union(*(rnd[2].keys() for rnd in rounds))
    shared = sorted(names_a & names_b, key=lambda n: -value_of(0, n))
    print("bench/models/ab.py: %s, %s; load average %s; A = %s, B = %s; "
          "%d worker(s), %d ABBA rounds of %d calls; %s" % (
              layers.lscpu_header(), time.strftime("%Y-%m-%d %H:%M"),
              kernel_bench.load_average(), args.a, args.b, args.workers,
              args.rounds, args.calls,
              "medians in ms, ratio = median of the rounds' B / A"
              if args.statistic == "median" else
              "minima over all calls in ms, ratio = B's minimum / A's"))
    print("%-66s %9s %9s %7s" % ("dispatch", "A", "B", "B/A"))
    for name in shared[:args.top]:
        ratio = ratio_of([(rnd[0][name], rnd[2][name]) for rnd in rounds
                          if name in rnd[0] and name in rnd[2]])
        print("%-66s %9.3f %9.3f %6.3fx" %
              (name[:66], value_of(0, name), value_of(2, name), ratio))
    if len(shared) > args.top:
        print("(%d more shared rows)" % (len(shared) - args.top))
    for label, index, only in (("A", 0, names_a - names_b),
                               ("B", 2, names_b - names_a)):
        for name in sorted(only, key=lambda n: -value_of(index, n)):
            print("only %s  %-60s %9.3f" % (label, name[:60],
                                            value_of(index, name)))
    sums = [(sum(rnd[0].values()), sum(rnd[2].values())) for rnd in rounds]
    walls = [(rnd[1], rnd[3]) for rnd in rounds]
    print("dispatches: A %.3f, B %.3f ms, B/A %.3fx; wall: A %.3f, B %.3f "
          "ms, B/A %.3fx" % (
              statistic([s[0] for s in sums]),
              statistic([s[1] for s in sums]), ratio_of(sums),
              statistic([w[0] for w in walls]),
              statistic([w[1] for w in walls]), ratio_of(walls)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
