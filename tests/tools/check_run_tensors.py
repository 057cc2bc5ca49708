#!/usr/bin/env python3
"""check_run_tensors.py - strata-run with tensors: text and .npy inputs,
printing, --output to .npy (checked byte for byte), --expected_output,
malformed inputs, and the devices. Runs the builder-made sample modules
(make_sample_modules.cpp: views.echo/swap/tag pass buffer views through) and,
when given, the HAL sample module that adds two tensors with a kernel.

.npy files are written with struct, so numpy is not needed; when numpy is
installed it cross-checks the files both ways.

usage: check_run_tensors.py CASE --run PATH --sample PATH/sample.vmfb
                            [--hal-sample PATH/hal_sample.vmfb]
"""

import argparse
import os
import struct
import subprocess
import sys
import tempfile

FAILURES = []

try:
    import numpy  # noqa: F401 - optional cross-checks only
    HAVE_NUMPY = True
except ImportError:
    HAVE_NUMPY = False


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print("FAIL: " + message, file=sys.stderr)


def npy_bytes(descr, shape, payload, version=1, fortran=False):
    """An .npy file laid out exactly as numpy.save writes it."""
    dims = ", ".join(str(d) for d in shape)
    if len(shape) == 1:
        dims += ","
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
        descr, "True" if fortran else "False", dims)
    preamble = 10 if version == 1 else 12
    total = (preamble + len(header) + 1 + 63) // 64 * 64
    length = total - preamble
    header += " " * (length - len(header) - 1) + "\n"
    size = struct.pack("<H", length) if version == 1 else \
        struct.pack("<I", length)
    return (b"\x93NUMPY" + bytes([version, 0]) + size +
            header.encode("latin1") + payload)


class Runner:
    def __init__(self, args, tmp):
        self.run_bin = args.run
        self.dir = os.path.dirname(os.path.abspath(args.sample))
        self.hal_sample = args.hal_sample
        self.benchmark = args.benchmark
        self.tmp = tmp

    def module(self, name):
        return "--module=" + os.path.join(self.dir, name + ".vmfb")

    def run(self, *argv):
        p = subprocess.run([self.run_bin] + list(argv), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        return (p.returncode, p.stdout.decode("utf-8"),
                p.stderr.decode("utf-8"))

    def path(self, name):
        return os.path.join(self.tmp, name)

    def write(self, name, data):
        path = self.path(name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def read(self, name):
        with open(self.path(name), "rb") as f:
            return f.read()


def expect_ok(t, argv, stdout, what=None):
    rc, out, err = t.run(*argv)
    check(rc == 0 and out == stdout and err == "",
          "%s: exit %d, stdout %r (expected %r), stderr %r" %
          (what or " ".join(argv), rc, out, stdout, err))


def expect_error(t, argv, line, code=1, what=None):
    """One stderr line exactly equal to `line` (or starting with it when it
    ends with '...'), nothing on stdout."""
    rc, out, err = t.run(*argv)
    what = what or " ".join(argv)
    check(rc == code, "%s: exit %d, expected %d (stderr %r)" %
          (what, rc, code, err))
    if line.endswith("..."):
        check(err.startswith(line[:-3]) and err.count("\n") == 1,
              "%s: stderr %r does not start with %r" % (what, err, line[:-3]))
    else:
        check(err == line + "\n", "%s: stderr %r, expected %r" %
              (what, err, line + "\n"))
    check(out == "", "%s: unexpected stdout %r" % (what, out))


# --- inputs and printing ----------------------------------------------------


def case_text_inputs(t):
    views = t.module("views")
    for text, printed in [
        ("2x3xf32=1 2 3 4 5 6", "2x3xf32=[1 2 3][4 5 6]"),
        ("2x3xf32=[1 2 3][4 5 6]", "2x3xf32=[1 2 3][4 5 6]"),
        ("2x3xf32=1,2,3,4,5,6", "2x3xf32=[1 2 3][4 5 6]"),
        ("3xi8=-1,0,0xff", "3xi8=-1 0 -1"),
        ("2x2xi1=true 0 1 false", "2x2xi1=[1 0][1 0]"),
        ("3xf16=0.1 65504 -2.5", "3xf16=0.1 65504 -2.5"),
        ("2x2x2xi32=[[1 2][3 4]][[5 6][7 8]]",
         "2x2x2xi32=[[1 2][3 4]][[5 6][7 8]]"),
        ("4xui16=65535", "4xui16=65535 65535 65535 65535"),
        ("2xsi64=-9223372036854775808 9223372036854775807",
         "2xsi64=-9223372036854775808 9223372036854775807"),
        ("2xf64=0.1 1e-300", "2xf64=0.1 1e-300"),
        ("f32=2.5", "f32=2.5"),
        ("0x3xf32=", "0x3xf32="),
    ]:
        expect_ok(t, [views, "--function=echo", "--input=" + text],
                  printed + "\n", "echo " + text)

    expect_ok(t, [views, "--function=echo", "--print_max_element_count=4",
                  "--input=2x3xi32=1 2 3 4 5 6"], "2x3xi32=[1 2 3][4 ...\n")
    # Primitives stay primitives next to tensors; results print in order.
    expect_ok(t, [views, "--function=tag", "--input=4xf32=1", "--input=i32=7"],
              "i32=7\n4xf32=1 1 1 1\n")
    expect_ok(t, [views, "--function=swap", "--input=2xi8=1 2",
                  "--input=f64=0.5"], "f64=0.5\n2xi8=1 2\n")
    # A module naming hal.buffer loads now that strata-run provides the hal
    # module, and the buffer view reaches it: cast.ref names its type.
    rc, out, err = t.run(t.module("needs_hal"), "--function=is_hal_buffer",
                         "--input=2xf32=1 2")
    check(rc == 1 and out == "" and err.startswith(
        "strata-run: needs_hal.is_hal_buffer failed: INVALID_ARGUMENT: "
        "cast.ref: expected a hal.buffer, got a hal.buffer_view\n"),
        "is_hal_buffer(view): exit %d, stderr %r" % (rc, err))
    expect_ok(t, [t.module("sample"), "--function=add", "--input=i32=2",
                  "--input=i32=3"], "i32=5\n")


def case_npy_inputs(t):
    views = t.module("views")
    cases = [
        ("<f4", [2, 3], struct.pack("<6f", 1, 2, 3, 4, 5, 6),
         "2x3xf32=[1 2 3][4 5 6]"),
        ("<i4", [3], struct.pack("<3i", -1, 0, 7), "3xi32=-1 0 7"),
        ("|b1", [4], bytes([1, 0, 0, 1]), "4xi1=1 0 0 1"),
        ("<f2", [2], struct.pack("<2e", 0.5, -2.0), "2xf16=0.5 -2"),
        ("|i1", [2], struct.pack("<2b", -128, 127), "2xi8=-128 127"),
        ("<u2", [2], struct.pack("<2H", 65535, 1), "2xui16=65535 1"),
        ("<i8", [1], struct.pack("<q", -5), "1xi64=-5"),
        ("<u8", [], struct.pack("<Q", 2**64 - 1), "ui64=18446744073709551615"),
        ("<f8", [2, 1], struct.pack("<2d", 0.25, 1e100), "2x1xf64=[0.25][1e+100]"),
        ("|u1", [0, 2], b"", "0x2xui8="),
    ]
    for i, (descr, shape, payload, printed) in enumerate(cases):
        path = t.write("in%d.npy" % i, npy_bytes(descr, shape, payload))
        expect_ok(t, [views, "--function=echo", "--input=@" + path],
                  printed + "\n", "echo @%s" % descr)
        # The .npy written back is byte-identical to the one read.
        out = t.path("out%d.npy" % i)
        expect_ok(t, [views, "--function=echo", "--input=@" + path,
                      "--output=@" + out], "", "echo @%s to npy" % descr)
        check(t.read("out%d.npy" % i) == npy_bytes(descr, shape, payload),
              "round trip of %s: %r" % (descr, t.read("out%d.npy" % i)))

    # Version 2.0 headers and '=' byte order read too; writing uses 1.0.
    v2 = t.write("v2.npy", npy_bytes("=f4", [2], struct.pack("<2f", 1, 2),
                                     version=2))
    expect_ok(t, [views, "--function=echo", "--input=@" + v2],
              "2xf32=1 2\n")
    # A 0-d .npy of the right type is a scalar where a primitive is expected.
    scalar = t.write("scalar.npy", npy_bytes("<i4", [], struct.pack("<i", 40)))
    expect_ok(t, [t.module("sample"), "--function=add", "--input=@" + scalar,
                  "--input=i32=2"], "i32=42\n")

    if HAVE_NUMPY:
        import io
        import numpy as np
        a = np.arange(12, dtype=np.float32).reshape(3, 4) / 3
        path = t.path("np_in.npy")
        np.save(path, a)
        out = t.path("np_out.npy")
        expect_ok(t, [views, "--function=echo", "--input=@" + path,
                      "--output=@" + out], "", "numpy echo")
        b = np.load(out)
        check(b.dtype == a.dtype and b.shape == a.shape and
              (b == a).all(), "numpy round trip: %r" % b)
        for dtype in ["<f2", "<f4", "<f8", "|b1", "|i1", "<i2", "<i4", "<i8",
                      "|u1", "<u2", "<u4", "<u8"]:
            arr = (np.arange(6) % 2).astype(dtype).reshape(2, 3)
            buf = io.BytesIO()
            np.save(buf, arr)
            check(buf.getvalue() ==
                  npy_bytes(dtype, [2, 3], arr.tobytes()),
                  "numpy writes %s as npy_bytes does" % dtype)


def case_input_errors(t):
    views = t.module("views")
    echo = [views, "--function=echo"]
    prefix = "strata-run: --input #1 "
    for text, message in [
        ("2x3xf32=1 2 3", "expected 6 elements, got 3"),
        ("2x3xf32=", "expected 6 elements, got 0"),
        ("2x3xf31=1", "unknown element type 'f31'; expected i1, i8, i16, "
         "i32, i64, si8..si64, ui8..ui64, f16, bf16, f32 or f64"),
        ("2xx3xf32=1", "malformed shape '2xx3': dims are non-negative "
         "integers separated by 'x'"),
        ("4xi8=1 2 3 300", "value '300' (element 3) is out of range for i8"),
        ("ui8=-1", "value '-1' is out of range for ui8"),
        ("2xi1=1 2", "value '2' (element 1) is out of range for i1"),
        ("f16=1e5", "value '1e5' is out of range for f16"),
        ("4xi32=1 2 x 4", "value 'x' (element 2) is not a valid i32"),
        ("2x3xf32", "expected SHAPExTYPE=VALUES or TYPE=VALUE, such as "
         "2x3xf32=1 2 3 4 5 6 or i32=5"),
    ]:
        expect_error(t, echo + ["--input=" + text],
                     prefix + "('%s'): %s" % (text, message))

    # The position is the flag's, counting from 1.
    expect_error(t, [views, "--function=swap", "--input=2xf32=1 2",
                     "--input=2x3xf32=1 2 3"],
                 "strata-run: --input #2 ('2x3xf32=1 2 3'): expected 6 "
                 "elements, got 3")
    # Long values are shortened in the message.
    long_text = "64xf32=" + " ".join(["1"] * 63)
    expect_error(t, echo + ["--input=" + long_text],
                 prefix + "('%s...'): expected 64 elements, got 63" %
                 long_text[:57])

    good = npy_bytes("<f4", [2], struct.pack("<2f", 1, 2))
    missing = t.path("missing.npy")
    for name, data, message in [
        ("magic.npy", b"PK\x03\x04" + good[4:],
         "not a .npy file (bad magic; expected \\x93NUMPY)"),
        ("fortran.npy", npy_bytes("<f4", [2, 1], struct.pack("<2f", 1, 2),
                                  fortran=True),
         "fortran_order arrays are not supported; save a C-contiguous array "
         "(numpy.ascontiguousarray)"),
        ("dtype.npy", npy_bytes("<c8", [1], b"\0" * 8),
         "unsupported dtype '<c8'; expected b1, i1, i2, i4, i8, u1, u2, u4, "
         "u8, f2, f4 or f8 (little-endian)"),
        ("big.npy", npy_bytes(">f4", [2], b"\0" * 8),
         "unsupported dtype '>f4' (big-endian); save the array as "
         "little-endian ('<')"),
        ("short.npy", good[:-3], "truncated: expected 8 bytes of data, "
         "found 5"),
        ("header.npy", good[:40], "truncated header: it declares 118 bytes "
         "but the file has 30 after the preamble"),
        ("long.npy", good + b"\0", "1 unexpected bytes after the array data "
         "(one array per file)"),
        ("noshape.npy", npy_bytes("<f4", [2], b"").replace(
            b"'shape'", b"'shapx'"), "malformed header: no 'shape' key"),
    ]:
        path = t.write(name, data)
        expect_error(t, echo + ["--input=@" + path],
                     prefix + "('@%s'): %s" % (path, message), what=name)
    expect_error(t, echo + ["--input=@" + missing],
                 prefix + "('@%s'): cannot read '%s': No such file or "
                 "directory" % (missing, missing))

    # Tensors where a primitive is expected, and the wrong primitive.
    add = "sample.add expects (i32, i32) -> i32 [0ii_i]"
    sample = t.module("sample")
    expect_error(t, [sample, "--function=add", "--input=2x3xf32=1",
                     "--input=i32=1"],
                 prefix + "('2x3xf32=1'): %s; argument 0 is i32, not a "
                 "2x3xf32 tensor" % add)
    expect_error(t, [sample, "--function=add", "--input=i32=1",
                     "--input=f32=1"],
                 "strata-run: --input #2 ('f32=1'): %s; argument 1 is i32, "
                 "not f32" % add)
    expect_error(t, [sample, "--function=add", "--input=i8=1",
                     "--input=i32=1"],
                 prefix + "('i8=1'): %s; argument 0 is i32, not i8" % add)


# --- outputs -------------------------------------------------------------


def case_outputs(t):
    views = t.module("views")
    a = "--input=2x2xf32=1 2 3 4"
    b = "--input=3xi16=-1 0 1"
    a_npy = npy_bytes("<f4", [2, 2], struct.pack("<4f", 1, 2, 3, 4))
    b_npy = npy_bytes("<i2", [3], struct.pack("<3h", -1, 0, 1))

    # One --output per result, in order.
    expect_ok(t, [views, "--function=swap", a, b,
                  "--output=@" + t.path("r0.npy"),
                  "--output=@" + t.path("r1.npy")], "")
    check(t.read("r0.npy") == b_npy, "swap result 0: %r" % t.read("r0.npy"))
    check(t.read("r1.npy") == a_npy, "swap result 1: %r" % t.read("r1.npy"))
    # '-' prints, '' drops, results past the last flag print.
    expect_ok(t, [views, "--function=swap", a, b, "--output=-",
                  "--output=@" + t.path("r2.npy")], "3xi16=-1 0 1\n")
    check(t.read("r2.npy") == a_npy, "swap result 1 again")
    expect_ok(t, [views, "--function=swap", a, b, "--output="],
              "2x2xf32=[1 2][3 4]\n")
    # Scalars write as 0-d arrays.
    expect_ok(t, [t.module("sample"), "--function=pair",
                  "--output=@" + t.path("i.npy"),
                  "--output=@" + t.path("f.npy")], "")
    check(t.read("i.npy") == npy_bytes("<i4", [], struct.pack("<i", 7)),
          "pair i32 as npy: %r" % t.read("i.npy"))
    check(t.read("f.npy") == npy_bytes("<f8", [], struct.pack("<d", 0.5)),
          "pair f64 as npy: %r" % t.read("f.npy"))
    expect_ok(t, [views, "--function=echo", "--input=2xi1=1 0",
                  "--output=@" + t.path("bool.npy")], "")
    check(t.read("bool.npy") == npy_bytes("|b1", [2], bytes([1, 0])),
          "i1 as npy: %r" % t.read("bool.npy"))

    expect_error(t, [views, "--function=echo", a, "--output=-",
                     "--output=-"],
                 "strata-run: 2 --output flags but views.echo returned 1 "
                 "result")
    expect_error(t, [t.module("sample"), "--function=make_buffer",
                     "--output=@" + t.path("buffer.npy")],
                 "strata-run: result 0 is vm.buffer<16 bytes>, which cannot "
                 "be written to " + t.path("buffer.npy"))
    bad_dir = t.path("no/such/dir/x.npy")
    expect_error(t, [views, "--function=echo", a, "--output=@" + bad_dir],
                 "strata-run: writing result 0 to %s: No such file or "
                 "directory" % bad_dir)
    rc, out, err = t.run(views, "--function=echo", a, "--output=x.npy")
    check(rc == 2 and "--output takes '-'" in err and "usage:" in err,
          "--output=x.npy: exit %d, %r" % (rc, err))


# --- expected outputs ----------------------------------------------------


def case_expected(t):
    views = t.module("views")
    echo = [views, "--function=echo"]
    x = "--input=2x3xf32=1 2 3 4 5 6"
    success = "[SUCCESS] all results match\n"
    expect_ok(t, echo + [x, "--expected_output=2x3xf32=[1 2 3][4 5 6]"],
              success)
    # Within the f32 threshold (1e-4 by default), and beyond a tighter one.
    near = "--expected_output=2x3xf32=1 2 3 4 5 6.00005"
    expect_ok(t, echo + [x, near], success)
    rc, out, err = t.run(*(echo + [x, near, "--expected_f32_threshold=0"]))
    check(rc == 1 and out.startswith("[FAILED] result[0]: element [1, 2] "
                                     "is 6, expected 6.00005"),
          "f32 threshold 0: exit %d, %r" % (rc, out))

    # The first mismatching index with both values; exit 1.
    rc, out, err = t.run(*(echo + [x, "--expected_output=2x3xf32=1 2 3 4 "
                                      "9 7"]))
    check(rc == 1 and out == "[FAILED] result[0]: element [1, 1] is 5, "
          "expected 9 (|difference| 4 > 0.0001)\n",
          "f32 mismatch: exit %d, stdout %r" % (rc, out))
    check(err == "strata-run: 1 result of 1 does not match the expected "
          "output\n", "f32 mismatch stderr %r" % err)
    rc, out, err = t.run(*(echo + ["--input=3xi32=1 2 3",
                                   "--expected_output=3xi32=1 2 4"]))
    check(rc == 1 and out == "[FAILED] result[0]: element [2] is 3, "
          "expected 4\n", "i32 mismatch: exit %d, %r" % (rc, out))
    rc, out, err = t.run(*(echo + [x, "--expected_output=3x2xf32=0"]))
    check(rc == 1 and out == "[FAILED] result[0]: is 2x3xf32, expected "
          "3x2xf32\n", "shape mismatch: exit %d, %r" % (rc, out))
    rc, out, err = t.run(*(echo + [x, "--expected_output=2x3xf64=0"]))
    check(rc == 1 and out == "[FAILED] result[0]: is 2x3xf32, expected "
          "2x3xf64\n", "type mismatch: exit %d, %r" % (rc, out))

    # f16 and f64 thresholds.
    f16 = echo + ["--input=2xf16=1 2", "--expected_output=2xf16=1.001 2"]
    expect_ok(t, f16, success, "f16 within 1e-3")
    rc, out, err = t.run(*(f16 + ["--expected_f16_threshold=0.0001"]))
    check(rc == 1 and "element [0] is 1, expected 1.001" in out,
          "f16 threshold: exit %d, %r" % (rc, out))
    f64 = echo + ["--input=f64=0.1", "--expected_output=f64=0.1002"]
    rc, out, err = t.run(*f64)
    check(rc == 1 and out.startswith("[FAILED] result[0]: is 0.1, expected "
                                     "0.1002 (|difference| 0.0002"),
          "f64 beyond 1e-4: exit %d, %r" % (rc, out))
    expect_ok(t, f64 + ["--expected_f64_threshold=0.001"], success)

    # Scalars, several results, .npy expectations, printing on request.
    sample = t.module("sample")
    expect_ok(t, [sample, "--function=pair", "--expected_output=i32=7",
                  "--expected_output=f64=0.5"], success)
    rc, out, err = t.run(sample, "--function=pair", "--expected_output=i32=8",
                         "--expected_output=f64=0.75")
    check(rc == 1 and out == "[FAILED] result[0]: is 7, expected 8\n"
          "[FAILED] result[1]: is 0.5, expected 0.75 (|difference| 0.25 > "
          "0.0001)\n", "pair mismatches: %r" % out)
    check(err == "strata-run: 2 results of 2 do not match the expected "
          "output\n", "pair stderr %r" % err)
    expected = t.write("expected.npy", npy_bytes(
        "<f4", [2, 3], struct.pack("<6f", 1, 2, 3, 4, 5, 6)))
    expect_ok(t, echo + [x, "--expected_output=@" + expected], success)
    expect_ok(t, echo + [x, "--expected_output=@" + expected, "--output=-"],
              "2x3xf32=[1 2 3][4 5 6]\n" + success)
    rc, out, err = t.run(sample, "--function=make_buffer",
                         "--expected_output=4xi32=0")
    check(rc == 1 and out == "[FAILED] result[0]: is vm.buffer<16 bytes>, "
          "which cannot be compared\n", "vm.buffer compare: %r" % out)

    # Wrong counts and malformed expectations fail before comparing.
    expect_error(t, echo + [x, "--expected_output=2x3xf32=0",
                            "--expected_output=i32=1"],
                 "strata-run: 2 --expected_output flags but views.echo "
                 "returned 1 result")
    expect_error(t, echo + [x, "--expected_output=2x3xf32=1 2"],
                 "strata-run: --expected_output #1 ('2x3xf32=1 2'): "
                 "expected 6 elements, got 2")
    expect_error(t, echo + [x, "--expected_output=@" + t.path("nope.npy")],
                 "strata-run: --expected_output #1 ('@%s'): cannot read "
                 "'%s': No such file or directory" %
                 (t.path("nope.npy"), t.path("nope.npy")))
    for flag in ["--expected_f32_threshold=-1", "--expected_f16_threshold=x",
                 "--expected_f64_threshold=inf"]:
        rc, out, err = t.run(*(echo + [x, flag]))
        check(rc == 2 and "takes a non-negative number" in err,
              "%s: exit %d, %r" % (flag, rc, err))


# --- devices -------------------------------------------------------------


def case_devices(t):
    views = t.module("views")
    runs = [
        [views, "--function=swap", "--input=2x2xf32=1 2 3 4",
         "--input=3xi8=1 2 3"],
        [t.module("sample"), "--function=add", "--input=i32=2",
         "--input=i32=3"],
    ]
    if t.hal_sample:
        runs.append(["--module=" + t.hal_sample, "--function=add",
                     "--input=2x3xf32=1 2 3 4 5 6",
                     "--input=2x3xf32=10 20 30 40 50 60"])
    for argv in runs:
        results = []
        for device in [[], ["--device=local-task"],
                       ["--device=local-task", "--task_workers=1"],
                       ["--device=local-task", "--task_workers=3"],
                       ["--device=local-sync"]]:
            rc, out, err = t.run(*(argv + device))
            check(rc == 0 and err == "",
                  "%s: exit %d, stderr %r" % (" ".join(argv + device), rc,
                                              err))
            results.append(out)
        check(len(set(results)) == 1 and results[0],
              "devices disagree on %s: %r" % (" ".join(argv), results))

    rc, out, err = t.run(views, "--function=echo", "--input=f32=1",
                         "--device=gpu")
    check(rc == 2 and out == "" and err.startswith(
        "strata-run: unknown device 'gpu'; the devices are local-sync and "
        "local-task\nusage: strata-run"),
        "unknown device: exit %d, stderr %r" % (rc, err))
    for flag in ["--task_workers=-1", "--task_workers=x",
                 "--task_workers=99999"]:
        rc, out, err = t.run(views, "--function=echo", "--input=f32=1", flag)
        check(rc == 2 and "--task_workers needs a whole number" in err,
              "%s: exit %d, %r" % (flag, rc, err))
    rc, out, err = t.run("--help")
    for needle in ["--device=NAME", "local-sync", "--task_workers=N",
                   "--output=TARGET", "--expected_output=VALUE",
                   "--expected_f32_threshold", "@FILE.npy", "2x3xf32"]:
        check(rc == 0 and needle in out, "--help lacks %r" % needle)


# --- the HAL sample: a real kernel --------------------------------------


def case_hal_sample(t):
    if not t.hal_sample:
        print("no --hal-sample given; skipped")
        return
    hal = "--module=" + t.hal_sample
    add = [hal, "--function=add"]
    expect_ok(t, add + ["--input=2x3xf32=1 2 3 4 5 6",
                        "--input=2x3xf32=10 20 30 40 50 60"],
              "2x3xf32=[11 22 33][44 55 66]\n")
    expect_ok(t, add + ["--input=2x3xf32=1 2 3 4 5 6",
                        "--input=2x3xf32=0.5",
                        "--expected_output=2x3xf32=1.5 2.5 3.5 4.5 5.5 6.5"],
              "[SUCCESS] all results match\n")
    x = t.write("x.npy", npy_bytes("<f4", [4], struct.pack("<4f", 1, 2, 3, 4)))
    expect_ok(t, add + ["--input=@" + x, "--input=@" + x,
                        "--output=@" + t.path("sum.npy")], "")
    check(t.read("sum.npy") ==
          npy_bytes("<f4", [4], struct.pack("<4f", 2, 4, 6, 8)),
          "hal add to npy: %r" % t.read("sum.npy"))
    rc, out, err = t.run(*(add + ["--input=4xf32=1 2 3 4",
                                  "--input=4xf32=1 2 3 4",
                                  "--expected_output=4xf32=2 4 7 8"]))
    check(rc == 1 and out == "[FAILED] result[0]: element [2] is 6, "
          "expected 7 (|difference| 1 > 0.0001)\n",
          "hal add mismatch: exit %d, %r" % (rc, out))
    # Rank 0 and rank 4, on both devices.
    for device in ["--device=local-sync", "--device=local-task"]:
        expect_ok(t, add + [device, "--input=f32=1.5", "--input=f32=2"],
                  "f32=3.5\n")
        expect_ok(t, add + [device, "--input=1x2x1x2xf32=1 2 3 4",
                            "--input=1x2x1x2xf32=0.5"],
                  "1x2x1x2xf32=[[[1.5 2.5]][[3.5 4.5]]]\n")
    # A larger tensor from .npy, written back and checked element by element.
    n = 64 * 1024
    values = [float(i % 97) - 48.0 for i in range(n)]
    big = t.write("big.npy", npy_bytes("<f4", [256, 256],
                                       struct.pack("<%df" % n, *values)))
    expect_ok(t, add + ["--input=@" + big, "--input=@" + big,
                        "--output=@" + t.path("big_sum.npy")], "")
    check(t.read("big_sum.npy") ==
          npy_bytes("<f4", [256, 256],
                    struct.pack("<%df" % n, *[2 * v for v in values])),
          "hal add of 256x256 from npy")
    # The module's own checks reach the user as runtime failures.
    rc, out, err = t.run(*(add + ["--input=2x3xf32=1", "--input=3x2xf32=1"]))
    check(rc == 1 and "expected tensor<2x3xf32>, got tensor<3x2xf32>" in err
          and "at hal_sample.add" in err,
          "hal add shape mismatch: exit %d, %r" % (rc, err))
    rc, out, err = t.run(*(add + ["--input=2xi32=1", "--input=2xi32=1"]))
    check(rc == 1 and "got tensor<2xi32>" in err,
          "hal add of i32: exit %d, %r" % (rc, err))


# --- lists (ONNX sequences and optionals) -------------------------------------


def npz_bytes(members, compress=False, zip64=False):
    """An .npz archive of (name, .npy bytes) members written by zipfile, as
    numpy.savez does (stored; force_zip64 like numpy when asked)."""
    import io
    import zipfile
    buf = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in members:
            info = zipfile.ZipInfo(name)
            info.compress_type = method
            with z.open(info, "w", force_zip64=zip64) as f:
                f.write(data)
    return buf.getvalue()


def f32s(*values):
    return struct.pack("<%df" % len(values), *values)


def case_lists(t):
    """lists.vmfb's functions take and return vm.lists recorded as
    list<...> and optional<...>: 'list:N' and N values, .npz files, 'none',
    an optional's value; results print on one line and write to .npz."""
    m = t.module("lists")
    a = npy_bytes("<f4", [3], f32s(1, 2, 3))
    b = npy_bytes("<f4", [2], f32s(4, 5))
    seq = t.write("seq.npz", npz_bytes([("arr_0.npy", a), ("arr_1.npy", b)],
                                       zip64=True))
    empty = t.write("empty.npz", npz_bytes([]))
    expect_ok(t, [m, "--function=seq_echo", "--input=list:2",
                  "--input=3xf32=1 2 3", "--input=2xf32=4 5"],
              "list<2>[3xf32=1 2 3, 2xf32=4 5]\n")
    expect_ok(t, [m, "--function=seq_echo", "--input=@" + seq],
              "list<2>[3xf32=1 2 3, 2xf32=4 5]\n", "seq_echo of seq.npz")
    expect_ok(t, [m, "--function=seq_echo", "--input=list:0"], "list<0>[]\n")
    expect_ok(t, [m, "--function=seq_echo", "--input=@" + empty],
              "list<0>[]\n", "seq_echo of empty.npz")
    # Elements of any rank ("*xi64"), counted by the module.
    expect_ok(t, [m, "--function=seq_len", "--input=list:3", "--input=i64=1",
                  "--input=2x2xi64=1 2 3 4", "--input=0xi64="], "i32=3\n")
    expect_ok(t, [m, "--function=opt_echo", "--input=none"], "none\n")
    expect_ok(t, [m, "--function=opt_echo", "--input=1 2"], "2xi32=1 2\n")
    expect_ok(t, [m, "--function=optseq_echo", "--input=none"], "none\n")
    expect_ok(t, [m, "--function=optseq_echo", "--input=list:1",
                  "--input=2xf32=1 2"], "list<1>[2xf32=1 2]\n")
    expect_ok(t, [m, "--function=mixed", "--input=@" + seq,
                  "--input=3xf32=7 8 9"], "i32=2\n3xf32=7 8 9\n")
    # Unrecorded: list:N builds a list all the same.
    expect_ok(t, [m, "--function=any_echo", "--input=list:1",
                  "--input=f32=1"], "list<1>[f32=1]\n")
    # bf16 elements take f32 data, rounded to nearest even.
    expect_ok(t, [m, "--function=bf16_seq", "--input=list:1",
                  "--input=3xf32=1 1.00390625 1.01171875"],
              "list<1>[3xbf16=1 1 1.015625]\n")

    # Results to .npz: stored arr_0.npy... members, read back byte for byte.
    out = t.path("out.npz")
    expect_ok(t, [m, "--function=seq_echo", "--input=@" + seq,
                  "--output=@" + out], "", "seq_echo to out.npz")
    import zipfile
    with zipfile.ZipFile(out) as z:
        check(z.namelist() == ["arr_0.npy", "arr_1.npy"],
              "out.npz members: %r" % z.namelist())
        check(z.testzip() is None, "out.npz: bad CRC")
        check(z.read("arr_0.npy")[-12:] == f32s(1, 2, 3) and
              z.read("arr_1.npy")[-8:] == f32s(4, 5), "out.npz contents")
    if HAVE_NUMPY:
        import numpy as np
        with np.load(out) as z:
            check(z.files == ["arr_0", "arr_1"] and
                  z["arr_1"].tolist() == [4.0, 5.0], "numpy reads out.npz")
        np.savez(t.path("np.npz"), np.arange(4, dtype=np.int64).reshape(2, 2),
                 np.array(7, dtype=np.int64))
        expect_ok(t, [m, "--function=seq_len", "--input=@" + t.path("np.npz")],
                  "i32=2\n", "seq_len of numpy.savez's file")
    expect_ok(t, [m, "--function=opt_echo", "--input=none",
                  "--output=@" + out], "", "none to out.npz")
    with zipfile.ZipFile(out) as z:
        check(z.namelist() == [], "none wrote %r" % z.namelist())
    # An optional's value goes to an .npy as well; bf16 is written as f32.
    npy = t.path("out.npy")
    expect_ok(t, [m, "--function=opt_echo", "--input=1 2",
                  "--output=@" + npy], "", "opt_echo to out.npy")
    check(t.read("out.npy")[-8:] == struct.pack("<2i", 1, 2), "out.npy")
    expect_ok(t, [m, "--function=bf16_seq", "--input=list:1",
                  "--input=2xf32=1.5 -2", "--output=@" + out], "",
              "bf16_seq to out.npz")
    with zipfile.ZipFile(out) as z:
        data = z.read("arr_0.npy")
        check(b"'<f4'" in data and data[-8:] == f32s(1.5, -2),
              "bf16 element written as f32: %r" % data[-8:])

    # Bad input: each error names the flag and what is wrong.
    fn = "--function=seq_echo"
    expect_error(t, [m, fn, "--input=list:3", "--input=3xf32=1"],
                 "strata-run: --input #1 ('list:3'): the list has 3 elements "
                 "but 1 --input flag follows it")
    expect_error(t, [m, fn, "--input=list:x"],
                 "strata-run: --input #1 ('list:x'): list: needs a whole "
                 "number from 0 to 1048576, not 'x'")
    expect_error(t, [m, fn, "--input=list:1", "--input=3xi32=1"],
                 "strata-run: --input #2 ('3xi32=1'): element 0 of argument 0 "
                 "of lists.seq_echo is a ?xf32 tensor, not 3xi32")
    expect_error(t, [m, fn, "--input=3xf32=1"],
                 "strata-run: --input #1 ('3xf32=1'): argument 0 of "
                 "lists.seq_echo is a list<?xf32>: give it as 'list:N' "
                 "followed by its N elements, or as @FILE.npz")
    expect_error(t, [m, fn, "--input=none"],
                 "strata-run: --input #1 ('none'): 'none' is an empty "
                 "optional, but argument 0 of lists.seq_echo is a list<?xf32>")
    expect_error(t, [m, "--function=opt_echo", "--input=list:1",
                     "--input=2xi32=1"],
                 "strata-run: --input #1 ('list:1'): argument 0 of "
                 "lists.opt_echo is an optional<2xi32>: give its value, or "
                 "'none'")
    expect_error(t, [m, "--function=opt_echo", "--input=@" + seq],
                 "strata-run: --input #1 ('@%s'): argument 0 of lists.opt_echo "
                 "is an optional<2xi32>, which holds at most one value; the "
                 "file has 2 arrays" % seq)
    expect_error(t, [m, "--function=mixed", "--input=@" + seq,
                     "--input=@" + seq],
                 "strata-run: --input #2 ('@%s'): argument 1 of lists.mixed "
                 "is a 3xf32 tensor, not a list" % seq)
    expect_error(t, [m, "--function=mixed", "--input=list:0", "--input=3xf32=1",
                     "--input=1"],
                 "strata-run: lists.mixed expects (ref, ref) -> (i32, ref) "
                 "[0rr_ir], got 3 inputs; the inputs after --input #2 are "
                 "left over")
    expect_error(t, [m, fn, "--input=@" + seq, "--output=@" + npy],
                 "strata-run: result 0 is a list of 2 values, which cannot be "
                 "written to %s; write it to a .npz file" % npy)
    expect_error(t, [m, "--function=mixed", "--input=list:0",
                     "--input=3xf32=1", "--output=", "--output=@" + out],
                 "strata-run: result 1 is a tensor; .npz files are for lists "
                 "(sequences and optionals): write it to a .npy file")
    # Malformed archives.
    bad = {
        "compressed.npz": (npz_bytes([("arr_0.npy", a)], compress=True),
                           "member 'arr_0.npy' is compressed "
                           "(numpy.savez_compressed); save it with numpy.savez"),
        "text.npz": (b"PK\x03\x04 but nothing else",
                     "not a .npz file (no zip end record)"),
        "truncated.npz": (npz_bytes([("arr_0.npy", a)])[:40],
                          "not a .npz file (no zip end record)"),
        "notnpy.npz": (npz_bytes([("readme.txt", b"hi")]),
                       "member 'readme.txt' is not a .npy file"),
        "badnpy.npz": (npz_bytes([("arr_0.npy", b"\x93NUMPY junk")]),
                       "member 'arr_0.npy': ..."),
    }
    good = npz_bytes([("arr_0.npy", a)])
    corrupt = bytearray(good)
    corrupt[good.index(f32s(1, 2, 3))] ^= 0xFF
    bad["crc.npz"] = (bytes(corrupt), "member 'arr_0.npy': CRC mismatch "
                                      "(the archive is corrupt)")
    for name, (data, message) in sorted(bad.items()):
        path = t.write(name, data)
        expect_error(t, [m, fn, "--input=@" + path],
                     "strata-run: --input #1 ('@%s'): '%s': %s" %
                     (path, path, message), what=name)
    # strata-benchmark reads list arguments the same way.
    if t.benchmark:
        for argv in (["--input=list:2", "--input=i64=1", "--input=2xi64=1 2"],
                     ["--input=@" + t.path("np.npz")] if HAVE_NUMPY else []):
            if not argv:
                continue
            p = subprocess.run([t.benchmark, m, "--function=seq_len",
                                "--repetitions=2"] + argv,
                               capture_output=True, text=True, timeout=60)
            check(p.returncode == 0 and "seq_len" in p.stdout,
                  "strata-benchmark %s: exit %d, %r" % (argv, p.returncode,
                                                        p.stderr))
        p = subprocess.run([t.benchmark, m, "--function=seq_echo",
                            "--input=list:1", "--input=3xi32=1"],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 1 and p.stderr ==
              "strata-benchmark: --input #2 ('3xi32=1'): element 0 of "
              "argument 0 of lists.seq_echo is a ?xf32 tensor, not 3xi32\n",
              "strata-benchmark wrong element: %r" % p.stderr)
        p = subprocess.run([t.benchmark, m, "--function=mixed",
                            "--input=list:0"],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 1 and "lists.mixed takes 2 arguments, got 1 "
              "--input flags" in p.stderr,
              "strata-benchmark missing argument: %r" % p.stderr)
    path = t.write("plain.npz", b"hello")
    expect_error(t, [m, fn, "--input=@" + path],
                 "strata-run: --input #1 ('@%s'): '%s' is not a .npz file (it "
                 "does not start like a zip archive)" % (path, path))


CASES = {
    "text_inputs": case_text_inputs,
    "npy_inputs": case_npy_inputs,
    "input_errors": case_input_errors,
    "outputs": case_outputs,
    "expected": case_expected,
    "devices": case_devices,
    "hal_sample": case_hal_sample,
    "lists": case_lists,
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--run", required=True)
    parser.add_argument("--sample", required=True)
    parser.add_argument("--hal-sample")
    parser.add_argument("--benchmark", help="strata-benchmark (lists case)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        CASES[args.case](Runner(args, tmp))
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES), file=sys.stderr)
        return 1
    print("ok" + ("" if HAVE_NUMPY else " (numpy not installed: "
                  "cross-checks skipped)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
