"""model_cases.py - what the tests of models made with onnx.helper share:
compile a model with strata-compile, run it with strata-run on .npy
inputs, compare its outputs (values and dtypes) with numpy's, and check an
error's exact text. Used by graphs_test.py, boundary_test.py and
opset_test.py."""

import argparse
import os
import subprocess

import numpy as np
import onnx
from onnx import helper


def model(nodes, inputs, outputs, initializers=(), opset=17, functions=(),
          extra_opsets=(), name="g"):
    """A ModelProto of one graph; `inputs`/`outputs` are value infos.
    Not checked with onnx's checker (1.12 knows opsets up to 17 only)."""
    graph = helper.make_graph(list(nodes), name, list(inputs), list(outputs),
                              list(initializers))
    opsets = [helper.make_opsetid("", opset)] + [
        helper.make_opsetid(d, v) for d, v in extra_opsets]
    m = helper.make_model(graph, opset_imports=opsets,
                          functions=list(functions))
    # onnx 1.12's make_model writes its own IR version (8); keep it.
    return m


class Cases:
    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.passed = 0
        self.failed = 0
        self.count = 0

    def check(self, name, ok, detail=""):
        print("%s %s%s" % ("PASS" if ok else "FAIL", name,
                           (": " + detail) if detail and not ok else ""))
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok

    def save(self, m, stem=None):
        self.count += 1
        path = os.path.join(self.work, "%s.onnx" % (stem or "m%d" % self.count))
        data = m if isinstance(m, bytes) else m.SerializeToString()
        with open(path, "wb") as f:
            f.write(data)
        return path

    def compile(self, path, *flags):
        target = getattr(self.args, "target", None)
        if target:
            flags = (*flags, "--target=" + target)
        return subprocess.run([self.args.strata_compile, path, *flags],
                              capture_output=True, text=True, timeout=300)

    def run_model(self, name, m, inputs, expected, rtol=1e-5, atol=1e-6,
                  flags=(), devices=(None,)):
        """Compiles `m`, runs it on `inputs` (numpy arrays) and compares
        each output with `expected` (numpy arrays: dtype, shape, values),
        once per device of `devices` (None: strata-run's default). `inputs`
        and `expected` may be lists of such lists: one run each."""
        path = self.save(m)
        vmfb = path[:-5] + ".vmfb"
        result = self.compile(path, "-o", vmfb, *flags)
        if result.returncode != 0:
            return self.check(name, False, "compile: " +
                              result.stderr.strip()[-1500:])
        runs = ([(inputs, expected)] if not inputs or
                not isinstance(inputs[0], list) else list(zip(inputs,
                                                              expected)))
        for device in devices:
            for number, (ins, want) in enumerate(runs):
                label = "%s.%s.%d" % (path[:-5], device or "default", number)
                error = self._run_once(vmfb, label, device, ins, want, rtol,
                                       atol)
                if error:
                    return self.check(name, False, "%s, run %d: %s" % (
                        device or "default device", number, error))
        return self.check(name, True)

    def _run_once(self, vmfb, path, device, inputs, expected, rtol, atol):
        cmd = [self.args.strata_run, "--module=" + vmfb]
        if getattr(self.args, "target", None) == "portable":
            cmd.append("--no-native-kernels")
        if device:
            cmd.append("--device=" + device)
        for i, x in enumerate(inputs):
            p = "%s.in%d.npy" % (path, i)
            np.save(p, x)
            cmd.append("--input=@" + p)
        outs = []
        for i in range(len(expected)):
            p = "%s.out%d.npy" % (path, i)
            outs.append(p)
            cmd.append("--output=@" + p)
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if run.returncode != 0:
            return "run: " + run.stderr.strip()[-1500:]
        for i, (p, want) in enumerate(zip(outs, expected)):
            got = np.load(p)
            want = np.asarray(want)
            if got.dtype != want.dtype or got.shape != want.shape:
                return "output %d is %s %s, expected %s %s" % (
                    i, got.dtype, got.shape, want.dtype, want.shape)
            if want.dtype.kind in "fc":
                ok = np.allclose(got.astype(np.float64),
                                 want.astype(np.float64), rtol=rtol,
                                 atol=atol, equal_nan=True)
            else:
                ok = np.array_equal(got, want)
            if not ok:
                return "output %d differs:\n got %s\n want %s" % (i, got,
                                                                   want)
        return None

    def expect_error(self, name, m, text, *flags, compile_to=None):
        """Compiling `m` fails with exactly `text` as an error's message,
        without a crash."""
        path = self.save(m)
        args = ["-o", path[:-5] + ".vmfb"] + list(flags)
        if compile_to:
            args.append("--compile-to=" + compile_to)
        result = self.compile(path, *args)
        messages = [line.split("error: ", 1)[1]
                    for line in result.stderr.splitlines()
                    if "error: " in line]
        ok = (result.returncode != 0 and text in messages and
              "Stack dump" not in result.stderr and
              "PLEASE submit" not in result.stderr)
        return self.check(name, ok, "exit %d, errors: %s" % (
            result.returncode, messages or result.stderr.strip()[-800:]))

    def summary(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 0 if self.failed == 0 and self.passed > 0 else 1


def arguments(doc, extra=()):
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--strata-compile", required=True)
    parser.add_argument("--strata-run", required=True)
    parser.add_argument("--target", default=None,
                        help="compile with --target=TARGET (portable: run "
                        "with --no-native-kernels too)")
    for flag in extra:
        parser.add_argument(flag)
    return parser.parse_args()
