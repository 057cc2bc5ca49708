#!/usr/bin/env python3
"""run_onnx_tests.py - ONNX's own backend tests (Debian libonnx-testdata)
compiled by strata-compile and run by strata-run, each output compared with
ONNX's tolerance (rtol 1e-3, atol 1e-7, NaN where expected).

One line per test (PASS, FAIL, XFAIL, XPASS, SKIP), totals per folder and
overall, then `N passed, N failed, N skipped`. Skips are decided here by
category (see expectations.txt); every other failure must be listed in
expectations.txt with a reason, and a listed test that passes fails the run,
so the list stays true. Exit status 0 when every failure is expected.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

SUITES = ["node", "pytorch-converted", "pytorch-operator"]

# Skip categories (expectations.txt explains them): string tensors, which
# Strata does not have, and ops whose outputs are random.
RANDOM_OPS = {"Bernoulli", "RandomUniform", "RandomUniformLike", "RandomNormal",
              "RandomNormalLike", "Multinomial"}
STRING_OPS = {"StringNormalizer", "TfIdfVectorizer", "RegexFullMatch",
              "StringConcat", "StringSplit"}


def value_kind(type_proto):
    """tensor, sequence or optional; string for string tensors, also inside
    a sequence or an optional."""
    which = type_proto.WhichOneof("value")
    if which == "tensor_type":
        if type_proto.tensor_type.elem_type == onnx.TensorProto.STRING:
            return "string"
        return "tensor"
    if which in ("sequence_type", "optional_type"):
        inner = getattr(type_proto, which).elem_type
        return "string" if value_kind(inner) == "string" else which[:-5]
    return which or "unknown"


def graph_ops(graph):
    """Every op type in a graph and its subgraphs."""
    ops = set()
    for node in graph.node:
        ops.add(node.op_type)
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                ops |= graph_ops(attr.g)
            for g in attr.graphs:
                ops |= graph_ops(g)
    return ops


def skip_category(model):
    kinds = set()
    for info in list(model.graph.input) + list(model.graph.output):
        kinds.add(value_kind(info.type))
    ops = graph_ops(model.graph)
    if "string" in kinds or ops & STRING_OPS:
        return "string types"
    if ops & RANDOM_OPS:
        return "random-number ops"
    return None


def read_expectations(path):
    xfail = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, sep, reason = line.partition(":")
            if not sep or not reason.strip():
                sys.exit("%s:%d: expected 'folder/test: reason'" % (path, number))
            xfail[name.strip()] = reason.strip()
    return xfail


def bf16_to_f32(bits):
    """bf16 bit patterns (numpy_helper gives them as uint16) as float32,
    exactly: strata-run takes and gives bf16 tensors as float32 data."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def load_value(path, type_proto):
    """A test data file as the graph's value type says: an array (bf16 as
    float32), a list of arrays (a sequence), or None or the value (an
    optional)."""
    with open(path, "rb") as f:
        data = f.read()
    which = type_proto.WhichOneof("value")
    if which == "sequence_type":
        proto = onnx.SequenceProto()
        proto.ParseFromString(data)
        elem = type_proto.sequence_type.elem_type
        return [fix_bf16(a, elem) for a in numpy_helper.to_list(proto)]
    if which == "optional_type":
        proto = onnx.OptionalProto()
        proto.ParseFromString(data)
        value = numpy_helper.to_optional(proto)
        elem = type_proto.optional_type.elem_type
        if isinstance(value, list):
            return [fix_bf16(a, elem.sequence_type.elem_type) for a in value]
        return None if value is None else fix_bf16(value, elem)
    tensor = onnx.TensorProto()
    tensor.ParseFromString(data)
    return fix_bf16(numpy_helper.to_array(tensor), type_proto)


def fix_bf16(array, type_proto):
    if (type_proto.WhichOneof("value") == "tensor_type" and
            type_proto.tensor_type.elem_type == onnx.TensorProto.BFLOAT16 and
            array.dtype == np.uint16):
        return bf16_to_f32(array)
    return array


def data_files(folder, prefix):
    files = [f for f in os.listdir(folder) if re.fullmatch(prefix + r"_\d+\.pb", f)]
    return [os.path.join(folder, f)
            for f in sorted(files, key=lambda f: int(re.findall(r"\d+", f)[-1]))]


def short(text, limit=300):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def first_error(stderr):
    for line in stderr.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    lines = [l for l in stderr.splitlines() if l.strip()]
    return lines[-1] if lines else "no message"


def compare(expected, actual):
    if expected.shape != actual.shape:
        return "shape %s, expected %s" % (actual.shape, expected.shape)
    if expected.dtype == np.bool_ or actual.dtype == np.bool_:
        if not np.array_equal(expected.astype(np.bool_), actual.astype(np.bool_)):
            return "boolean values differ"
        return None
    if (expected.dtype.kind in "iu" and actual.dtype.kind in "iu" and
            expected.dtype.itemsize == actual.dtype.itemsize):
        # Unsigned ONNX tensors leave the module as signless integers.
        actual = actual.view(expected.dtype)
    if expected.dtype.kind in "iu" and actual.dtype.kind in "iu":
        if not np.array_equal(expected.astype(np.int64), actual.astype(np.int64)):
            where = np.argwhere(expected.astype(np.int64) != actual.astype(np.int64))[0]
            return "at %s: %s, expected %s" % (tuple(where), actual[tuple(where)],
                                               expected[tuple(where)])
        return None
    e = expected.astype(np.float64)
    a = actual.astype(np.float64)
    if not np.allclose(a, e, rtol=1e-3, atol=1e-7, equal_nan=True):
        with np.errstate(invalid="ignore"):
            diff = np.abs(a - e)
        diff[np.isnan(diff)] = np.inf
        diff[(np.isnan(a) & np.isnan(e)) | (a == e)] = 0  # NaN, inf as expected
        where = np.unravel_index(np.argmax(diff), diff.shape)
        return "max error %.3g at %s: %r, expected %r" % (
            diff[where], tuple(int(i) for i in where), a[where], e[where])
    return None


def compare_value(expected, actual):
    """compare() for a tensor; element by element for a sequence (an
    optional's value, its elements; None: no element)."""
    if expected is None:
        expected = []
    if not isinstance(expected, list):
        if isinstance(actual, list):
            if len(actual) != 1:
                return "%d arrays, expected one tensor" % len(actual)
            actual = actual[0]
        return compare(expected, actual)
    if not isinstance(actual, list):
        return "a tensor, expected a sequence"
    if len(actual) != len(expected):
        return "%d elements, expected %d" % (len(actual), len(expected))
    for k, (e, a) in enumerate(zip(expected, actual)):
        problem = compare(e, a)
        if problem:
            return "element %d: %s" % (k, problem)
    return None


class Runner:
    def __init__(self, args):
        self.args = args

    def run(self, cmd, timeout):
        try:
            return subprocess.run(cmd, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def compile(self, model_path, out):
        cmd = [self.args.strata_compile, model_path, "-o", out,
               "--target-cpu=" + self.args.target_cpu] + self.args.compile_arg
        return self.run(cmd, self.args.timeout)

    def test(self, name, folder, work):
        model_path = os.path.join(folder, "model.onnx")
        model = onnx.load(model_path)
        category = skip_category(model)
        if category:
            return ("SKIP", category, False)
        data = os.path.join(folder, "test_data_set_0")
        graph_inputs = [i for i in model.graph.input
                        if i.name not in {t.name for t in model.graph.initializer}]
        in_files = data_files(data, "input")
        out_files = data_files(data, "output")
        inputs = [load_value(p, i.type)
                  for p, i in zip(in_files, graph_inputs)]
        outputs = [load_value(p, o.type)
                   for p, o in zip(out_files, model.graph.output)]
        vmfb = os.path.join(work, "model.vmfb")
        result = self.compile(model_path, vmfb)
        if result is None:
            return ("FAIL", "compile timed out", False)
        if result.returncode != 0:
            return ("FAIL", "compile: " + short(first_error(result.stderr)),
                    False)
        cmd = [self.args.strata_run, "--module=" + vmfb, "--function=main",
               "--device=" + self.args.device] + self.args.run_arg
        # Sequences (Python lists) go as .npz files, an empty optional as
        # "none"; sequence and optional results come back as .npz files.
        for i, value in enumerate(inputs):
            if value is None:
                cmd.append("--input=none")
                continue
            if isinstance(value, list):
                path = os.path.join(work, "in%d.npz" % i)
                np.savez(path, *value)
            else:
                path = os.path.join(work, "in%d.npy" % i)
                np.save(path, value)
            cmd.append("--input=@" + path)
        out_paths = []
        for i, info in enumerate(model.graph.output[:len(outputs)]):
            listed = info.type.WhichOneof("value") != "tensor_type"
            path = os.path.join(work, "out%d.%s" % (i, "npz" if listed
                                                    else "npy"))
            out_paths.append(path)
            cmd.append("--output=@" + path)
        run = self.run(cmd, self.args.timeout)
        if run is None:
            return ("FAIL", "run timed out", False)
        if run.returncode != 0:
            return ("FAIL", "run: " + short(first_error(run.stderr)),
                    False)
        for i, (expected, path) in enumerate(zip(outputs, out_paths)):
            try:
                if path.endswith(".npz"):
                    with np.load(path) as archive:
                        actual = [archive[name] for name in archive.files]
                else:
                    actual = np.load(path)
            except Exception as e:  # a missing or unreadable output
                return ("FAIL", "output %d: %s" % (i, e), False)
            problem = compare_value(expected, actual)
            if problem:
                return ("FAIL", "output %d: %s" % (i, problem), False)
        return ("PASS", "", False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strata-compile", required=True)
    parser.add_argument("--strata-run", required=True)
    parser.add_argument("--root", default="/usr/share/libonnx-testdata/data",
                        help="the test data folder (default: Debian's)")
    parser.add_argument("--suites", default=",".join(SUITES),
                        help="folders under --root (default: %(default)s)")
    parser.add_argument("--expectations",
                        default=os.path.join(os.path.dirname(__file__),
                                             "expectations.txt"))
    parser.add_argument("--filter", default="", help="regex on folder/test")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--device", default="local-task")
    parser.add_argument("--target-cpu", default="host")
    parser.add_argument("--compile-arg", action="append", default=[],
                        help="an extra strata-compile argument "
                        "(--target=portable)")
    parser.add_argument("--run-arg", action="append", default=[],
                        help="an extra strata-run argument "
                        "(--no-native-kernels)")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--work", default=None, help="scratch folder")
    parser.add_argument("--update-expectations", action="store_true",
                        help="rewrite the expectations file from this run")
    args = parser.parse_args()

    if not os.path.isdir(args.root):
        print("onnx: test data not found at %s (apt-get install libonnx-testdata)"
              % args.root)
        print("0 passed, 0 failed, 0 skipped")
        return 77
    xfail = read_expectations(args.expectations)
    tests = []
    for suite in args.suites.split(","):
        folder = os.path.join(args.root, suite)
        for test in sorted(os.listdir(folder)):
            name = suite + "/" + test
            if args.filter and not re.search(args.filter, name):
                continue
            tests.append((name, os.path.join(folder, test)))

    work_root = args.work or tempfile.mkdtemp(prefix="strata-onnx-")
    os.makedirs(work_root, exist_ok=True)
    runner = Runner(args)

    def one(item):
        name, folder = item
        work = os.path.join(work_root, name.replace("/", "_"))
        os.makedirs(work, exist_ok=True)
        try:
            return name, runner.test(name, folder, work)
        except Exception as e:  # the runner's own failure is a test failure
            return name, ("FAIL", "runner: %s" % short(repr(e)), False)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for name, result in pool.map(one, tests):
            results[name] = result
            status, note, _ = result
            if status == "FAIL" and name in xfail:
                line = "XFAIL %s: %s" % (name, xfail[name])
            elif status == "PASS" and name in xfail:
                line = "XPASS %s: listed as failing (%s); remove it from %s" % (
                    name, xfail[name], os.path.basename(args.expectations))
            else:
                line = "%s %s%s" % (status, name, (": " + note) if note else "")
            print(line, flush=True)

    if not args.work:
        shutil.rmtree(work_root, ignore_errors=True)

    passed = failed = skipped = 0
    unexpected = []
    xpassed = []
    per_suite = {}
    for name, (status, note, _) in results.items():
        suite = name.split("/")[0]
        counts = per_suite.setdefault(suite, [0, 0, 0, 0])
        counts[3] += 1
        if status == "PASS":
            passed += 1
            counts[0] += 1
            if name in xfail:
                xpassed.append(name)
        elif status == "SKIP":
            skipped += 1
            counts[2] += 1
        else:
            failed += 1
            counts[1] += 1
            if name not in xfail:
                unexpected.append((name, note))
    stale = [n for n in xfail if n not in results and not args.filter]
    for suite, (p, f, s, total) in sorted(per_suite.items()):
        print("onnx %s: %d passed, %d failed, %d skipped of %d (%.1f%% pass)"
              % (suite, p, f, s, total, 100.0 * p / max(total, 1)))
    total = len(results)
    print("pass share: %.1f%% of %d (skipped count as not passed; every "
          "test as ONNX ships it, graph inputs as inputs)"
          % (100.0 * passed / max(total, 1), total))
    for name, note in unexpected:
        print("unexpected failure: %s: %s" % (name, note))
    for name in xpassed:
        print("expected failure now passes: %s" % name)
    for name in stale:
        print("listed but not a test: %s" % name)
    if args.update_expectations:
        with open(args.expectations) as f:
            header = [l for l in f if l.startswith("#")]
        with open(args.expectations, "w") as f:
            f.writelines(header)
            for name in sorted(results):
                status, note, _ = results[name]
                if status == "FAIL":
                    f.write("%s: %s\n" % (name, note.replace("\n", " ")))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    print("failures: %d expected, %d unexpected; %d expected failures pass"
          % (failed - len(unexpected), len(unexpected), len(xpassed)))
    ok = not unexpected and not xpassed and not stale
    return 0 if ok or args.update_expectations else 1


if __name__ == "__main__":
    sys.exit(main())
