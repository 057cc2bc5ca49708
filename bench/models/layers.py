#!/usr/bin/python3
"""layers.py - one model of bench/models layer by layer: Strata's dispatches
(a strata-benchmark --trace, each dispatch named after its source op, for
example dwconv_3x3_s2_96_56x56_bias_clip) beside ONNX Runtime's nodes (its
own profiler, every node's kernel time), matched in execution order by what
they compute: convolution or depthwise convolution, window, output size.
Each row gives both medians over the calls and their ratio, so a model's
loss is located in the layers that lose it.

  bench/models/layers.py --model=mobilenet_v2 [--batch=1] [--threads=1]
                         [--rounds=3] [--calls=10] [--build=DIR]
                         [--ort-modules=DIR]

Rounds alternate the two (a new strata-benchmark process, then as many
calls of the ONNX Runtime session) so drift on a shared machine hits both.
Times are medians per call of each layer (a layer run several times per
call, the same executable, is listed at each place it runs). Rows with
one side only are work the other side fuses away or does not do (Strata's
layout transposes at the model's edges, ONNX Runtime's reorders and
concatenations). The sum of a side's layers is its busy time; the call
itself also holds the gaps between them.
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402  (prepare, OrtPeer, the tools)

# conv_3x3_s2_64x128_28x28..., dwconv_3x3_s2_96_56x56...,
# maxpool_3x3_s2_64_56x56..., matmul_1x1000x1280...
STRATA_WINDOW = re.compile(
    r"(?P<kind>dwconv|conv|maxpool|sumpool)_(?P<kh>\d+)x(?P<kw>\d+)"
    r"(?:_s\d+)?(?:_d\d+)?_(?:\d+x)?(?P<out>\d+)_(?P<h>\d+)x(?P<w>\d+)")
STRATA_MATMUL = re.compile(r"matmul_(?P<m>\d+)x(?P<n>\d+)x(?P<k>\d+)")


def strata_signature(name):
    m = STRATA_WINDOW.search(name)
    if m:
        return (m["kind"], int(m["kh"]), int(m["kw"]), int(m["h"]),
                int(m["w"]), int(m["out"]))
    m = STRATA_MATMUL.search(name)
    if m:
        return ("matmul", int(m["n"]))
    return None


def ort_signature(event):
    args = event["args"]
    op = args.get("op_name")
    ins = [next(iter(s.values())) for s in args.get("input_type_shape", [])]
    outs = [next(iter(s.values())) for s in args.get("output_type_shape", [])]
    if op in ("Conv", "FusedConv") and len(ins) >= 2 and len(ins[1]) == 4 \
            and outs and len(outs[0]) == 4:
        weight, out = ins[1], outs[0]
        depthwise = weight[1] == 1 and ins[0][1] == weight[0] > 1
        return ("dwconv" if depthwise else "conv", weight[2], weight[3],
                out[2], out[3], out[1])
    if op == "MaxPool" and outs and len(outs[0]) == 4:
        kernel = None
        return ("maxpool", kernel, kernel, outs[0][2], outs[0][3], outs[0][1])
    if op in ("Gemm", "MatMul", "FusedGemm") and outs:
        return ("matmul", outs[0][-1])
    return None


def same_channels(ours, theirs):
    # ONNX Runtime's blocked layout rounds channel counts up (24 -> 32).
    return any((ours + r - 1) // r * r == theirs for r in (1, 8, 16))


def matches(a, b):
    if a is None or b is None or a[0] != b[0] or len(a) != len(b):
        return False
    # ONNX Runtime's MaxPool events do not say the window.
    if not all(x == y or x is None or y is None
               for x, y in zip(a[:-1], b[:-1])):
        return False
    return same_channels(a[-1], b[-1])


def strata_layers(args, vmfb, input_npy, trace):
    tools = run.kernel_bench.tools(args.build)
    warmup = 3
    subprocess.run([tools["benchmark"], "--module=" + vmfb,
                    "--input=@" + input_npy,
                    "--task_workers=%d" % args.threads,
                    "--warmup=%d" % warmup,
                    "--repetitions=%d" % args.calls, "--trace=" + trace],
                   check=True, stdout=subprocess.DEVNULL)
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    calls = [e for e in events if e.get("cat") == "invocation"][warmup:]
    dispatches = sorted((e for e in events if e.get("cat") == "dispatch"),
                        key=lambda e: e["ts"])
    per_call = []
    for call in calls:
        start, end = call["ts"], call["ts"] + call["dur"]
        per_call.append([e for e in dispatches if start <= e["ts"] < end])
    return per_call, [c["dur"] / 1000 for c in calls]


def ort_profile(prefix):
    files = glob.glob(prefix + "*.json")
    if not files:
        sys.exit("ONNX Runtime wrote no profile at %s*.json" % prefix)
    with open(files[0]) as f:
        events = json.load(f)
    runs = [e for e in events if e.get("cat") == "Session" and
            e["name"] == "model_run"]
    # The load's warm-up run first (ort_peer.js), then the timed ones.
    runs = runs[1:]
    nodes = sorted((e for e in events if e.get("cat") == "Node" and
                    e["name"].endswith("_kernel_time")), key=lambda e: e["ts"])
    per_run = []
    for r in runs:
        start, end = r["ts"], r["ts"] + r["dur"]
        per_run.append([e for e in nodes if start <= e["ts"] < end])
    return per_run, [r["dur"] / 1000 for r in runs]


def medians(per_call, name_of):
    """Per position in a call: (name, event, median ms) over the calls
    that have the same sequence as the first."""
    first = per_call[0]
    same = [c for c in per_call
            if [name_of(e) for e in c] == [name_of(e) for e in first]]
    return [(name_of(e), e, statistics.median(c[i]["dur"] for c in same) /
             1000) for i, e in enumerate(first)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(run.ROOT, "build"))
    parser.add_argument("--work", default=None)
    parser.add_argument("--model", required=True, choices=run.MODELS)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--ort-modules", default=os.environ.get(
        "STRATA_ORT_MODULES", os.path.expanduser(
            "~/.cache/strata-peers/node_modules")))
    args = parser.parse_args()
    if min(args.calls, args.rounds, args.threads, args.batch) < 1:
        sys.exit("--calls, --rounds, --threads and --batch take positive "
                 "numbers")
    if not os.path.isdir(os.path.join(args.ort_modules, "onnxruntime-node")):
        sys.exit("no onnxruntime-node under %s (see run.py --help)" %
                 args.ort_modules)
    args.work = args.work or os.path.join(args.build, "bench", "models")
    os.makedirs(args.work, exist_ok=True)
    prepared = run.prepare(args, args.model, args.batch)

    trace = os.path.join(tempfile.mkdtemp(prefix="layers-strata-"),
                         "trace.json")
    onnx_path, _, _, input_bin, dims = prepared
    prefix = os.path.join(tempfile.mkdtemp(prefix="layers-ort-"), "profile")
    peer = run.OrtPeer(args.ort_modules)
    strata_calls, strata_totals = [], []
    try:
        peer.load("m", onnx_path, input_bin, dims, args.threads, prefix)
        for _ in range(args.rounds):
            calls, totals = strata_layers(args, prepared[1], prepared[2],
                                          trace)
            strata_calls += calls
            strata_totals += totals
            peer.run("m", args.calls)
        peer.ask("endprofile m")
    finally:
        peer.close()
    ort_runs, ort_totals = ort_profile(prefix)
    ours = medians(strata_calls, lambda e: e["name"])
    theirs = medians(ort_runs, lambda e: e["name"][:-len("_kernel_time")])

    # Each dispatch takes the first node not yet taken, at most 12 places
    # past the last one taken, that computes the same thing (the two may
    # order independent branches differently; nodes the other side fuses
    # away stay behind). Nodes left over follow.
    rows = []  # (strata name, strata ms, ort name, ort ms)
    signatures = [ort_signature(event) for _, event, _ in theirs]
    used = [sig is None for sig in signatures]  # nothing to match
    j = last = 0
    for name, _, ms in ours:
        while j < len(theirs) and used[j]:
            j += 1
        sig = strata_signature(name)
        end = min(max(j, last) + 12, len(theirs))
        found = next((k for k in range(j, end)
                      if not used[k] and matches(sig, signatures[k])), None)
        if found is None:
            rows.append((name, ms, None, None))
            continue
        used[found] = True
        last = found
        rows.append((name, ms, theirs[found][0], theirs[found][2]))
    taken = {row[2] for row in rows if row[2] is not None}
    for name, _, ms in theirs:
        if name not in taken:
            rows.append((None, None, name, ms))

    def short(name, width=46):
        name = re.sub(r"^[a-z_0-9]*?_dispatch_\d+_", "", name or "")
        return name if len(name) <= width else name[:width - 3] + "..."

    print("%s batch %d, %d thread(s), %s (%s), %d rounds of %d calls; ms "
          "per call (medians); load average %s" % (
              args.model, args.batch, args.threads, run.cpu_name(),
              run.cpu_isa(), args.rounds, args.calls,
              run.kernel_bench.load_average()))
    print("%-46s %8s  %-40s %8s %7s" % ("Strata dispatch", "ms",
                                        "ONNX Runtime node", "ms", "ratio"))
    matched_ours = matched_theirs = only_ours = only_theirs = 0.0
    for ours_name, ours_ms, their_name, their_ms in rows:
        ratio = ""
        if ours_ms is not None and their_ms:
            ratio = "%.2fx" % (ours_ms / their_ms)
            matched_ours += ours_ms
            matched_theirs += their_ms
        elif ours_ms is not None:
            only_ours += ours_ms
        else:
            only_theirs += their_ms
        print("%-46s %8s  %-40s %8s %7s" % (
            short(ours_name), "%.3f" % ours_ms if ours_ms is not None else "",
            short(their_name, 40),
            "%.3f" % their_ms if their_ms is not None else "", ratio))
    print("matched layers: Strata %.3f ms, ONNX Runtime %.3f ms (%.2fx); "
          "one side only: Strata %.3f ms, ONNX Runtime %.3f ms" % (
              matched_ours, matched_theirs,
              matched_ours / matched_theirs if matched_theirs else 0,
              only_ours, only_theirs))
    print("calls (median): Strata %.3f ms, ONNX Runtime %.3f ms (%.2fx)" % (
        statistics.median(strata_totals), statistics.median(ort_totals),
        statistics.median(strata_totals) / statistics.median(ort_totals)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
