#!/usr/bin/env python3
"""runner_test.py - checks run_conformance.py on testdata/cases: passing,
failing and uncompilable cases, the skip list's absence, the counts and the
exit status; then one multi-ISA module per file run under two
--cpu-features values, with a case skipped under one of them. Arguments:
the runner's arguments minus --root/--work."""

import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
with tempfile.TemporaryDirectory() as work:
    result = subprocess.run(
        [sys.executable, os.path.join(here, "run_conformance.py"),
         "--root", os.path.join(here, "testdata", "cases"), "--work", work]
        + sys.argv[1:], capture_output=True, text=True, timeout=300)
lines = result.stdout.splitlines()
print(result.stdout + result.stderr)

expected_prefixes = [
    "FAIL broken.mlir:first compile: ",
    "FAIL broken.mlir:second compile: ",
    "FAIL fails.mlir:bad module.bad failed: INVALID_ARGUMENT: "
    "check.expect_eq failed: element [1] is 2, expected 3",
    "PASS fails.mlir:good",
    "PASS passes.mlir:add",
    "PASS passes.mlir:scalar",
]
problems = []
case_lines = [l for l in lines if l.split(" ")[0] in ("PASS", "FAIL", "SKIP")]
if len(case_lines) != len(expected_prefixes):
    problems.append("expected %d case lines, got %d" %
                    (len(expected_prefixes), len(case_lines)))
for want in expected_prefixes:
    if not any(line.startswith(want) for line in case_lines):
        problems.append("no line starting with %r" % want)
if "broken.mlir:3:" not in result.stdout:
    problems.append("the compile failure does not name the line at fault")
if not lines or lines[-1] != "3 passed, 3 failed, 0 skipped":
    problems.append("last line is %r" % (lines[-1] if lines else ""))
if result.returncode != 1:
    problems.append("exit status %d, expected 1" % result.returncode)

# Each case once per variant of one x86-64-multi module; a skip that names
# a variant leaves only that run out.
with tempfile.TemporaryDirectory() as work:
    multi = subprocess.run(
        [sys.executable, os.path.join(here, "run_conformance.py"),
         "--root", os.path.join(here, "testdata", "cases"), "--work", work,
         "--target-cpu", "x86-64-multi", "--cpu-features", "avx2;baseline",
         "--skip", "passes.mlir:scalar@baseline=left out on baseline",
         "passes.mlir"] + sys.argv[1:],
        capture_output=True, text=True, timeout=300)
print(multi.stdout + multi.stderr)
multi_lines = sorted(l for l in multi.stdout.splitlines()
                     if l.split(" ")[0] in ("PASS", "FAIL", "SKIP"))
want_multi = ["PASS passes.mlir:add@avx2", "PASS passes.mlir:add@baseline",
              "PASS passes.mlir:scalar@avx2",
              "SKIP passes.mlir:scalar@baseline left out on baseline"]
if multi_lines != want_multi:
    problems.append("multi-ISA run printed %r, expected %r" %
                    (multi_lines, want_multi))
if multi.returncode != 0:
    problems.append("multi-ISA run exit status %d" % multi.returncode)
for problem in problems:
    print("runner_test: " + problem)
sys.exit(1 if problems else 0)
