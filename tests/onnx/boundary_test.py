#!/usr/bin/env python3
"""boundary_test.py - every element type round-trips at the module
boundary of an ONNX model: unsigned tensors (uint8/16/32/64, whose values
above the signed range once came back negative) through strata-run's .npy
and text output, whose reflection records them ("result0.element_type =
ui8"), and f16 and bf16 inputs and outputs (bf16 taken from and given back
as f32 .npy data, numpy having no bf16), float8 tensors as their uint8
bit patterns and int4/uint4 ones a value a byte (int8/uint8), their
reflection naming the type ("arg0.element_type = f8E4M3FN"). Prints one
line per case and `N passed, N failed`."""

import os
import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from model_cases import Cases, arguments, model

UNSIGNED = [(TensorProto.UINT8, np.uint8), (TensorProto.UINT16, np.uint16),
            (TensorProto.UINT32, np.uint32), (TensorProto.UINT64, np.uint64)]


def bf16_round(x):
    """f32 values rounded to bf16 (nearest, ties to even), as f32."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


def run(cases, args):
    for elem, dtype in UNSIGNED:
        top = np.iinfo(dtype).max
        x = np.array([[0, 1, top // 2 + 1], [top - 2, top // 2, top]],
                     dtype=dtype)
        one = numpy_helper.from_array(np.array([1], dtype), "one")
        m = model([helper.make_node("Add", ["x", "one"], ["y"], name="add"),
                   helper.make_node("Identity", ["x"], ["same"], name="id")],
                  [helper.make_tensor_value_info("x", elem, [2, 3])],
                  [helper.make_tensor_value_info("y", elem, [2, 3]),
                   helper.make_tensor_value_info("same", elem, [2, 3])],
                  [one])
        name = np.dtype(dtype).name
        # Wraps modulo 2^N, as ONNX's unsigned Add does.
        cases.run_model("%s through .npy (values above the signed range)"
                        % name, m, [x], [x + dtype(1), x])
        # Text output and the recorded type.
        path = cases.save(m, "text_" + name)
        vmfb = path[:-5] + ".vmfb"
        cases.compile(path, "-o", vmfb)
        npy = path[:-5] + ".x.npy"
        np.save(npy, x)
        run = subprocess.run([args.strata_run, "--module=" + vmfb,
                              "--input=@" + npy, "--output=-",
                              "--output=-"],
                             capture_output=True, text=True, timeout=60)
        bits = np.dtype(dtype).itemsize * 8
        want = "2x3xui%d=[%d %d %d][%d %d %d]" % ((bits,) + tuple(
            int(v) for v in x.flatten()))
        lines = run.stdout.splitlines()
        cases.check("%s printed as text" % name,
                    run.returncode == 0 and len(lines) == 2 and
                    lines[1] == want, "got %r, want %r (%s)" % (
                        lines, want, run.stderr.strip()))
        dump = subprocess.run([args.strata_dump, vmfb], capture_output=True,
                              text=True, timeout=60)
        cases.check("%s recorded in the reflection" % name,
                    "arg0.element_type = ui%d" % bits in dump.stdout and
                    "result0.element_type = ui%d" % bits in dump.stdout,
                    dump.stdout[-600:])
        # --expected_output compares unsigned results as unsigned.
        want_sum = "2x3xui%d=[%d %d %d][%d %d %d]" % ((bits,) + tuple(
            int(v) for v in (x + dtype(1)).flatten()))
        run = subprocess.run([args.strata_run, "--module=" + vmfb,
                              "--input=@" + npy,
                              "--expected_output=" + want_sum,
                              "--expected_output=" + want],
                             capture_output=True, text=True, timeout=60)
        cases.check("%s --expected_output" % name, run.returncode == 0 and
                    "[SUCCESS]" in run.stdout, run.stdout + run.stderr)

    # uint8 data into a signed int8 graph's neighbour: a uint8 input whose
    # values reach a float output.
    x = np.array([0, 127, 128, 255], np.uint8)
    cases.run_model("uint8 input cast to float", model(
        [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT)],
        [helper.make_tensor_value_info("x", TensorProto.UINT8, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])]),
        [x], [x.astype(np.float32)])

    # f16 in and out.
    rng = np.random.default_rng(3)
    h = rng.standard_normal((2, 4)).astype(np.float16)
    cases.run_model("float16 in and out", model(
        [helper.make_node("Mul", ["x", "x"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [2, 4])]),
        [h], [h * h], rtol=1e-3, atol=1e-3)

    # bf16 in and out: f32 .npy data rounded in, bf16 results widened out.
    f = rng.standard_normal((2, 4)).astype(np.float32)
    cases.run_model("bfloat16 in and out (as f32 .npy)", model(
        [helper.make_node("Add", ["x", "x"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [2, 4])]),
        [f], [bf16_round(f) * 2], rtol=0, atol=0)
    cases.run_model("float to bfloat16 Cast", model(
        [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.BFLOAT16)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [2, 4])]),
        [f], [bf16_round(f)], rtol=0, atol=0)

    # float8 (opset 19) and int4/uint4 (opset 21): float8 tensors travel as
    # their bit patterns (uint8 .npy, i8 in the signature), 4-bit ones a
    # value a byte (int8 / uint8 .npy); the reflection names the type.
    narrow = [(17, "f8E4M3FN", np.uint8, [0x00, 0x38, 0xFF, 0x80]),
              (20, "f8E5M2FNUZ", np.uint8, [0x00, 0x80, 0x7F, 0xC4]),
              (22, "i4", np.int8, [-8, -1, 0, 7]),
              (21, "ui4", np.uint8, [0, 8, 15, 1])]
    for code, recorded, dtype, values in narrow:
        x = np.array(values, dtype)
        m = model([helper.make_node("Identity", ["x"], ["y"], name="id")],
                  [helper.make_tensor_value_info("x", code, [4])],
                  [helper.make_tensor_value_info("y", code, [4])],
                  opset=21)
        cases.run_model("%s in and out (%s .npy)" % (recorded,
                                                     np.dtype(dtype).name),
                        m, [x], [x])
        path = cases.save(m, "narrow_" + recorded)
        vmfb = path[:-5] + ".vmfb"
        cases.compile(path, "-o", vmfb)
        dump = subprocess.run([args.strata_dump, vmfb], capture_output=True,
                              text=True, timeout=60)
        cases.check("%s recorded in the reflection" % recorded,
                    "arg0 = 4xi8" in dump.stdout and
                    "arg0.element_type = %s" % recorded in dump.stdout and
                    "result0.element_type = %s" % recorded in dump.stdout,
                    dump.stdout[-600:])
        npy = path[:-5] + ".x.npy"
        np.save(npy, x)
        run = subprocess.run([args.strata_run, "--module=" + vmfb,
                              "--input=@" + npy, "--output=-"],
                             capture_output=True, text=True, timeout=60)
        want = "4x%s=%s" % ("i8" if dtype == np.int8 else "ui8",
                            " ".join(str(int(v)) for v in x))
        cases.check("%s printed as text" % recorded,
                    run.returncode == 0 and run.stdout.strip() == want,
                    "got %r, want %r (%s)" % (run.stdout, want,
                                              run.stderr.strip()))
    return cases.summary()


def main():
    args = arguments(__doc__, ["--strata-dump"])
    with tempfile.TemporaryDirectory() as work:
        return run(Cases(args, work), args)


if __name__ == "__main__":
    sys.exit(main())
