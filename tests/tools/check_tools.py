#!/usr/bin/env python3
"""check_tools.py - runs strata-dump and strata-run on the sample modules
(make_sample_modules.cpp) and checks their output, errors and exit codes.

usage: check_tools.py CASE --dump PATH --run PATH --sample PATH/sample.vmfb
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print("FAIL: " + message, file=sys.stderr)


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=30)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


class Tools:
    def __init__(self, args):
        self.dump_bin = args.dump
        self.run_bin = args.run
        self.dir = os.path.dirname(os.path.abspath(args.sample))

    def module(self, name):
        return os.path.join(self.dir, name + ".vmfb")

    def dump(self, *argv):
        return run([self.dump_bin] + list(argv))

    def run(self, *argv):
        return run([self.run_bin] + list(argv))


def expect_contains(text, needles, what):
    for needle in needles:
        check(needle in text, "%s: missing %r in:\n%s" % (what, needle, text))


def expect_one_line_error(rc, out, err, prefix, what, code=1):
    check(rc == code, "%s: exit code %d, expected %d (stderr: %s)" %
          (what, rc, code, err))
    check(err.count("\n") == 1 and err.endswith("\n"),
          "%s: expected exactly one stderr line, got %r" % (what, err))
    check(err.startswith(prefix),
          "%s: stderr %r does not start with %r" % (what, err, prefix))
    check(out == "", "%s: unexpected stdout %r" % (what, out))


# --- strata-dump -----------------------------------------------------------


def case_dump_text(t):
    sample = t.module("sample")
    rc, out, err = t.dump(sample)
    check(rc == 0, "dump sample: exit %d, stderr %s" % (rc, err))
    expect_contains(out, [
        "module sample version 3\n",
        "format 1.1\n",
        "  flatbuffer: offset 64, ",
        "compiler: make_sample_modules 0.1.0\n",
        "  flags: make_sample_modules --sample\n",
        "requirements: f64\n",
        "dependencies (1):\n  extras >= 3  optional\n",
        "imports (1):\n  [0] extras.get  0_r  () -> ref  optional\n",
        "  add -> @add  0ii_i  (i32, i32) -> i32\n",
        "    iree.abi.declaration = add(%a: i32, %b: i32) -> i32\n",
        "  pair -> @pair  0_iF  () -> (i32, f64)\n",
        "functions (11):\n",
        "  [0] @add  0ii_i  (i32, i32) -> i32  bytecode 0+",
        "registers 3 prim / 0 ref  blocks 1\n",
        "initializer: (none)\n",
        "globals: 16 bytes, 1 refs\n",
        "rodata segments (2):\n  [0] offset 0  size 20  align ",
        "  [1] offset 64  size 100  align 64  bytes\n",
        "\ndisassembly:\nfunc @add 0ii_i",
        "^bb0:\n  0000  add.i32 %i0, %i1, %i2",
        "loc(sample.mlir:2:10)",
        "return (%i2)",
        "const.f64 2.5, %i1",
        "^bb1:\n",
        "^bb3:\n",
        "cond_br %i3, ^bb2, ^bb3(%i1 -> %i5)",
        "  br ^bb1  ",
        "global.load.i32 global[0], %i0",
        "global.store.i32 %i0, global[0]",
        "const.ref.rodata rodata[0], %r0",
        "buffer.length %r0<move>, %i0",
        "return (%r0<move>)",
        'fail %i0, "sample failure: \\"bad\\" input"',
        "call @fails() -> ()",
        "loc(sample.mlir:40:3)",
    ], "dump sample")

    rc, out, err = t.dump("--no-disassembly", sample)
    check(rc == 0, "--no-disassembly: exit %d" % rc)
    check("disassembly:" not in out and "add.i32" not in out,
          "--no-disassembly still disassembles")
    check("functions (11):" in out, "--no-disassembly drops the tables")

    rc, out, err = t.dump("--function=sum_to", sample)
    check(rc == 0, "--function=sum_to: exit %d" % rc)
    check("func @sum_to 0i_i" in out and "func @add " not in out,
          "--function=sum_to disassembles the wrong functions:\n" + out)

    rc, out, err = t.dump(t.module("app"))
    check(rc == 0, "dump app: exit %d, %s" % (rc, err))
    expect_contains(out, [
        "dependencies (1):\n  math >= 2\n",
        "[0] math.double  0i_i  (i32) -> i32\n",
        "call.import @math.double(%i0) -> (%i1)",
        "loc(app.mlir:5:3)",
    ], "dump app")

    # A module naming a ref type this process does not register still dumps.
    rc, out, err = t.dump(t.module("needs_hal"))
    check(rc == 0, "dump needs_hal: exit %d, %s" % (rc, err))
    expect_contains(out, [
        "types: hal.buffer\n",
        "cast.ref %r0, type[0]:hal.buffer, %r1",
        "cmp.nz.ref %r1<move>, %i0",
    ], "dump needs_hal")


def case_dump_json(t):
    sample = t.module("sample")
    rc, out, err = t.dump("--format=json", sample)
    check(rc == 0, "json: exit %d, %s" % (rc, err))
    doc = json.loads(out)
    check(doc["module"] == {"name": "sample", "version": 3},
          "json module: %r" % doc["module"])
    check(doc["format"]["version_major"] == 1 and
          doc["format"]["version_minor"] == 1, "json format version")
    check(doc["format"]["flatbuffer_offset"] == 64, "json flatbuffer offset")
    check(doc["compiler"] == {"name": "make_sample_modules",
                              "version": "0.1.0",
                              "flags": ["make_sample_modules", "--sample"]},
          "json compiler: %r" % doc["compiler"])
    check(doc["requirements"] == ["f64"], "json requirements")
    check(doc["dependencies"] == [{"name": "extras", "minimum_version": 3,
                                   "optional": True}], "json dependencies")
    check(doc["imports"] == [{"ordinal": 0, "full_name": "extras.get",
                              "calling_convention": "0_r",
                              "signature": "() -> ref", "optional": True}],
          "json imports: %r" % doc["imports"])
    exports = {e["name"]: e for e in doc["exports"]}
    check(sorted(exports) == sorted([
        "add", "scale", "neg64", "fadd32", "pair", "sum_to", "counter",
        "rodata_len", "make_buffer", "fails", "fails_deep"]),
        "json export names: %r" % sorted(exports))
    add = exports["add"]
    check(add["calling_convention"] == "0ii_i" and
          add["signature"] == "(i32, i32) -> i32", "json add signature")
    check(add["attrs"] == [
        {"key": "iree.abi.declaration",
         "value": "add(%a: i32, %b: i32) -> i32"},
        {"key": "note", "value": 'quoted "value"\twith a tab'}],
        "json attrs (escaping): %r" % add["attrs"])
    check(len(doc["functions"]) == 11, "json function count")
    f0 = doc["functions"][0]
    check(f0["name"] == "add" and f0["prim_registers"] == 3 and
          f0["ref_registers"] == 0 and f0["block_count"] == 1 and
          f0["block_offsets"] == [0] and f0["bytecode_offset"] == 0,
          "json function 0: %r" % f0)
    check(doc["initializer"] is None, "json initializer")
    check(doc["globals"] == {"prim_bytes": 16, "ref_count": 1}, "json globals")
    check([r["size"] for r in doc["rodata"]] == [20, 100], "json rodata sizes")
    for r in doc["rodata"]:
        check(r["alignment"] >= 64 and r["alignment"] % 64 == 0,
              "json rodata alignment %r" % r)
    dis = {d["name"]: d for d in doc["disassembly"]}
    check(len(dis) == 11, "json disassembles every function")
    first = dis["add"]["instructions"][0]
    check(first["pc"] == 0 and first["block"] == 0 and
          first["mnemonic"] == "add.i32" and
          first["operands"] == "%i0, %i1, %i2" and
          first["location"] == {"file": "sample.mlir", "line": 2,
                                "column": 10},
          "json first instruction: %r" % first)
    mnemonics = [i["mnemonic"] for i in dis["sum_to"]["instructions"]]
    check("cond_br" in mnemonics and "br" in mnemonics,
          "json sum_to mnemonics %r" % mnemonics)
    blocks = [i["block"] for i in dis["sum_to"]["instructions"] if "block" in i]
    check(blocks == [0, 1, 2, 3], "json sum_to blocks %r" % blocks)
    fail_op = [i for i in dis["fails"]["instructions"]
               if i["mnemonic"] == "fail"][0]
    check(fail_op["operands"] == '%i0, "sample failure: \\"bad\\" input"',
          "json fail operands %r" % fail_op["operands"])

    rc, out, err = t.dump("--format=json", "--no-disassembly", sample)
    check(rc == 0 and "disassembly" not in json.loads(out),
          "json --no-disassembly")
    rc, out, err = t.dump("--format=json", "--function=pair", sample)
    names = [d["name"] for d in json.loads(out)["disassembly"]]
    check(rc == 0 and names == ["pair"], "json --function=pair: %r" % names)
    for name in ["math", "app", "needs_hal"]:
        rc, out, err = t.dump("--format=json", t.module(name))
        check(rc == 0, "json %s: exit %d" % (name, rc))
        check(json.loads(out)["module"]["name"] == name, "json %s name" % name)


def case_dump_errors(t):
    sample = t.module("sample")
    with open(sample, "rb") as f:
        data = f.read()
    with tempfile.TemporaryDirectory() as tmp:
        missing = os.path.join(tmp, "missing.vmfb")
        rc, out, err = t.dump(missing)
        expect_one_line_error(rc, out, err, "strata-dump: NOT_FOUND: cannot open "
                              "module file '%s': " % missing, "missing file")
        check("No such file" in err, "missing file reason: %r" % err)

        for size in [0, 10, 63, 64, 100, len(data) // 2, len(data) - 1]:
            path = os.path.join(tmp, "truncated_%d.vmfb" % size)
            with open(path, "wb") as f:
                f.write(data[:size])
            rc, out, err = t.dump(path)
            expect_one_line_error(rc, out, err, "strata-dump: ",
                                  "truncated to %d bytes" % size)
            check(path in err, "truncated to %d: %r names no path"
                  % (size, err))

        path = os.path.join(tmp, "bad_magic.vmfb")
        with open(path, "wb") as f:
            f.write(b"XX" + data[2:])
        rc, out, err = t.dump(path)
        expect_one_line_error(rc, out, err,
                              "strata-dump: INVALID_ARGUMENT: module file "
                              "'%s': " % path, "bad magic")
        check("magic" in err, "bad magic message: %r" % err)

        rc, out, err = t.dump("--function=nope", sample)
        expect_one_line_error(rc, out, err, "strata-dump: %s: no function"
                              % sample, "--function=nope")
        check("add" in err, "--function=nope lists the functions: %r" % err)


def case_dump_corrupt(t):
    """Flips bytes all over the sample: never a crash or a hang, and every
    failure is one line naming the file."""
    with open(t.module("sample"), "rb") as f:
        data = f.read()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "corrupt.vmfb")
        step = max(1, len(data) // 150)
        for at in range(0, len(data), step):
            with open(path, "wb") as f:
                f.write(data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:])
            rc, out, err = t.dump("--format=json", path)
            if rc == 0:
                try:
                    json.loads(out)
                except ValueError as e:
                    check(False, "flip at %d: invalid JSON (%s)" % (at, e))
            else:
                failures += 1
                # The path leads (loader errors) or is quoted (errors of
                # the header read before the rest of the file).
                expect_one_line_error(rc, out, err, "strata-dump: ",
                                      "flip at %d" % at)
                check(path in err, "flip at %d: %r names no path"
                      % (at, err))
    check(failures > 0, "no bit flip was ever detected")


# --- strata-run ------------------------------------------------------------


def case_run_results(t):
    sample = "--module=" + t.module("sample")
    cases = [
        (["--function=add", "--input=i32=2", "--input=i32=3"], "i32=5\n"),
        (["--function=sample.add", "--input=i32=0x10", "--input=i32=-1"],
         "i32=15\n"),
        (["--function=add", "--input=i32=2147483647", "--input=i32=1"],
         "i32=-2147483648\n"),
        (["--function=scale", "--input=f64=1e-3"], "f64=0.0025\n"),
        (["--function=scale", "--input=f64=0.1"], "f64=0.25\n"),
        (["--function=neg64", "--input=i64=-3"], "i64=3\n"),
        (["--function=neg64", "--input=i64=9223372036854775807"],
         "i64=-9223372036854775807\n"),
        (["--function=fadd32", "--input=f32=2.5", "--input=f32=0.25"],
         "f32=2.75\n"),
        (["--function=fadd32", "--input=f32=0.1", "--input=f32=0"],
         "f32=0.1\n"),
        (["--function=pair"], "i32=7\nf64=0.5\n"),
        (["--function=sum_to", "--input=i32=10"], "i32=55\n"),
        (["--function=sum_to", "--input=i32=0"], "i32=0\n"),
        (["--function=counter"], "i32=1\n"),
        (["--function=rodata_len"], "i64=20\n"),
        (["--function=make_buffer"], "vm.buffer<16 bytes>\n"),
    ]
    for argv, expected in cases:
        rc, out, err = t.run(sample, *argv)
        check(rc == 0 and out == expected and err == "",
              "strata-run %s: exit %d, stdout %r (expected %r), stderr %r" %
              (" ".join(argv), rc, out, expected, err))

    math = "--module=" + t.module("math")
    app = "--module=" + t.module("app")
    for argv, expected in [
        ([math, app, "--input=i32=20"], "i32=41\n"),
        ([math, app, "--function=main", "--input=i32=-1"], "i32=-1\n"),
        ([math, app, "--function=math.double", "--input=i32=4"], "i32=8\n"),
        ([math, "--function=double", "--input=i32=21"], "i32=42\n"),
    ]:
        rc, out, err = t.run(*argv)
        check(rc == 0 and out == expected,
              "strata-run %s: exit %d, stdout %r (expected %r), stderr %r" %
              (" ".join(argv), rc, out, expected, err))


def case_run_errors(t):
    sample_path = t.module("sample")
    sample = "--module=" + sample_path
    add = "strata-run: sample.add expects (i32, i32) -> i32 [0ii_i]"

    rc, out, err = t.run(sample, "--function=add", "--input=i32=1")
    expect_one_line_error(rc, out, err, add + ", got 1 input\n", "arity")
    rc, out, err = t.run(sample, "--function=add")
    expect_one_line_error(rc, out, err, add + ", got 0 inputs\n", "arity 0")
    # Input errors name the flag's position; tensors and the other types
    # are tested in check_run_tensors.py.
    rc, out, err = t.run(sample, "--function=add", "--input=i32=1",
                         "--input=i32=abc")
    expect_one_line_error(
        rc, out, err,
        "strata-run: --input #2 ('i32=abc'): value 'abc' is not a valid "
        "i32\n", "malformed input")
    rc, out, err = t.run(sample, "--function=add", "--input=i32=1",
                         "--input=f32=1")
    expect_one_line_error(rc, out, err,
                          "strata-run: --input #2 ('f32=1'): " + add[12:] +
                          "; argument 1 is i32, not f32\n", "input type")
    rc, out, err = t.run(sample, "--function=add", "--input=i32=4294967296",
                         "--input=i32=1")
    expect_one_line_error(rc, out, err,
                          "strata-run: --input #1 ('i32=4294967296'): value "
                          "'4294967296' is out of range for i32\n",
                          "i32 overflow")
    # An untyped value takes its type from the signature (IREE's grammar);
    # one that is not a number of that type is refused.
    rc, out, err = t.run(sample, "--function=add", "--input=5",
                         "--input=i32=1")
    check(rc == 0 and out == "i32=6\n",
          "untyped input: exit code %d, stdout %r" % (rc, out))
    rc, out, err = t.run(sample, "--function=add", "--input=five",
                         "--input=i32=1")
    expect_one_line_error(rc, out, err,
                          "strata-run: --input #1 ('five'): value 'five' is "
                          "not a valid i32", "untyped input")
    rc, out, err = t.run(sample, "--function=add",
                         "--input=2x3xf32=1 2 3 4 5 6", "--input=i32=1")
    expect_one_line_error(rc, out, err,
                          "strata-run: --input #1 ('2x3xf32=1 2 3 4 5 6'): " +
                          add[12:] + "; argument 0 is i32, not a 2x3xf32 "
                          "tensor\n", "tensor input")
    rc, out, err = t.run(sample, "--function=add", "--input=@x.npy",
                         "--input=i32=1")
    expect_one_line_error(rc, out, err,
                          "strata-run: --input #1 ('@x.npy'): cannot read "
                          "'x.npy': ", "file input")
    rc, out, err = t.run(sample, "--function=add", "--input=i8=1",
                         "--input=i32=1")
    expect_one_line_error(rc, out, err,
                          "strata-run: --input #1 ('i8=1'): " + add[12:] +
                          "; argument 0 is i32, not i8\n", "i8 input")

    rc, out, err = t.run(sample, "--function=nope")
    expect_one_line_error(
        rc, out, err,
        "strata-run: no function 'nope' in module 'sample'; it exports: "
        "add (i32, i32) -> i32 [0ii_i], ", "unknown function")
    rc, out, err = t.run(sample)
    expect_one_line_error(rc, out, err,
                          "strata-run: no function 'main' in module 'sample'",
                          "default main")

    # Runtime failures: the full status with the VM backtrace.
    rc, out, err = t.run(sample, "--function=fails")
    check(rc == 1 and out == "", "fails: exit %d, stdout %r" % (rc, out))
    expect_contains(err, [
        "strata-run: sample.fails failed: INVALID_ARGUMENT: ",
        'sample failure: "bad" input',
        "\n  at sample.fails (sample.mlir:31:5)",
    ], "fails")
    rc, out, err = t.run(sample, "--function=fails_deep")
    check(rc == 1, "fails_deep: exit %d" % rc)
    expect_contains(err, [
        "at sample.fails (sample.mlir:31:5)",
        "at sample.fails_deep (sample.mlir:40:3)",
    ], "fails_deep")
    check(err.index("at sample.fails ") < err.index("at sample.fails_deep"),
          "backtrace is innermost first: " + err)

    # Loading and linking failures.
    with tempfile.TemporaryDirectory() as tmp:
        missing = os.path.join(tmp, "missing.vmfb")
        rc, out, err = t.run("--module=" + missing)
        expect_one_line_error(rc, out, err,
                              "strata-run: NOT_FOUND: cannot open module "
                              "file '%s': " % missing, "run missing file")
        with open(sample_path, "rb") as f:
            data = f.read()
        truncated = os.path.join(tmp, "truncated.vmfb")
        with open(truncated, "wb") as f:
            f.write(data[:len(data) // 2])
        rc, out, err = t.run("--module=" + truncated, "--function=add")
        expect_one_line_error(rc, out, err,
                              "strata-run: INVALID_ARGUMENT: module file "
                              "'%s': " % truncated,
                              "run truncated file")
    # strata-run provides the hal module, so a module naming hal.buffer
    # loads; the argument is still required.
    rc, out, err = t.run("--module=" + t.module("needs_hal"),
                         "--function=is_hal_buffer")
    expect_one_line_error(rc, out, err,
                          "strata-run: needs_hal.is_hal_buffer expects (ref) "
                          "-> i32 [0r_i], got 0 inputs\n", "needs_hal")
    rc, out, err = t.run("--module=" + t.module("app"), "--input=i32=1")
    check(rc == 1 and "math" in err and err.startswith("strata-run: "),
          "app without math: exit %d, stderr %r" % (rc, err))


def case_flags(t):
    sample = t.module("sample")
    for argv, what in [
        (["--bogus", sample], "dump unknown flag"),
        (["--format=xml", sample], "dump bad format"),
        ([], "dump no file"),
        ([sample, sample], "dump two files"),
    ]:
        rc, out, err = t.dump(*argv)
        check(rc == 2 and "usage: strata-dump" in err,
              "%s: exit %d, stderr %r" % (what, rc, err))
    rc, out, err = t.dump("--help")
    check(rc == 0 and "usage: strata-dump" in out and "--format" in out,
          "dump --help: exit %d" % rc)

    for argv, what in [
        (["--bogus", "--module=" + sample], "run unknown flag"),
        ([], "run no module"),
        ([sample], "run positional module"),
        (["--module="], "run empty module"),
        (["--module=" + sample, "--function="], "run empty function"),
    ]:
        rc, out, err = t.run(*argv)
        check(rc == 2 and "usage: strata-run" in err,
              "%s: exit %d, stderr %r" % (what, rc, err))
    rc, out, err = t.run("--help")
    check(rc == 0 and "usage: strata-run" in out and "--input" in out,
          "run --help: exit %d" % rc)


CASES = {
    "dump_text": case_dump_text,
    "dump_json": case_dump_json,
    "dump_errors": case_dump_errors,
    "dump_corrupt": case_dump_corrupt,
    "run_results": case_run_results,
    "run_errors": case_run_errors,
    "flags": case_flags,
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--dump", required=True)
    parser.add_argument("--run", required=True)
    parser.add_argument("--sample", required=True)
    args = parser.parse_args()
    CASES[args.case](Tools(args))
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES), file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
