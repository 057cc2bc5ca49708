#!/usr/bin/python3
"""dynamic.py - bench/models: the dynamic-shape table (issue 27) in one
interleaved run. Each module is compiled once with its symbolic dimension
and run at several sizes, beside ONNX Runtime 1.30 on the same ONNX file,
PyTorch (Debian's 1.13, the same model in process) and Strata's static
module for that size (the same ONNX file compiled with --input-shape):

  - the decoder language model of samples/generate (GPT-2 small's shape
    with --config=gpt2, 124M parameters generated here, never committed):
    ms per decoded token with a key/value cache of each --caches length,
    and the prefill of a --prompt-token prompt;
  - resnet18 with a dynamic batch, at each of --batches;
  - the transformer encoder of tests/models with a dynamic sequence length,
    at each of --seqs.

    PYTHONPATH=build/python /usr/bin/python3 bench/models/dynamic.py \\
        --build=build [--config=small|gpt2] [--threads=1,2] [--rounds=5]

Per thread count, every runner of every row runs once per round, in turn
(so drift on a shared machine hits all alike), the first runner moving one
place each round; a cell is the median over
rounds of each round's median of --reps calls. Ratios are Strata's dynamic
module / the peer (below 1.0 Strata is faster). Strata runs through the
Python package with tensors=True (inputs wrapped once, results kept in the
runtime, as generate.py keeps its cache); ONNX Runtime through
bench/models/ort_peer.js (CPU provider, every graph optimization,
intraOpNumThreads = threads, interOpNumThreads = 1; its `loadn` command
takes the decoder's 25 inputs as .npy files); PyTorch with
torch.set_num_threads and inference_mode.

With --alt-compiler=PATH, each dynamic module is also compiled by another
strata-compile (a build of an earlier commit) and runs as one more runner
of the same rounds ("alt", and the ratio s/alt), so a change to the
compiler is measured against what it changes.

With --unplanned, each dynamic module is also compiled with its results of
dynamic size kept out of the transient slab (each its own allocation, as
before the symbolic memory plan: flow phase -> strata-opt
--strata-schedule-execution=dynamic-transients=false -> the rest), and runs
as one more runner of the same rounds.

ONNX Runtime comes from npm, outside the project (bench/models/
setup_peers.sh; --ort-modules=DIR/node_modules or STRATA_ORT_MODULES);
without it its column says "-".
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

# PyTorch runs in this process between Strata's calls. Its OpenMP threads
# spin after each parallel region by default, holding a core while the next
# runner (often Strata's dynamic module, first in each row) runs: on 2 cores
# that runner lost its second worker (2026-12-03: the dynamic transformer
# at 128 took 8.85 ms in the table, 5.96 alone). They sleep instead.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "samples", "generate"))
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
sys.path.insert(0, os.path.join(ROOT, "bench", "common"))
sys.path.insert(0, HERE)
import kernel_bench  # noqa: E402
from run import OrtPeer, cpu_isa, cpu_name, settle  # noqa: E402

RUNNERS = ("strata", "static", "unplanned", "alt", "ort", "torch")


class Row:
    """One line of the table: its inputs (numpy arrays, in the model's
    input order), Strata's dynamic and static modules, the ONNX file, the
    PyTorch model."""

    def __init__(self, label, onnx_path, dynamic_vmfb, static_vmfb, inputs,
                 torch_model, unplanned_vmfb=None, alt_vmfb=None):
        self.label = label
        self.onnx = onnx_path
        self.dynamic_vmfb = dynamic_vmfb
        self.unplanned_vmfb = unplanned_vmfb
        self.alt_vmfb = alt_vmfb
        self.static_vmfb = static_vmfb
        self.inputs = inputs
        self.torch_model = torch_model
        self.npy = []


def compile_module(args, onnx_path, output, shapes=(), compiler=None):
    """strata-compile ONNX_PATH -o OUTPUT (--input-shape for each
    NAME=DIMS of `shapes`; `compiler` instead of the build's); cached by
    the file's name."""
    compiler = compiler or kernel_bench.tools(args.build)["compile"]
    if os.path.exists(output) and os.path.getmtime(output) > max(
            os.path.getmtime(onnx_path), os.path.getmtime(compiler)):
        return output
    cmd = [compiler, onnx_path, "--target-cpu=host", "-o", output]
    cmd += ["--input-shape=" + s for s in shapes]
    start = time.time()
    subprocess.run(cmd, check=True)
    print("compiled %s (%.0f s)" % (os.path.basename(output),
                                    time.time() - start), flush=True)
    return output


def compile_alt(args, onnx_path, output):
    """ONNX_PATH compiled by --alt-compiler, or None without it."""
    if not args.alt_compiler:
        return None
    return compile_module(args, onnx_path, output,
                          compiler=args.alt_compiler)


def compile_unplanned(args, onnx_path, output):
    """ONNX_PATH compiled with the stream phase's dynamic-transients=false
    (every result of dynamic size its own allocation), or None without
    --unplanned."""
    if not args.unplanned:
        return None
    tools = kernel_bench.tools(args.build)
    if os.path.exists(output) and os.path.getmtime(output) > max(
            os.path.getmtime(onnx_path), os.path.getmtime(tools["compile"])):
        return output
    opt = os.path.join(args.build, "compiler", "tools", "strata-opt",
                       "strata-opt")
    flow, stream = output + ".flow.mlir", output + ".stream.mlir"
    start = time.time()
    subprocess.run([tools["compile"], onnx_path, "--target-cpu=host",
                    "--compile-to=flow", "-o", flow], check=True)
    subprocess.run([opt, flow, "-o", stream,
                    "--strata-schedule-execution=dynamic-transients=false"],
                   check=True)
    subprocess.run([tools["compile"], stream, "--compile-from=stream",
                    "--target-cpu=host", "-o", output], check=True)
    os.remove(flow)
    os.remove(stream)
    print("compiled %s (%.0f s)" % (os.path.basename(output),
                                    time.time() - start), flush=True)
    return output


def dims(array):
    return "x".join(str(d) for d in array.shape)


def decoder_rows(args):
    import make_decoder
    config = make_decoder.CONFIGS[args.config]
    work = os.path.join(args.work, "decoder_" + args.config)
    os.makedirs(work, exist_ok=True)
    model = make_decoder.build(config, 1234)
    if not os.path.exists(os.path.join(work, "decoder.onnx")):
        make_decoder.export(model, config, work)
    layers, heads = config["layers"], config["heads"]
    dh = config["d_model"] // heads
    past_names = make_decoder.names(layers, "past")
    decoder = os.path.join(work, "decoder.onnx")
    prefill = os.path.join(work, "prefill.onnx")
    decoder_vmfb = compile_module(args, decoder,
                                  os.path.join(work, "decoder.vmfb"))
    prefill_vmfb = compile_module(args, prefill,
                                  os.path.join(work, "prefill.vmfb"))
    decoder_unplanned = compile_unplanned(
        args, decoder, os.path.join(work, "decoder_unplanned.vmfb"))
    prefill_unplanned = compile_unplanned(
        args, prefill, os.path.join(work, "prefill_unplanned.vmfb"))
    decoder_alt = compile_alt(args, decoder,
                              os.path.join(work, "decoder.alt.vmfb"))
    prefill_alt = compile_alt(args, prefill,
                              os.path.join(work, "prefill.alt.vmfb"))
    rng = np.random.default_rng(0)
    rows = []
    for cache in args.caches:
        if cache + 1 > config["positions"]:
            sys.exit("dynamic.py: a cache of %d leaves no position for the "
                     "next token (the %s config has %d)" %
                     (cache, args.config, config["positions"]))
        ids = np.array([[7]], np.int64)
        past = [rng.standard_normal((1, heads, cache, dh), np.float32)
                for _ in range(2 * layers)]
        static = None
        if not args.no_static:
            static = compile_module(
                args, decoder, os.path.join(work, "decoder_p%d.vmfb" % cache),
                ["input_ids=1x1"] + ["%s=1x%dx%dx%d" % (n, heads, cache, dh)
                                     for n in past_names])
        rows.append(Row("%s decode, cache %d" % (args.config, cache),
                        decoder, decoder_vmfb, static, [ids] + past, model,
                        decoder_unplanned, decoder_alt))
    prompt = rng.integers(0, config["vocab"], (1, args.prompt)).astype(
        np.int64)
    static = None
    if not args.no_static:
        static = compile_module(
            args, prefill, os.path.join(work, "prefill_s%d.vmfb" % args.prompt),
            ["input_ids=1x%d" % args.prompt])
    rows.append(Row("%s prefill, %d tokens" % (args.config, args.prompt),
                    prefill, prefill_vmfb, static, [prompt], model,
                    prefill_unplanned, prefill_alt))
    return rows


def model_rows(args, name, sizes, what):
    import make_models
    work = os.path.join(args.work, "models")
    os.makedirs(work, exist_ok=True)
    onnx_path = os.path.join(work, "%s_dyn.onnx" % name)
    if not all(os.path.exists(os.path.join(
            work, "%s_dyn.%d.input.npy" % (name, s))) for s in sizes) or \
            not os.path.exists(onnx_path):
        make_models.export_dynamic(name, work, sizes)
    dynamic_vmfb = compile_module(args, onnx_path,
                                  os.path.join(work, "%s_dyn.vmfb" % name))
    unplanned = compile_unplanned(
        args, onnx_path, os.path.join(work, "%s_dyn_unplanned.vmfb" % name))
    alt = compile_alt(args, onnx_path,
                      os.path.join(work, "%s_dyn.alt.vmfb" % name))
    model, _ = make_models.build(name, 1)
    rows = []
    for size in sizes:
        x = np.load(os.path.join(work, "%s_dyn.%d.input.npy" % (name, size)))
        static = None
        if not args.no_static:
            static = compile_module(
                args, onnx_path,
                os.path.join(work, "%s_static_%d.vmfb" % (name, size)),
                ["input=" + dims(x)])
        rows.append(Row("%s, %s %d" % (name, what, size), onnx_path,
                        dynamic_vmfb, static, [x], model, unplanned, alt))
    return rows


def timed(fn, reps):
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def run_threads(args, rows, threads, ort):
    """{row label: {runner: [per-round medians]}} at `threads`."""
    import strata
    import torch
    kernel_bench.set_torch_threads(threads)
    instance = strata.Instance("local-task", threads)
    functions = {}  # one session per module, shared by its rows

    def function(path):
        if path not in functions:
            functions[path] = strata.Session(path, instance=instance)["main"]
        return functions[path]

    calls = {}
    keys = []
    for index, row in enumerate(rows):
        tensors = [strata.Tensor(np.ascontiguousarray(x)) for x in row.inputs]
        torch_inputs = [torch.from_numpy(x) for x in row.inputs]
        runners = {}
        fn = function(row.dynamic_vmfb)
        runners["strata"] = (lambda f=fn, t=tensors: f(*t, tensors=True))
        if row.static_vmfb:
            fs = function(row.static_vmfb)
            runners["static"] = (lambda f=fs, t=tensors: f(*t, tensors=True))
        if row.unplanned_vmfb:
            fu = function(row.unplanned_vmfb)
            runners["unplanned"] = (lambda f=fu, t=tensors:
                                    f(*t, tensors=True))
        if row.alt_vmfb:
            fa = function(row.alt_vmfb)
            runners["alt"] = (lambda f=fa, t=tensors: f(*t, tensors=True))
        if ort:
            key = "r%d_t%d" % (index, threads)
            ort.ask("loadn %s %s %d %s" % (key, row.onnx, threads,
                                           ",".join(row.npy)))
            keys.append(key)
            runners["ort"] = key
        if not args.no_torch:
            runners["torch"] = (lambda m=row.torch_model, x=torch_inputs:
                                m(*x))
        calls[row.label] = runners
    results = {row.label: {r: [] for r in RUNNERS} for row in rows}
    with torch.inference_mode():
        for row in rows:  # warm up every runner once more at this count
            for name, call in calls[row.label].items():
                if name != "ort":
                    call()
        for round_index in range(args.rounds):
            for row in rows:
                # The runners take turns going first: whichever follows
                # another pays for what that one leaves behind (caches,
                # threads still winding down), so no runner always does.
                # Every other cycle of turns runs them in reverse, so each
                # follows every other as often (in one direction only, the
                # Strata column always came right after ONNX Runtime's or
                # first).
                order = list(calls[row.label].items())
                if (round_index // len(order)) % 2 == 1:
                    order.reverse()
                shift = round_index % len(order)
                for name, call in order[shift:] + order[:shift]:
                    settle()
                    if name == "ort":
                        value = statistics.median(ort.run(call, args.reps))
                    else:
                        value = timed(call, args.reps)
                    results[row.label][name].append(value)
            print("  %d thread(s): round %d of %d done" %
                  (threads, round_index + 1, args.rounds), flush=True)
    for key in keys:
        ort.ask("release " + key)
    instance.shutdown()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--work", default=None,
                        help="models and modules (default BUILD/bench/dynamic)")
    parser.add_argument("--config", default="small",
                        help="decoder configuration: small or gpt2")
    parser.add_argument("--caches", default="128,1023",
                        help="decode cache lengths (at most positions - 1: "
                        "511 for small, 1023 for gpt2)")
    parser.add_argument("--prompt", type=int, default=128)
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--seqs", default="32,128")
    parser.add_argument("--rows", default="decoder,resnet18,transformer")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--no-static", action="store_true")
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--unplanned", action="store_true",
                        help="also run each dynamic module compiled with "
                        "dynamic-transients=false (see above)")
    parser.add_argument("--alt-compiler", default=None,
                        help="also run each dynamic module compiled by this "
                        "strata-compile (see above)")
    parser.add_argument("--ort-modules", default=os.environ.get(
        "STRATA_ORT_MODULES", os.path.expanduser(
            "~/.cache/strata-peers/node_modules")))
    args = parser.parse_args()
    args.work = args.work or os.path.join(args.build, "bench", "dynamic")
    args.caches = [int(c) for c in args.caches.split(",")]
    os.makedirs(args.work, exist_ok=True)
    wanted = args.rows.split(",")

    rows = []
    if "decoder" in wanted:
        rows += decoder_rows(args)
    if "resnet18" in wanted:
        rows += model_rows(args, "resnet18",
                           [int(b) for b in args.batches.split(",")], "batch")
    if "transformer" in wanted:
        rows += model_rows(args, "transformer",
                           [int(s) for s in args.seqs.split(",")], "sequence")
    # ONNX Runtime reads each row's inputs from .npy files.
    for index, row in enumerate(rows):
        for i, x in enumerate(row.inputs):
            path = os.path.join(args.work, "row%d.input%d.npy" % (index, i))
            np.save(path, x)
            row.npy.append(path)

    ort = None
    if os.path.isdir(os.path.join(args.ort_modules, "onnxruntime-node")):
        ort = OrtPeer(args.ort_modules)
    else:
        print("note: no onnxruntime-node under %s; see --help" %
              args.ort_modules)

    threads_list = [int(t) for t in args.threads.split(",")]
    results = {}
    for threads in threads_list:
        results[threads] = run_threads(args, rows, threads, ort)
    if ort:
        ort.close()

    def med(values):
        return statistics.median(values) if values else None

    def fmt(value, spec="%9.2f"):
        return spec % value if value is not None else "%9s" % "-"

    print("bench/models/dynamic.py: %s (%s), %s; %d interleaved rounds of "
          "%d calls, medians in ms; load average %s" %
          (cpu_name(), cpu_isa(), time.strftime("%Y-%m-%d"), args.rounds,
           args.reps, kernel_bench.load_average()))
    print("%-34s %3s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s" %
          ("row", "thr", "strata", "static", "unplanned", "alt", "onnxrt",
           "torch", "s/static", "u/static", "s/alt", "s/onnxrt", "s/torch"))
    for threads in threads_list:
        for row in rows:
            cell = results[threads][row.label]
            s, st, u, a, o, t = (med(cell[r]) for r in RUNNERS)
            print("%-34s %3d %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s" % (
                row.label, threads, fmt(s), fmt(st), fmt(u), fmt(a), fmt(o),
                fmt(t), fmt(s / st if st else None, "%8.2fx"),
                fmt(u / st if u and st else None, "%8.2fx"),
                fmt(s / a if a else None, "%8.2fx"),
                fmt(s / o if o else None, "%8.2fx"),
                fmt(s / t if t else None, "%8.2fx")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
