#!/usr/bin/env python3
"""run.py - bench/python: what the strata package adds to a small call.

Times the same calls through Python (session["fn"](...), numpy arrays in,
a new array out) and through the embedding C API from C++ (bench/python's
_capi_calls: a reused call, inputs copied into buffer views, the result
copied out), in interleaved rounds within one process, and prints the
medians, the ratio and the microseconds Python adds per call:

  - sample.add(i32, i32) -> i32 (tests/tools' sample.vmfb; no device work)
  - hal_sample.add(2x4xf32, 2x4xf32) -> 2x4xf32 (one dispatch), on
    local-sync and on local-task

  bench/python/run.py [--build=DIR] [--rounds=N] [--calls=N]

A benchmark prints figures; it is not a test.
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The package is built for Debian's interpreter (and numpy is Debian's).
PYTHON = "/usr/bin/python3"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    if os.path.realpath(sys.executable) != os.path.realpath(PYTHON):
        os.execv(PYTHON, [PYTHON] + sys.argv)
    build = os.path.abspath(args.build)
    sys.path[:0] = [os.path.join(build, "python"),
                    os.path.join(build, "bench", "python")]
    import numpy as np
    import strata
    import _capi_calls

    sample = os.path.join(build, "tests", "tools", "sample.vmfb")
    hal_sample = os.path.join(build, "samples", "hal_dispatch",
                              "hal_sample.vmfb")
    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    b = np.full((2, 4), 0.5, np.float32)
    out = np.empty_like(a)
    cases = []

    def add_case(name, module, device, py_call, c_time):
        cases.append((name, py_call, c_time))

    scalar = strata.Session(sample, device="local-sync")["add"]
    scalar_c = _capi_calls.Caller(sample, "add", "local-sync")
    add_case("sample.add(i32, i32) local-sync", sample, "local-sync",
             lambda: scalar(3, 4),
             lambda n: scalar_c.time_scalars(3, 4, n))
    for device in ("local-sync", "local-task"):
        fn = strata.Session(hal_sample, device=device)["add"]
        c = _capi_calls.Caller(hal_sample, "add", device)
        add_case("hal_sample.add(2x4xf32) " + device, hal_sample, device,
                 lambda fn=fn: fn(a, b),
                 lambda n, c=c: c.time_tensors(a, b, out, n))
        np.testing.assert_array_equal(fn(a, b), a + b)

    def time_python(call, n):
        start = time.perf_counter_ns()
        for _ in range(n):
            call()
        return (time.perf_counter_ns() - start) / n

    rows = []
    for name, py_call, c_time in cases:
        time_python(py_call, args.calls // 10)  # warm-up
        c_time(args.calls // 10)
        py_ns, c_ns = [], []
        for _ in range(args.rounds):
            py_ns.append(time_python(py_call, args.calls))
            c_ns.append(c_time(args.calls))
        rows.append((name, statistics.median(py_ns),
                     statistics.median(c_ns)))

    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print("bench/python: %d interleaved rounds of %d calls, medians per call;"
          " load average %s" % (args.rounds, args.calls, load))
    print("%-38s %10s %10s %8s %12s" % ("call", "python", "C API",
                                        "ratio", "added"))
    for name, py, c in rows:
        print("%-38s %7.2f us %7.2f us %7.2fx %9.2f us" % (
            name, py / 1e3, c / 1e3, py / c, (py - c) / 1e3))


if __name__ == "__main__":
    main()
