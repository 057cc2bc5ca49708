#!/usr/bin/env python3
"""make_models.py - exports the real models of the `models` suite to ONNX
with PyTorch (Debian's python3-torch 1.13 and python3-torchvision 0.14, all
offline) and writes torch's outputs beside them as the reference.

For each model NAME it writes NAME.onnx, NAME.input.npy and
NAME.expected.npy into --out. Every parameter and BatchNorm statistic is
randomized first (seeded): the exporter folds equal default-initialized
weights into Identity nodes, and zero statistics test nothing.
"""

import argparse
import os
import sys

import numpy as np
import torch
import torchvision

MODELS = ["resnet18", "mobilenet_v2", "squeezenet1_1", "transformer"]


def randomize(module, generator):
    with torch.no_grad():
        for name, param in module.named_parameters():
            fan = param[0].numel() if param.dim() > 1 else param.numel()
            scale = 1.0 / max(fan, 1) ** 0.5
            param.copy_(torch.randn(param.shape, generator=generator) * scale)
        for sub in module.modules():
            if isinstance(sub, torch.nn.modules.batchnorm._BatchNorm):
                sub.running_mean.copy_(
                    torch.randn(sub.running_mean.shape, generator=generator) * 0.1)
                sub.running_var.copy_(
                    torch.rand(sub.running_var.shape, generator=generator) + 0.5)


def build(name, batch):
    generator = torch.Generator().manual_seed(1234)
    if name == "transformer":
        layer = torch.nn.TransformerEncoderLayer(
            d_model=256, nhead=4, dim_feedforward=1024, batch_first=True)
        model = torch.nn.TransformerEncoder(layer, num_layers=4,
                                            enable_nested_tensor=False)
        example = torch.randn(batch, 128, 256, generator=generator)
    else:
        model = getattr(torchvision.models, name)(weights=None)
        example = torch.randn(batch, 3, 224, 224, generator=generator)
    randomize(model, generator)
    model.eval()
    return model, example


def export(name, out, batch):
    model, example = build(name, batch)
    path = os.path.join(out, "%s.onnx" % name if batch == 1 else
                        "%s_b%d.onnx" % (name, batch))
    stem = path[:-len(".onnx")]
    # The transformer's fused fast path does not export: keep autograd on
    # (the fast path runs only under no_grad/inference mode).
    with torch.enable_grad():
        torch.onnx.export(model, (example,), path, opset_version=17,
                          input_names=["input"], output_names=["output"],
                          do_constant_folding=True)
    with torch.inference_mode():
        expected = model(example).numpy()
    np.save(stem + ".input.npy", example.numpy())
    np.save(stem + ".expected.npy", expected)
    print("wrote %s (%s -> %s)" % (path, tuple(example.shape),
                                   tuple(expected.shape)))


# The dimension each model exports as dynamic (--dynamic): the transformer's
# sequence, the CNNs' batch.
DYNAMIC_AXIS = {"transformer": (1, "S")}


def export_dynamic(name, out, sizes):
    """NAME_dyn.onnx with one symbolic dimension, and torch's outputs at each
    of `sizes` (NAME_dyn.SIZE.input.npy, NAME_dyn.SIZE.expected.npy)."""
    model, example = build(name, 1)
    axis, symbol = DYNAMIC_AXIS.get(name, (0, "N"))
    path = os.path.join(out, "%s_dyn.onnx" % name)
    with torch.enable_grad():
        torch.onnx.export(model, (example,), path, opset_version=17,
                          input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": {axis: symbol},
                                        "output": {axis: symbol}},
                          do_constant_folding=True)
    for size in sizes:
        shape = list(example.shape)
        shape[axis] = size
        x = torch.randn(*shape, generator=torch.Generator().manual_seed(size))
        with torch.inference_mode():
            expected = model(x).numpy()
        stem = os.path.join(out, "%s_dyn.%d" % (name, size))
        np.save(stem + ".input.npy", x.numpy())
        np.save(stem + ".expected.npy", expected)
    print("wrote %s (%s dynamic; sizes %s)" % (path, symbol, sizes))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--dynamic", default="",
                        help="export with a dynamic batch (sequence for the "
                        "transformer) and reference outputs at these sizes, "
                        "comma-separated")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    for name in args.models.split(","):
        if name not in MODELS:
            sys.exit("unknown model %s (known: %s)" % (name, ", ".join(MODELS)))
        if args.dynamic:
            export_dynamic(name, args.out,
                           [int(s) for s in args.dynamic.split(",")])
        else:
            export(name, args.out, args.batch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
