#!/usr/bin/env python3
"""run_sample.py - the samples/generate test: makes the small decoder with
PyTorch (make_decoder.py), compiles its prefill and decoder graphs with
strata-compile as they are (dynamic S, P and T, no --input-shape), then
generates 64 greedy tokens in both forms, through the Python package
(generate.py) and from C++ (strata-generate), and checks every token
against PyTorch's. Also checks that a cache of the wrong shape is refused
with an error that names the argument.

Exit status 0 when everything matched; the first mismatch fails the test.
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(command, env=None, expect_failure=False):
    print("run_sample: $ %s" % " ".join(command), flush=True)
    start = time.monotonic()
    result = subprocess.run(command, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=600)
    print(result.stdout.rstrip())
    print("run_sample: (%.1f s, exit %d)" % (time.monotonic() - start,
                                             result.returncode), flush=True)
    if expect_failure:
        if result.returncode == 0:
            sys.exit("run_sample: expected a failure: %s" % " ".join(command))
    elif result.returncode != 0:
        sys.exit("run_sample: failed: %s" % " ".join(command))
    return result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strata-compile", required=True)
    parser.add_argument("--strata-generate", required=True,
                        help="the C++ sample binary")
    parser.add_argument("--python-path", required=True,
                        help="PYTHONPATH holding the strata package")
    parser.add_argument("--work", required=True)
    parser.add_argument("--tokens", type=int, default=64)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    python = sys.executable

    run([python, os.path.join(HERE, "make_decoder.py"), "--out", args.work,
         "--tokens", str(args.tokens)])
    modules = {}
    for name in ("prefill", "decoder"):
        modules[name] = os.path.join(args.work, name + ".vmfb")
        run([args.strata_compile, os.path.join(args.work, name + ".onnx"),
             "-o", modules[name]])
    config_path = os.path.join(args.work, "config.json")
    reference_path = os.path.join(args.work, "reference.json")
    with open(config_path) as f:
        config = json.load(f)
    with open(reference_path) as f:
        reference = json.load(f)
    prompt = ",".join(str(t) for t in reference["prompt"])
    expect = ",".join(str(t) for t in reference["tokens"])

    env = dict(os.environ, PYTHONPATH=args.python_path)
    generate_py = [python, os.path.join(HERE, "generate.py"),
                   "--config", config_path, "--prompt", prompt,
                   "--tokens", str(args.tokens), "--reference",
                   reference_path]
    # (a) prefill then decode, (b) the single graph from an empty cache.
    run(generate_py + ["--prefill", modules["prefill"],
                       "--decoder", modules["decoder"]], env=env)
    run(generate_py + ["--decoder", modules["decoder"],
                       "--device", "local-sync"], env=env)

    generate_cpp = [args.strata_generate,
                    "--layers=%d" % config["layers"],
                    "--heads=%d" % config["heads"],
                    "--head-dim=%d" % (config["d_model"] // config["heads"]),
                    "--prompt=" + prompt, "--tokens=%d" % args.tokens,
                    "--expect=" + expect]
    run(generate_cpp + ["--prefill=" + modules["prefill"],
                        "--decoder=" + modules["decoder"],
                        "--device=local-sync"])
    run(generate_cpp + ["--decoder=" + modules["decoder"]])

    # A cache with the wrong number of heads: refused, naming the argument.
    wrong = generate_cpp[:2] + ["--heads=%d" % (config["heads"] + 1)] + \
        generate_cpp[3:] + ["--decoder=" + modules["decoder"]]
    output = run(wrong, expect_failure=True)
    if "argument 1" not in output:
        sys.exit("run_sample: the wrong cache shape was refused without "
                 "naming argument 1:\n" + output)
    print("run_sample: all forms match PyTorch's %d tokens" % args.tokens)
    return 0


if __name__ == "__main__":
    sys.exit(main())
