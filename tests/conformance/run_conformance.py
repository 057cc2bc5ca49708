#!/usr/bin/env python3
"""run_conformance.py - compiles IREE's e2e test programs with strata-compile
and runs each test case with strata-run (`meson test --suite conformance`).

A test case is a public func.func with no arguments and no results; it passes
when it returns without error (its check.* ops ran in the check module). Each
file is compiled once (files in parallel); a file that does not compile fails
every one of its cases. Prints one line per case:

    PASS tosa_ops/add.mlir:tensor_int
    FAIL tosa_ops/exp.mlir:tensor <first line of the error>
    SKIP linalg/large_linalg_matmul.mlir:large_matmul <reason>

and ends with "N passed, N failed, N skipped". Exits 1 when a case fails,
77 (meson's "skipped") when the conformance directory is absent.
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time

# Cases left out on purpose, each with its reason: "file" skips every case
# of a file, "file:case" one case.
SKIPS = {
}

# A public function with no arguments and no results, as written in the
# source: the cases of a file that does not compile.
CASE_RE = re.compile(
    r"^\s*func\.func\s+(?:public\s+)?@([\w$.-]+)\s*\(\s*\)\s*"
    r"(?:attributes\s*\{[^}]*\}\s*)?\{", re.MULTILINE)


def source_cases(path):
    with open(path, encoding="utf-8") as f:
        return CASE_RE.findall(f.read())


def first_error_line(text, fallback):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if "error:" in line:
            return line
    return lines[0] if lines else fallback


def compile_file(args, rel, out):
    """Compiles one file; returns (cases or None, error line)."""
    src = os.path.join(args.root, rel)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    command = [args.strata_compile] + args.compile_arg + [src, "-o", out]
    if args.target_cpu:
        command.append("--target-cpu=" + args.target_cpu)
    try:
        result = subprocess.run(command, capture_output=True, text=True,
                                timeout=args.compile_timeout)
    except subprocess.TimeoutExpired:
        return None, "compile timed out after %ds" % args.compile_timeout
    if result.returncode != 0:
        return None, "compile: " + first_error_line(
            result.stderr, "strata-compile exited with %d" % result.returncode)
    dump = subprocess.run(args.run_wrapper + [args.strata_dump,
                                               "--format=json",
                                               "--no-disassembly", out],
                          capture_output=True, text=True, timeout=60)
    if dump.returncode != 0:
        return None, "strata-dump: " + first_error_line(dump.stderr, "failed")
    try:
        exports = json.loads(dump.stdout)["exports"]
    except (ValueError, KeyError) as error:
        return None, "strata-dump: unreadable export list (%s)" % error
    # "0_" (also written "0v_v"): no arguments, no results.
    cases = [e["name"] for e in exports
             if e["calling_convention"] in ("0_", "0v_v", "0v_")]
    return cases, None


def run_case(args, module, case, features=None):
    """Runs one case (under STRATA_CPU_FEATURES=features when given);
    returns None on success, else the first error line."""
    command = args.run_wrapper + [
        args.strata_run, "--module=" + module, "--function=" + case,
        "--device=" + args.device] + args.run_arg
    env = None
    if features is not None:
        env = dict(os.environ, STRATA_CPU_FEATURES=features)
    try:
        result = subprocess.run(command, capture_output=True, text=True,
                                timeout=args.case_timeout, env=env)
    except subprocess.TimeoutExpired:
        return "timed out after %ds" % args.case_timeout
    if result.returncode == 0:
        return None
    line = first_error_line(result.stderr + result.stdout,
                            "strata-run exited with %d" % result.returncode)
    if result.returncode < 0:
        line = "crashed (signal %d): %s" % (-result.returncode, line)
    return line.removeprefix("strata-run: ")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True,
                        help="the iree-e2e directory (holds tosa_ops/ ...)")
    parser.add_argument("--work", required=True,
                        help="a directory for the compiled modules")
    parser.add_argument("--strata-compile", required=True)
    parser.add_argument("--strata-run", required=True)
    parser.add_argument("--strata-dump", required=True)
    parser.add_argument("--compile-arg", action="append", default=[],
                        help="an extra strata-compile argument "
                        "(--target-triple=aarch64-linux-gnu)")
    parser.add_argument("--run-arg", action="append", default=[],
                        help="an extra strata-run argument "
                        "(--no-native-kernels)")
    parser.add_argument("--run-wrapper", action="append", default=[],
                        help="a word of the command strata-run and "
                        "strata-dump run under (qemu-aarch64-static)")
    parser.add_argument("--skip", action="append", default=[],
                        metavar="FILE[:CASE[@FEATURES]]=REASON",
                        help="leaves a file or a case out, with its reason "
                        "(@FEATURES: only its run under that "
                        "--cpu-features value)")
    parser.add_argument("--xfail", action="append", default=[],
                        metavar="FILE[:CASE]=REASON",
                        help="a file or case expected to fail, with its "
                        "reason: its failure is XFAIL, its pass fails the "
                        "run (the list must shrink when a case starts "
                        "passing)")
    parser.add_argument("--device", default="local-task")
    parser.add_argument("--target-cpu", default=None,
                        help="strata-compile's --target-cpu; with "
                        "x86-64-multi, STRATA_CPU_FEATURES=avx512|avx2|"
                        "baseline in the environment picks the variant the "
                        "cases run")
    parser.add_argument("--cpu-features", default=None,
                        help="';'-separated STRATA_CPU_FEATURES values "
                        "(avx512;avx2;baseline): each case runs once under "
                        "each, from one compiled module (with "
                        "--target-cpu=x86-64-multi, once per variant)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--compile-timeout", type=int, default=300)
    parser.add_argument("--case-timeout", type=int, default=60)
    parser.add_argument("filters", nargs="*",
                        help="only files whose relative path contains one")
    args = parser.parse_args()

    for skip in args.skip:
        name, _, reason = skip.partition("=")
        SKIPS[name] = reason or "skipped by --skip"
    xfails = {}
    for xfail in args.xfail:
        name, _, reason = xfail.partition("=")
        xfails[name] = reason or "expected to fail"

    if not os.path.isdir(args.root):
        print("conformance programs not found at %s; skipping" % args.root)
        return 77

    files = []
    for directory, _, names in os.walk(args.root):
        for name in names:
            if name.endswith(".mlir"):
                rel = os.path.relpath(os.path.join(directory, name), args.root)
                if not args.filters or any(f in rel for f in args.filters):
                    files.append(rel)
    files.sort()
    start = time.monotonic()

    def module_path(rel):
        return os.path.join(args.work, rel[:-len(".mlir")] + ".vmfb")

    to_compile = [rel for rel in files if SKIPS.get(rel) is None]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        compiled = dict(zip(to_compile, pool.map(
            lambda rel: compile_file(args, rel, module_path(rel)),
            to_compile)))

        # Every case to run, in file order, once per --cpu-features value.
        variants = (args.cpu_features.split(";") if args.cpu_features
                    else [None])
        # (rel, case, features, skip reason or None, compile error or None)
        plan = []
        for rel in files:
            for features in variants:
                def skip_of(case):
                    key = rel + ":" + case
                    return SKIPS.get("%s@%s" % (key, features),
                                     SKIPS.get(key))
                if rel not in compiled:
                    for case in (source_cases(os.path.join(args.root, rel))
                                 or ["*"]):
                        plan.append((rel, case, features, SKIPS[rel], None))
                    continue
                cases, error = compiled[rel]
                if cases is None:
                    names = source_cases(os.path.join(args.root, rel)) or ["*"]
                    for case in names:
                        plan.append((rel, case, features, None, error))
                    continue
                missing = [c for c in
                           source_cases(os.path.join(args.root, rel))
                           if c not in cases]
                for case in cases:
                    plan.append((rel, case, features, skip_of(case), None))
                for case in missing:
                    plan.append((rel, case, features, None,
                                 "not exported as a () -> () function"))

        def execute(item):
            rel, case, features, skip, error = item
            if skip is not None or error is not None:
                return item
            return (rel, case, features, None,
                    run_case(args, module_path(rel), case, features))

        results = list(pool.map(execute, plan))

    passed = failed = skipped = expected = unexpected = 0
    for rel, case, features, skip, error in results:
        name = "%s:%s" % (rel, case)
        xfail = xfails.get(name, xfails.get(rel))
        if features is not None:
            name += "@" + features
        if skip is not None:
            skipped += 1
            print("SKIP %s %s" % (name, skip))
        elif error is not None and xfail is not None:
            expected += 1
            print("XFAIL %s (%s) %s" % (name, xfail, error))
        elif error is not None:
            failed += 1
            print("FAIL %s %s" % (name, error))
        elif xfail is not None:
            unexpected += 1
            print("XPASS %s was expected to fail (%s): take it off the list"
                  % (name, xfail))
        else:
            passed += 1
            print("PASS %s" % name)
    print("(%d files in %.0f s)" % (len(files), time.monotonic() - start))
    summary = "%d passed, %d failed, %d skipped" % (passed, failed, skipped)
    if xfails:
        summary += ", %d expected failures, %d unexpected passes" % (
            expected, unexpected)
    print(summary)
    return 1 if failed or unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
