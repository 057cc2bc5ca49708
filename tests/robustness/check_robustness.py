#!/usr/bin/env python3
"""check_robustness.py - replays each class of hostile input the runtime
tools were hardened against (issue 18) and checks for the clean outcome:
exit status 1 and one stderr line with the exact error text, within a
timeout, never a crash or a hang.

usage: check_robustness.py CASE --run PATH --dump PATH --benchmark PATH
                           --sample PATH/sample.vmfb --hal-sample PATH [...]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import threading

FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print("FAIL: " + message, file=sys.stderr)


def run(argv, timeout=30):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        check(False, "timed out after %d s: %s" % (timeout, " ".join(argv)))
        return None, "", ""
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def expect_error(result, line, what, code=1):
    """The tool failed with exactly one stderr line, `line`."""
    rc, out, err = result
    if rc is None:
        return
    check(rc == code, "%s: exit status %r, expected %d (stderr %r)"
          % (what, rc, code, err))
    check(err == line + "\n", "%s: stderr %r, expected %r" % (what, err, line))


# --- A: files -----------------------------------------------------------


def case_files(a):
    zero_module = ("INVALID_ARGUMENT: module file '/dev/zero': not a Strata "
                   "module: bad magic (expected \"STRATAVM\")")
    expect_error(run([a.run, "--module=/dev/zero", "--function=f"]),
                 "strata-run: " + zero_module, "strata-run /dev/zero")
    expect_error(run([a.dump, "/dev/zero"]),
                 "strata-dump: " + zero_module, "strata-dump /dev/zero")
    expect_error(run([a.benchmark, "--module=/dev/zero", "--function=f"]),
                 "strata-benchmark: " + zero_module,
                 "strata-benchmark /dev/zero")
    with tempfile.TemporaryDirectory() as tmp:
        expect_error(run([a.run, "--module=" + tmp, "--function=f"]),
                     "strata-run: INVALID_ARGUMENT: module file '%s' is a "
                     "directory" % tmp, "strata-run directory")
    hal = ["--module=" + a.hal_sample, "--function=add"]
    expect_error(run([a.run] + hal + ["--input=@/dev/zero",
                                      "--input=@/dev/zero"]),
                 "strata-run: --input #1 ('@/dev/zero'): not a .npy file "
                 "(bad magic; expected \\x93NUMPY)", "strata-run @/dev/zero")
    expect_error(run([a.benchmark] + hal + ["--input=@/dev/zero",
                                            "--input=@/dev/zero"]),
                 "strata-benchmark: --input #1: not a .npy "
                 "file (bad magic; expected \\x93NUMPY)",
                 "strata-benchmark @/dev/zero")


def case_endless_pipe(a):
    """A pipe that sends a module header declaring 2 GiB and then zeros
    forever is refused from the header alone."""
    with open(a.sample, "rb") as f:
        header = bytearray(f.read(64))
    header[40:48] = (2 << 30).to_bytes(8, "little")  # segments_size
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "endless.vmfb")
        os.mkfifo(fifo)

        def feed():
            try:
                with open(fifo, "wb") as w:
                    w.write(header)
                    while True:
                        w.write(bytes(1 << 16))
            except (BrokenPipeError, OSError):
                pass

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        expect_error(run([a.run, "--module=" + fifo, "--function=f"]),
                     "strata-run: INVALID_ARGUMENT: module file '%s' is not "
                     "a regular file and its header declares %d bytes, over "
                     "the 1073741824-byte limit for streamed modules"
                     % (fifo, int.from_bytes(header[32:40], "little") +
                        (2 << 30)), "strata-run endless pipe")
        writer.join(timeout=5)


def case_huge_file(a):
    """A module whose header declares 64 GiB of segments, and a sparse 5 GiB
    .npy (over the 4 GiB limit), are refused before they are read."""
    with open(a.sample, "rb") as f:
        data = bytearray(f.read())
    with tempfile.TemporaryDirectory() as tmp:
        huge = os.path.join(tmp, "huge.vmfb")
        declared = 1 << 36
        data[40:48] = declared.to_bytes(8, "little")
        with open(huge, "wb") as f:
            f.write(data)
        seg_offset = int.from_bytes(data[32:40], "little")
        expect_error(run([a.run, "--module=" + huge, "--function=f"]),
                     "strata-run: INVALID_ARGUMENT: module file '%s': the "
                     "header declares %d bytes, over the 68719476736-byte "
                     "module limit" % (huge, seg_offset + declared),
                     "strata-run huge header")
        npy = os.path.join(tmp, "huge.npy")
        with open(npy, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00")
            f.truncate(5 << 30)  # sparse: nothing is written
        expect_error(run([a.run, "--module=" + a.hal_sample,
                          "--function=add", "--input=@" + npy,
                          "--input=@" + npy]),
                     "strata-run: --input #1 ('@%s'): cannot read '%s': the "
                     "file has 5368709120 bytes, over the limit of "
                     "4294967296 bytes" % (npy, npy), "strata-run huge .npy")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("case")
    parser.add_argument("--run", required=True)
    parser.add_argument("--dump", required=True)
    parser.add_argument("--benchmark", required=True)
    parser.add_argument("--sample", required=True)
    parser.add_argument("--hal-sample", required=True)
    args = parser.parse_args()
    globals()["case_" + args.case](args)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
