#!/usr/bin/env python3
"""make_decoder.py - builds a GPT-2-style decoder language model in PyTorch
(Debian's python3-torch 1.13, offline) with seeded random weights, exports it
to ONNX at opset 17 with dynamic axes, and writes PyTorch's greedy tokens
beside it as the reference.

The model: learned token and position embeddings, pre-LayerNorm blocks of
multi-head causal self-attention and a tanh-GELU MLP, a final LayerNorm, and
an output projection tied to the token embedding. Two files:

  prefill.onnx  input_ids [1,S] -> logits [1,S,V], present.K.{key,value}
                [1,H,S,D] for each layer K
  decoder.onnx  input_ids [1,S], past.K.{key,value} [1,H,P,D] -> logits
                [1,S,V], present.K.{key,value} [1,H,P+S,D]

decoder.onnx is also the single-graph form: its first call passes a cache of
length P=0 and the whole prompt. The graph reads the position offset from
the cache's shape (Shape -> Gather), builds the causal mask with Range over
it and concatenates the new keys and values onto the cache, as exporters of
real language models do.

Writes into --out: prefill.onnx, decoder.onnx, config.json (the shape and
the prompt), and reference.json (the prompt, PyTorch's greedy tokens, and
the smallest gap between the two best logits along the way, so a reader can
see the reference is not a near tie) and reference_logits.npy (the last
position's logits at each step).
"""

import argparse
import json
import math
import os
import sys

import numpy as np
import torch

CONFIGS = {
    # Small enough for CI: about 4.3M parameters.
    "small": dict(layers=4, d_model=256, heads=4, vocab=2048, positions=512),
    # GPT-2 small's shape: 124M parameters, about 500 MB of f32 weights.
    "gpt2": dict(layers=12, d_model=768, heads=12, vocab=50257,
                 positions=1024),
}


class Block(torch.nn.Module):
    def __init__(self, d_model, heads):
        super().__init__()
        self.heads = heads
        self.ln_1 = torch.nn.LayerNorm(d_model)
        self.c_attn = torch.nn.Linear(d_model, 3 * d_model)
        self.c_proj = torch.nn.Linear(d_model, d_model)
        self.ln_2 = torch.nn.LayerNorm(d_model)
        self.fc = torch.nn.Linear(d_model, 4 * d_model)
        self.proj = torch.nn.Linear(4 * d_model, d_model)

    def split_heads(self, x):
        b, s, d = x.shape
        return x.view(b, s, self.heads, d // self.heads).transpose(1, 2)

    def forward(self, x, allowed, past_key=None, past_value=None):
        q, k, v = self.c_attn(self.ln_1(x)).chunk(3, dim=-1)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        if past_key is not None:
            k = torch.cat([past_key, k], dim=2)
            v = torch.cat([past_value, v], dim=2)
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        scores = torch.where(allowed, scores,
                             torch.tensor(torch.finfo(scores.dtype).min))
        attended = torch.softmax(scores, dim=-1) @ v
        b, h, s, dh = attended.shape
        x = x + self.c_proj(attended.transpose(1, 2).reshape(b, s, h * dh))
        y = self.fc(self.ln_2(x))
        y = 0.5 * y * (1.0 + torch.tanh(
            math.sqrt(2.0 / math.pi) * (y + 0.044715 * y * y * y)))
        return x + self.proj(y), k, v


class Decoder(torch.nn.Module):
    def __init__(self, layers, d_model, heads, vocab, positions):
        super().__init__()
        self.wte = torch.nn.Embedding(vocab, d_model)
        self.wpe = torch.nn.Embedding(positions, d_model)
        self.blocks = torch.nn.ModuleList(
            Block(d_model, heads) for _ in range(layers))
        self.ln_f = torch.nn.LayerNorm(d_model)

    def forward(self, input_ids, *past):
        seq = input_ids.shape[1]
        offset = past[0].shape[2] if past else 0
        positions = torch.arange(offset, offset + seq)
        x = self.wte(input_ids) + self.wpe(positions)[None]
        # Query i (absolute position offset+i) sees keys 0..offset+i.
        keys = torch.arange(offset + seq)
        allowed = keys[None, :] <= positions[:, None]
        presents = []
        for i, block in enumerate(self.blocks):
            pk, pv = (past[2 * i], past[2 * i + 1]) if past else (None, None)
            x, k, v = block(x, allowed, pk, pv)
            presents += [k, v]
        logits = self.ln_f(x) @ self.wte.weight.t()
        return (logits, *presents)


def build(config, seed):
    torch.manual_seed(seed)
    model = Decoder(**config)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith("weight") and param.dim() == 2:
                # Small embeddings, so the blocks (not the echo of the last
                # token through the tied projection) decide the next token;
                # projections at 1/sqrt(fan).
                scale = 0.05 if "wte" in name or "wpe" in name else \
                    1.0 / math.sqrt(param.shape[1])
                param.copy_(torch.randn(param.shape, generator=generator) *
                            scale)
            elif name.endswith("bias"):
                param.copy_(torch.randn(param.shape, generator=generator) *
                            0.02)
            else:  # LayerNorm weights
                param.copy_(1.0 + 0.1 * torch.randn(param.shape,
                                                    generator=generator))
    model.eval()
    return model


def names(layers, prefix):
    out = []
    for i in range(layers):
        out += ["%s.%d.key" % (prefix, i), "%s.%d.value" % (prefix, i)]
    return out


def export(model, config, out):
    layers, heads = config["layers"], config["heads"]
    dh = config["d_model"] // heads
    prompt = torch.zeros(1, 5, dtype=torch.int64)
    past_names, present_names = names(layers, "past"), names(layers, "present")
    dynamic = {"input_ids": {1: "S"}, "logits": {1: "S"}}
    prefill_dynamic = dict(dynamic)
    for name in present_names:
        prefill_dynamic[name] = {2: "S"}
    torch.onnx.export(model, (prompt,), os.path.join(out, "prefill.onnx"),
                      opset_version=17, input_names=["input_ids"],
                      output_names=["logits"] + present_names,
                      dynamic_axes=prefill_dynamic, do_constant_folding=True)
    past = tuple(torch.zeros(1, heads, 3, dh) for _ in range(2 * layers))
    decoder_dynamic = dict(dynamic)
    for name in past_names:
        decoder_dynamic[name] = {2: "P"}
    for name in present_names:
        decoder_dynamic[name] = {2: "T"}
    torch.onnx.export(model, (prompt[:, :1], *past),
                      os.path.join(out, "decoder.onnx"), opset_version=17,
                      input_names=["input_ids"] + past_names,
                      output_names=["logits"] + present_names,
                      dynamic_axes=decoder_dynamic, do_constant_folding=True)


def generate(model, prompt, tokens):
    """Greedy tokens from PyTorch: the prompt through the model with no
    cache, then one token at a time with the cache. Returns the tokens and
    the smallest gap between the best and second-best logit, and the
    last position's logits of each step [tokens, V]."""
    ids = torch.tensor([prompt], dtype=torch.int64)
    out, gap, steps = [], math.inf, []
    with torch.inference_mode():
        results = model(ids)
        for _ in range(tokens):
            logits, past = results[0], results[1:]
            steps.append(logits[0, -1].numpy().copy())
            top = torch.topk(logits[0, -1], 2).values
            gap = min(gap, float(top[0] - top[1]))
            token = int(torch.argmax(logits[0, -1]))
            out.append(token)
            results = model(torch.tensor([[token]], dtype=torch.int64), *past)
    return out, gap, np.stack(steps)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--config", default="small", choices=sorted(CONFIGS))
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--tokens", type=int, default=64,
                        help="greedy tokens in the reference (0: none)")
    parser.add_argument("--prompt", default="17,302,5,1999,42,7,1024,3",
                        help="prompt token ids, comma-separated")
    args = parser.parse_args()
    config = CONFIGS[args.config]
    prompt = [int(t) for t in args.prompt.split(",")]
    if any(t < 0 or t >= config["vocab"] for t in prompt):
        sys.exit("make_decoder: a prompt token is outside the vocabulary "
                 "(0..%d)" % (config["vocab"] - 1))
    os.makedirs(args.out, exist_ok=True)
    model = build(config, args.seed)
    export(model, config, args.out)
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(dict(config, name=args.config, seed=args.seed), f, indent=1)
    if args.tokens:
        tokens, gap, logits = generate(model, prompt, args.tokens)
        np.save(os.path.join(args.out, "reference_logits.npy"), logits)
        with open(os.path.join(args.out, "reference.json"), "w") as f:
            json.dump({"prompt": prompt, "tokens": tokens,
                       "smallest_gap": gap}, f)
        print("make_decoder: %s config, %d tokens, smallest top-2 gap %.4f" %
              (args.config, len(tokens), gap))
    print("make_decoder: wrote prefill.onnx and decoder.onnx to %s" %
          args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
