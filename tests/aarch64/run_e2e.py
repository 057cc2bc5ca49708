#!/usr/bin/env python3
"""run_e2e.py - the e2e suite's lit tests (tests/e2e) on another machine
(the aarch64 suite): writes wrappers named strata-compile (the host's
compiler with --target-triple, and without the tests' --target-cpu, which
name x86 CPUs: each x86 variant a test compiles becomes the target's
default), strata-run, strata-dump and strata-benchmark (the target's tools
under the emulator), a lit site configuration using them, and runs lit
with the tests that cannot hold on another machine left out (EXCLUDED).
Exits with lit's status.
"""

import argparse
import os
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
E2E = os.path.join(os.path.dirname(HERE), "e2e")

# Tests left out, each with its reason.
EXCLUDED = {
    "tensor/foreign-target.mlir":
        "checks that this host refuses an aarch64 module",
    "tensor/dynamic.mlir": "checks the x86-64 kernel library in the dump",
    "tensor/conv.mlir": "checks the flow IR of x86-64 CPUs",
    "tensor/dynamic-products.mlir": "the same",
    "tensor/packed-weights.mlir": "checks the AVX-512, AVX2 and SSE2 panel "
                                  "widths (its cases run in "
                                  "packed-weights-runs.mlir)",
    "tensor/rodata-weights.mlir": "checks the x86-64 stream IR",
    "tensor/conv-tiling.mlir": "checks the x86 builds' streaming stores in "
                               "their kernel IR (NEON stores plainly); its "
                               "2.2 G multiply-add convolution would take "
                               "minutes under the emulator",
    "tensor/multi-isa.mlir": "compiles x86-64-multi and runs its AVX-512, "
                             "AVX2 and baseline variants",
}


def write_script(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP |
             stat.S_IXOTH)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strata-compile", required=True)
    parser.add_argument("--triple", required=True)
    parser.add_argument("--tools-dir", required=True,
                        help="the target build's tools/ directory")
    parser.add_argument("--wrapper", required=True, help="the emulator")
    parser.add_argument("--lit", required=True)
    parser.add_argument("--llvm-tools-dir", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    bin_dir = os.path.join(args.work, "bin")
    os.makedirs(bin_dir, exist_ok=True)
    write_script(os.path.join(bin_dir, "strata-compile"),
                 "#!/bin/sh\n"
                 "for a in \"$@\"; do shift; case \"$a\" in\n"
                 "  --target-cpu=*) ;;\n"
                 "  *) set -- \"$@\" \"$a\" ;;\n"
                 "esac; done\n"
                 "exec '%s' '--target-triple=%s' \"$@\"\n" % (
                     args.strata_compile, args.triple))
    for tool in ["strata-run", "strata-dump", "strata-benchmark"]:
        path = os.path.join(args.tools_dir, tool, tool)
        if not os.path.exists(path):
            print("run_e2e: %s is missing" % path)
            return 1
        write_script(os.path.join(bin_dir, tool),
                     "#!/bin/sh\nexec '%s' '%s' \"$@\"\n" % (args.wrapper,
                                                             path))
    site = os.path.join(args.work, "lit.site.cfg.py")
    with open(site, "w") as f:
        f.write("# Written by tests/aarch64/run_e2e.py.\n"
                "config.strata_obj_root = %r\n"
                "config.strata_tools_dirs = [%r]\n"
                "config.llvm_tools_dir = %r\n"
                "config.target_llvm_cpu = True\n"
                "config.target_portable = True\n"
                "lit_config.load_config(config, %r)\n" % (
                    args.work, bin_dir, args.llvm_tools_dir,
                    os.path.join(E2E, "lit.cfg.py")))
    for name, reason in EXCLUDED.items():
        print("SKIP %s: %s" % (name, reason))
    filter_out = "|".join(name.replace(".", r"\.") for name in EXCLUDED)
    return subprocess.run([args.lit, "-v", "-j", str(args.jobs),
                           "--filter-out", filter_out, args.work]).returncode


if __name__ == "__main__":
    sys.exit(main())
