#!/usr/bin/env python3
"""decoder.py - the decoder language model of samples/generate, Strata
beside PyTorch in one interleaved run: ms per decoded token at given cache
lengths, and prefill of a prompt. Medians of interleaved rounds, printed as
ratios (Strata / PyTorch; below 1.0 Strata is faster).

    PYTHONPATH=build/python /usr/bin/python3 bench/models/decoder.py \
        --build build [--config small|gpt2] [--threads 1]

Makes the model with samples/generate/make_decoder.py (weights generated
here, never committed) and compiles decoder.onnx and prefill.onnx as they
are. bench/models/dynamic.py has the same rows beside ONNX Runtime (its
peer's `loadn` takes the decoder's 1 + 2 x layers inputs) and the static
modules, with 1 and 2 threads.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "samples", "generate"))
sys.path.insert(0, os.path.join(ROOT, "bench", "common"))
sys.path.insert(0, HERE)
import kernel_bench  # noqa: E402
import make_decoder  # noqa: E402
from run import cpu_isa, cpu_name  # noqa: E402


def timed(fn, reps):
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--config", default="small",
                        choices=sorted(make_decoder.CONFIGS))
    parser.add_argument("--caches", default=None,
                        help="cache lengths for decode, comma-separated "
                        "(at most positions - 1: 511 for small, 1023 for "
                        "gpt2; default 128 and that longest)")
    parser.add_argument("--prompt", type=int, default=128,
                        help="prefill prompt length")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--work", default="/tmp/strata-bench-decoder")
    args = parser.parse_args()

    import strata
    config = make_decoder.CONFIGS[args.config]
    os.makedirs(args.work, exist_ok=True)
    model = make_decoder.build(config, 1234)
    make_decoder.export(model, config, args.work)
    compiler = os.path.join(args.build, "compiler", "tools", "strata-compile",
                            "strata-compile")
    modules = {}
    for name in ("prefill", "decoder"):
        modules[name] = os.path.join(args.work, name + ".vmfb")
        subprocess.run([compiler, os.path.join(args.work, name + ".onnx"),
                        "-o", modules[name]], check=True)

    kernel_bench.set_torch_threads(args.threads)
    instance = strata.Instance("local-task", args.threads)
    decoder = strata.Session(modules["decoder"], instance=instance)["main"]
    prefill = strata.Session(modules["prefill"], instance=instance)["main"]
    layers, heads = config["layers"], config["heads"]
    dh = config["d_model"] // heads
    rng = np.random.default_rng(0)

    cases = []
    caches = args.caches or "128,%d" % (config["positions"] - 1)
    for cache in [int(c) for c in caches.split(",")]:
        if cache + 1 > config["positions"]:
            sys.exit("decoder.py: a cache of %d leaves no position for the "
                     "next token (the %s config has %d)" % (
                         cache, args.config, config["positions"]))
        past = [rng.standard_normal((1, heads, cache, dh), np.float32)
                for _ in range(2 * layers)]
        tensors = [strata.Tensor(p) for p in past]
        torch_past = [torch.from_numpy(p) for p in past]
        ids = np.array([[7]], np.int64)
        torch_ids = torch.from_numpy(ids)
        cases.append((
            "decode, cache %d" % cache,
            lambda t=tensors, i=ids: decoder(i, *t, tensors=True),
            lambda p=torch_past, i=torch_ids: model(i, *p)))
    prompt = rng.integers(0, config["vocab"], (1, args.prompt))
    torch_prompt = torch.from_numpy(prompt)
    cases.append(("prefill, %d tokens" % args.prompt,
                  lambda: prefill(prompt, tensors=True),
                  lambda: model(torch_prompt)))

    results = {name: ([], []) for name, _, _ in cases}
    with torch.inference_mode():
        for _, ours, theirs in cases:  # warm up
            ours()
            theirs()
        for _ in range(args.rounds):
            for name, ours, theirs in cases:
                results[name][0].append(timed(ours, args.reps))
                results[name][1].append(timed(theirs, args.reps))

    print("decoder %s (%d layers, d=%d, %d heads, vocab %d), %d thread(s); "
          "%s, %s; %d interleaved rounds of %d, medians" % (
              args.config, layers, config["d_model"], heads, config["vocab"],
              args.threads, cpu_name(), cpu_isa(), args.rounds, args.reps))
    print("%-22s %12s %12s %8s" % ("", "Strata ms", "PyTorch ms", "ratio"))
    for name, _, _ in cases:
        ours = statistics.median(results[name][0])
        theirs = statistics.median(results[name][1])
        print("%-22s %12.2f %12.2f %8.2f" % (name, ours, theirs,
                                              ours / theirs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
