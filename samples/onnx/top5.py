#!/usr/bin/env python3
"""top5.py - the sample's two Python ends: `image` writes an image-shaped
input (1x3x224x224 f32, ImageNet-normalized) as .npy, and `top5` reads a
model's logits (.npy) and prints the five most likely ImageNet classes with
their softmax probabilities, named from torchvision's bundled class list."""

import argparse
import sys

import numpy as np


def make_image(path):
    # A synthetic 224x224 RGB picture (smooth gradients and a disc), scaled
    # to [0, 1] and normalized with ImageNet's mean and deviation.
    y, x = np.mgrid[0:224, 0:224].astype(np.float32) / 223.0
    disc = ((x - 0.6) ** 2 + (y - 0.4) ** 2 < 0.05).astype(np.float32)
    rgb = np.stack([0.5 * x + 0.5 * disc, 0.3 + 0.4 * y, 1.0 - x * y])
    mean = np.array([0.485, 0.456, 0.406], np.float32).reshape(3, 1, 1)
    std = np.array([0.229, 0.224, 0.225], np.float32).reshape(3, 1, 1)
    image = ((rgb - mean) / std)[None].astype(np.float32)
    np.save(path, image)
    print("wrote %s: %s %s" % (path, image.shape, image.dtype))


def top5(path):
    logits = np.load(path).reshape(-1).astype(np.float64)
    probabilities = np.exp(logits - logits.max())
    probabilities /= probabilities.sum()
    try:
        from torchvision.models import ResNet18_Weights
        names = ResNet18_Weights.IMAGENET1K_V1.meta["categories"]
    except Exception:  # torchvision absent: class numbers only
        names = None
    for rank, index in enumerate(np.argsort(-probabilities)[:5], 1):
        label = names[index] if names else "class"
        print("%d. %-24s #%-4d p=%.4f" % (rank, label, index,
                                          probabilities[index]))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("image").add_argument("out")
    sub.add_parser("top5").add_argument("logits")
    args = parser.parse_args()
    if args.command == "image":
        make_image(args.out)
    else:
        top5(args.logits)
    return 0


if __name__ == "__main__":
    sys.exit(main())
