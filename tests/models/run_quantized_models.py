#!/usr/bin/env python3
"""run_quantized_models.py - the int8 models of the `models` suite:
statically quantized resnet18 and mobilenet_v2 in QDQ form
(make_quantized_models.py) compiled by strata-compile and run by
strata-run on both local devices against ONNX Runtime's outputs on the
same file and input.

With --form=qoperator or dynamic the QDQ model is first rewritten by
qoperator.py into ONNX Runtime's QOperator form (QLinearConv,
com.microsoft QLinearAdd and QLinearGlobalAveragePool) or its dynamic
form (DynamicQuantizeLinear -> ConvInteger / MatMulInteger), and both
runtimes run that file.
Each output must give the same top-1 class for every image as ONNX
Runtime's, and differ from it by at most one quantization step of the
output (the scale of the QDQ graph's last DequantizeLinear; the dynamic
form's f32 output is held to the same step). Without
onnxruntime-node (bench/models/setup_peers.sh) there is no reference and
the test is skipped (exit 77).
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_quantized_models  # noqa: E402
import qoperator  # noqa: E402

MODELS = make_quantized_models.MODELS


def output_step(onnx_path):
    """The scale of the DequantizeLinear that writes the graph's output."""
    import onnx
    from onnx import numpy_helper
    model = onnx.load(onnx_path)
    graph = model.graph
    values = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    for node in graph.node:
        if node.op_type == "Constant":
            values[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
    producer = {out: node for node in graph.node for out in node.output}
    name = graph.output[0].name
    while name in producer:
        node = producer[name]
        if node.op_type == "DequantizeLinear":
            return float(np.asarray(values[node.input[1]]).reshape(-1)[0])
        if node.op_type not in ("Cast", "Identity", "Flatten", "Reshape"):
            break
        name = node.input[0]
    sys.exit("%s: the output is not written by a DequantizeLinear" % onnx_path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strata-compile", required=True)
    parser.add_argument("--strata-run", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--devices", default="local-sync,local-task")
    parser.add_argument("--ort-modules", default=None)
    parser.add_argument("--target-cpu", default=None,
                        help="strata-compile's --target-cpu (default: host); "
                        "znver3 takes the AVX2 kernels, x86-64 none")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--form", choices=["qdq", "qoperator", "dynamic"],
                        default="qdq")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    models = args.models.split(",")
    if not make_quantized_models.find_ort_modules(args.ort_modules):
        print("SKIP: no onnxruntime-node for the reference "
              "(bench/models/setup_peers.sh)")
        return 77

    passed = failed = 0
    for name in models:
        stem = make_quantized_models.stem_of(args.work, name, args.batch)
        if not os.path.exists(stem + ".expected.npy"):
            make = subprocess.run(
                [sys.executable, os.path.join(HERE, "make_quantized_models.py"),
                 "--out", args.work, "--models", name, "--batch",
                 str(args.batch)] +
                (["--ort-modules", args.ort_modules] if args.ort_modules else []),
                capture_output=True, text=True, timeout=args.timeout)
            if make.returncode != 0 or not os.path.exists(stem + ".expected.npy"):
                print(make.stdout + make.stderr[-3000:])
                print("FAIL %s: exporting or the reference failed" % name)
                failed += 1
                continue
        step = output_step(stem + ".onnx")
        if args.form != "qdq":
            import onnx
            model = onnx.load(stem + ".onnx")
            model = qoperator.to_qoperator(model) \
                if args.form == "qoperator" else qoperator.to_dynamic(model)
            form_stem = "%s.%s" % (stem, args.form)
            onnx.save(model, form_stem + ".onnx")
            make_quantized_models.ort_reference(
                make_quantized_models.find_ort_modules(args.ort_modules),
                form_stem + ".onnx", stem + ".input.npy",
                form_stem + ".expected.npy")
            expected_path = form_stem + ".expected.npy"
            onnx_path = form_stem + ".onnx"
        else:
            expected_path = stem + ".expected.npy"
            onnx_path = stem + ".onnx"
        vmfb = onnx_path[:-len(".onnx")] + ".vmfb"
        start = time.time()
        compiled = subprocess.run(
            [args.strata_compile, onnx_path, "-o", vmfb] +
            (["--target-cpu=" + args.target_cpu] if args.target_cpu else []),
            capture_output=True, text=True, timeout=args.timeout)
        if compiled.returncode != 0:
            print("FAIL %s: compile: %s" % (name, compiled.stderr.strip()[-2000:]))
            failed += len(args.devices.split(","))
            continue
        compile_seconds = time.time() - start
        expected = np.load(expected_path).astype(np.float64)
        for device in args.devices.split(","):
            out = "%s.%s.npy" % (stem, device)
            run = subprocess.run(
                [args.strata_run, "--module=" + vmfb, "--device=" + device,
                 "--input=@" + stem + ".input.npy", "--output=@" + out],
                capture_output=True, text=True, timeout=args.timeout)
            if run.returncode != 0:
                print("FAIL %s on %s: run: %s" % (name, device,
                                                  run.stderr.strip()[-2000:]))
                failed += 1
                continue
            actual = np.load(out).astype(np.float64)
            if actual.shape != expected.shape:
                print("FAIL %s on %s: shape %s, expected %s" % (
                    name, device, actual.shape, expected.shape))
                failed += 1
                continue
            max_abs = float(np.abs(actual - expected).max())
            top1 = actual.argmax(axis=1)
            top1_ort = expected.argmax(axis=1)
            steps = max_abs / step
            ok = bool((top1 == top1_ort).all()) and steps <= 1.0 + 1e-6
            print("%s %s (%s) on %s: top-1 %s (ONNX Runtime %s), max abs difference "
                  "%.4g = %.2f output steps of %.4g (compile %.1f s)" % (
                      "PASS" if ok else "FAIL", name, args.form, device,
                      top1.tolist(),
                      top1_ort.tolist(), max_abs, steps, step, compile_seconds))
            passed += ok
            failed += not ok
    print("%d passed, %d failed, 0 skipped" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
