#!/usr/bin/env python3
"""runner_test.py - checks run_conformance.py on testdata/cases: passing,
failing and uncompilable cases, the skip list's absence, the counts and the
exit status. Arguments: the runner's arguments minus --root/--work."""

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
for problem in problems:
    print("runner_test: " + problem)
sys.exit(1 if problems else 0)
