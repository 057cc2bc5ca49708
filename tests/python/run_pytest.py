#!/usr/bin/env python3
"""run_pytest.py - runs pytest on the given test files for meson test.

Exits 0 only when pytest passed and at least one test ran and passed: a
run that collected nothing (pytest's exit status 5) or skipped everything
fails, so a broken build cannot pass by testing nothing.

  run_pytest.py TEST_FILE... [PYTEST_ARGS...]
"""
import sys

import pytest


class PassCounter:
    """A pytest plugin counting the tests whose call phase passed."""

    def __init__(self):
        self.passed = 0

    def pytest_runtest_logreport(self, report):
        if report.when == "call" and report.passed:
            self.passed += 1


def main():
    counter = PassCounter()
    status = int(pytest.main(
        ["-q", "-p", "no:cacheprovider", "-rfEs", *sys.argv[1:]],
        plugins=[counter]))
    if status == 5:
        print("run_pytest: FAILED: no tests were collected")
        return 1
    if status == 0 and counter.passed == 0:
        print("run_pytest: FAILED: no test passed (all skipped?)")
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
