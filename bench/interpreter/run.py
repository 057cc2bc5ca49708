#!/usr/bin/env python3
"""run.py - times the interpreter benchmark: recursive fib(32) and a
200M-iteration i64 loop, compiled from MLIR by strata-compile and run by
strata-run, beside lua5.4 and luajit -joff running the same algorithms.

Every program is timed as a whole process (wall clock, start-up included),
in interleaved rounds so that drift on a shared machine hits all of them
alike, and every run's output is checked. Prints the median of each and the
ratios strata / lua5.4 and strata / luajit.

  bench/interpreter/run.py [--build=DIR] [--rounds=N] [--peers=DIR]

DIR is a meson build directory with the compiler (a release build for real
figures). fib.mlir and loop.mlir beside this script are compiled once, with
strata-compile's default pipeline, into a temporary directory. The Lua peers
are fib.lua and loop.lua beside this script (copies of
../shared/bench/peers).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def load_average():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def run_once(cmd, expected):
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    elapsed = time.perf_counter() - start
    out = proc.stdout.strip()
    if proc.returncode != 0 or out != expected:
        sys.exit("run.py: %s printed %r (exit %d, stderr %r); expected %r" %
                 (" ".join(cmd), out, proc.returncode, proc.stderr.strip(),
                  expected))
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--peers", default=HERE)
    args = parser.parse_args()

    strata_run = os.path.join(args.build, "tools", "strata-run", "strata-run")
    strata_compile = os.path.join(args.build, "compiler", "tools",
                                  "strata-compile", "strata-compile")
    for tool in (strata_run, strata_compile):
        if not os.access(tool, os.X_OK):
            sys.exit("run.py: %s is missing; build it with ninja -C %s "
                     "(the compiler needs LLVM 22: scripts/setup.sh)" %
                     (tool, args.build))
    for lua in ("lua5.4", "luajit"):
        if not shutil.which(lua):
            sys.exit("run.py: %s is not installed (scripts/setup.sh)" % lua)

    work = tempfile.mkdtemp(prefix="strata-interp-bench-")
    benches = [
        # (benchmark, program, expected printed value)
        ("fib(32)", "fib", "2178309"),
        ("loop 200M", "loop", "539100"),
    ]
    columns = ["strata", "lua5.4", "luajit -joff"]
    commands = {}
    for name, program, expected in benches:
        module = os.path.join(work, program + ".vmfb")
        subprocess.run([strata_compile, os.path.join(HERE, program + ".mlir"),
                        "-o", module], check=True)
        lua = os.path.join(args.peers, program + ".lua")
        commands[name] = {
            "strata": ([strata_run, "--module=" + module, "--function=main"],
                       "i64=" + expected),
            "lua5.4": (["lua5.4", lua], expected),
            "luajit -joff": (["luajit", "-joff", lua], expected),
        }

    load_before = load_average()
    samples = {(b, c): [] for b in commands for c in columns}
    # One warm-up run of each (page cache, CPU frequency), then the rounds.
    for b in commands:
        for c in columns:
            run_once(*commands[b][c])
    for _ in range(args.rounds):
        for b in commands:
            for c in columns:
                samples[(b, c)].append(run_once(*commands[b][c]))
    load_after = load_average()
    shutil.rmtree(work, ignore_errors=True)

    print("interpreter benchmark: %d interleaved rounds, median wall seconds "
          "per process (start-up included)" % args.rounds)
    print("load average before: %s, after: %s" % (load_before, load_after))
    header = "%-10s" % "program" + "".join("%14s" % c for c in columns)
    header += "%16s%16s" % ("strata/lua5.4", "strata/luajit")
    print(header)
    for b in commands:
        med = {c: statistics.median(samples[(b, c)]) for c in columns}
        row = "%-10s" % b + "".join("%14.3f" % med[c] for c in columns)
        row += "%16.2f%16.2f" % (med["strata"] / med["lua5.4"],
                                 med["strata"] / med["luajit -joff"])
        print(row)
    print("target: strata <= 0.70 x lua5.4 on both programs")


if __name__ == "__main__":
    main()
