#!/usr/bin/env python3
"""make_quantized_models.py - statically quantized resnet18 and mobilenet_v2
in ONNX's QDQ form, made with PyTorch's own flow (Debian's torch 1.13 and
torchvision 0.14, offline), and ONNX Runtime's outputs on them as the
reference.

For each model NAME it writes NAME_int8.onnx (NAME_int8_bB.onnx for batch
B), .input.npy (seeded images) and, when onnxruntime-node is found,
.expected.npy: ONNX Runtime's output on the same file and input
(ort_reference.js). The flow: torchvision.models.quantization.NAME(
weights=None, quantize=False), every parameter and BatchNorm statistic
randomized (seeded, as make_models.py does), fuse_model(), the default
fbgemm qconfig (the quantized engine is left alone: Debian's torch has no
FBGEMM engine), prepare, calibration on seeded random images, convert,
torch.onnx.export at opset 13.
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import torch
import torchvision.models.quantization as quantized_models

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_models  # noqa: E402  (the same randomization)

MODELS = ["resnet18", "mobilenet_v2"]
CALIBRATION_BATCHES = 4


def build(name):
    """The converted (quantized) torch model, seeded."""
    generator = torch.Generator().manual_seed(1234)
    model = getattr(quantized_models, name)(weights=None, quantize=False)
    make_models.randomize(model, generator)
    model.eval()
    model.fuse_model()
    model.qconfig = torch.ao.quantization.get_default_qconfig("fbgemm")
    torch.ao.quantization.prepare(model, inplace=True)
    with torch.inference_mode():
        for _ in range(CALIBRATION_BATCHES):
            model(torch.randn(4, 3, 224, 224, generator=generator))
    torch.ao.quantization.convert(model, inplace=True)
    return model


def stem_of(out, name, batch):
    base = "%s_int8" % name
    return os.path.join(out, base if batch == 1 else "%s_b%d" % (base, batch))


def find_ort_modules(explicit):
    for path in [explicit, os.environ.get("STRATA_ORT_MODULES"),
                 os.path.expanduser("~/.cache/strata-peers/node_modules")]:
        if path and os.path.isdir(os.path.join(path, "onnxruntime-node")):
            return path
    return None


def ort_reference(modules, onnx_path, input_npy, expected_npy):
    """Runs ONNX Runtime (CPU provider) on the model: its output is the
    reference of the int8 tests."""
    env = dict(os.environ, NODE_PATH=modules)
    subprocess.run(["node", os.path.join(HERE, "ort_reference.js"), onnx_path,
                    input_npy, expected_npy], check=True, env=env)


def export(name, out, batch, modules):
    model = build(name)
    stem = stem_of(out, name, batch)
    generator = torch.Generator().manual_seed(4321 + batch)
    example = torch.randn(batch, 3, 224, 224, generator=generator)
    torch.onnx.export(model, (example,), stem + ".onnx", opset_version=13,
                      input_names=["input"], output_names=["output"])
    np.save(stem + ".input.npy", example.numpy())
    note = "no onnxruntime-node: no reference"
    if modules:
        ort_reference(modules, stem + ".onnx", stem + ".input.npy",
                      stem + ".expected.npy")
        note = "reference from ONNX Runtime"
    print("wrote %s.onnx (%s; %s)" % (stem, tuple(example.shape), note))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--ort-modules", default=None,
                        help="node_modules holding onnxruntime-node")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    modules = find_ort_modules(args.ort_modules)
    for name in args.models.split(","):
        if name not in MODELS:
            sys.exit("unknown model %s (known: %s)" % (name, ", ".join(MODELS)))
        export(name, args.out, args.batch, modules)
    return 0


if __name__ == "__main__":
    sys.exit(main())
