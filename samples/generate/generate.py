#!/usr/bin/env python3
"""generate.py - greedy text generation with a decoder language model
compiled by strata-compile, through the strata Python package.

Two forms of the same model (samples/generate/make_decoder.py writes both):

  --prefill prefill.vmfb --decoder decoder.vmfb
      the prompt goes through the prefill module (no cache), then each
      token through the decoder with the cache the last call returned;
  --decoder decoder.vmfb (alone)
      the single-graph form: the first call passes the whole prompt and an
      empty cache (length 0), every later call one token.

The key/value cache never leaves the runtime: calls are made with
tensors=True, so their results come back as strata.Tensor handles that go
into the next call as they are. Only the last position's logits are copied
out, to pick the next token.

With --reference reference.json (from make_decoder.py) the tokens must match
PyTorch's one for one, and each step's logits PyTorch's within --tolerance;
the exit status says whether they did.
"""

import argparse
import json
import sys
import time

import numpy as np

import strata


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decoder", required=True,
                        help="the decoder module (past cache -> logits, "
                        "presents)")
    parser.add_argument("--prefill",
                        help="the prefill module (prompt -> logits, "
                        "presents); without it the decoder takes the prompt "
                        "with an empty cache")
    parser.add_argument("--config", required=True,
                        help="config.json from make_decoder.py (layers, "
                        "heads, d_model)")
    parser.add_argument("--prompt", default="17,302,5,1999,42,7,1024,3",
                        help="prompt token ids, comma-separated")
    parser.add_argument("--tokens", type=int, default=64,
                        help="tokens to generate")
    parser.add_argument("--reference",
                        help="reference.json: check tokens (and logits, "
                        "from reference_logits.npy beside it)")
    parser.add_argument("--tolerance", type=float, default=2e-3,
                        help="largest logit difference from the reference, "
                        "relative to the largest logit")
    parser.add_argument("--device", default="local-task",
                        help="local-task (threads) or local-sync")
    parser.add_argument("--task-workers", type=int, default=0,
                        help="local-task worker threads (0: one per core)")
    return parser.parse_args()


def main():
    args = parse_args()
    with open(args.config) as f:
        config = json.load(f)
    layers, heads = config["layers"], config["heads"]
    head_dim = config["d_model"] // heads
    prompt = [int(t) for t in args.prompt.split(",")]

    instance = strata.Instance(args.device, args.task_workers)
    decoder = strata.Session(args.decoder, instance=instance)["main"]
    ids = np.array([prompt], dtype=np.int64)
    start = time.perf_counter()
    if args.prefill:
        prefill = strata.Session(args.prefill, instance=instance)["main"]
        logits, *cache = prefill(ids, tensors=True)
    else:
        empty = strata.Tensor(np.zeros((1, heads, 0, head_dim), np.float32))
        logits, *cache = decoder(ids, *([empty] * (2 * layers)),
                                 tensors=True)
    first = time.perf_counter()
    if len(cache) != 2 * layers:
        sys.exit("generate: the model returned %d cache tensors; config.json "
                 "says %d layers (%d)" % (len(cache), layers, 2 * layers))

    tokens, steps = [], []
    for i in range(args.tokens):
        last = logits.numpy()[0, -1]
        steps.append(last)
        token = int(np.argmax(last))
        tokens.append(token)
        if i + 1 == args.tokens:
            break
        logits, *cache = decoder(np.array([[token]], dtype=np.int64), *cache,
                                 tensors=True)
    end = time.perf_counter()
    decoded = max(len(tokens) - 1, 1)
    print("generate: %s" % " ".join(str(t) for t in tokens))
    print("generate: prompt of %d tokens in %.1f ms, then %.2f ms per token "
          "(cache %s)" % (len(prompt), (first - start) * 1e3,
                          (end - first) * 1e3 / decoded,
                          cache[0].shape))

    if not args.reference:
        return 0
    with open(args.reference) as f:
        reference = json.load(f)
    if reference["prompt"] != prompt:
        sys.exit("generate: the reference was made for prompt %s, not %s" %
                 (reference["prompt"], prompt))
    expected = reference["tokens"][:len(tokens)]
    if tokens != expected:
        first_bad = next(i for i, (a, b) in enumerate(zip(tokens, expected))
                         if a != b)
        print("generate: token %d is %d; PyTorch gave %d" %
              (first_bad, tokens[first_bad], expected[first_bad]))
        return 1
    logits_path = args.reference[:-len(".json")] + "_logits.npy" \
        if args.reference.endswith(".json") else None
    if logits_path:
        want = np.load(logits_path)[:len(steps)]
        got = np.stack(steps)
        error = float(np.max(np.abs(got - want)))
        scale = float(np.max(np.abs(want)))
        print("generate: %d tokens match PyTorch; largest logit difference "
              "%.2e (of %.2f)" % (len(tokens), error, scale))
        if error > args.tolerance * scale:
            print("generate: the logits differ by more than %g of the "
                  "largest" % args.tolerance)
            return 1
    else:
        print("generate: %d tokens match PyTorch" % len(tokens))
    return 0


if __name__ == "__main__":
    sys.exit(main())
