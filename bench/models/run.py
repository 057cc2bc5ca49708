#!/usr/bin/python3
"""run.py - bench/models: real models (resnet18, mobilenet_v2,
squeezenet1_1 and the 4-layer transformer encoder of tests/models, and the
int8 resnet18_int8 and mobilenet_v2_int8, QDQ from PyTorch, and the same
in ONNX Runtime's QOperator form, resnet18_qop and mobilenet_v2_qop, and
its dynamic form, resnet18_dyn and mobilenet_v2_dyn, made from them by
tests/models/qoperator.py) at batch
1 and 8, with 1 and 2 threads, as one table: Strata (strata-benchmark on
local-task with that many workers), ONNX Runtime 1.30 (onnxruntime-node, CPU
provider, every graph optimization, intraOpNumThreads = threads,
interOpNumThreads = 1) and PyTorch (Debian's 1.13, torch.set_num_threads,
eval + inference_mode), all on the same exported model and input.

Rounds are interleaved (every runner of every cell once per round, in turn)
so drift on a shared machine hits all alike; each cell reports the median
ms per call over all rounds and the ratios Strata / peer. It also reports
each model's memory plan: the transient bytes a call allocates (the stream
phase's slab plus any separate allocations) beside the sum of every
dispatch result.

  bench/models/run.py [--build=DIR] [--models=a,b] [--batches=1,8]
                      [--threads=1,2] [--rounds=N] [--repetitions=N]
                      [--alt-target-cpu=CPU] [--alt-compiler=PATH]
                      [--alt-benchmark=PATH]

--alt-target-cpu adds a column: Strata compiled for CPU instead of the
host, in the same rounds, and the ratio host / alt (e.g. the AMX int8
kernel of a Sapphire Rapids host against the VNNI one of icelake-server).
--alt-compiler does the same with another strata-compile (a build of an
earlier commit: git worktree add /tmp/base <commit>, build it there), so a
change is measured against what it changes, in the same rounds.
--alt-benchmark runs the alt column with another strata-benchmark (an
earlier commit's runtime): alone, on this build's module, so a runtime
change is measured on the same code; with --alt-compiler, on that
compiler's module (an earlier build whole).

ONNX Runtime comes from npm, outside the project:
  mkdir -p ~/.cache/strata-peers && cd ~/.cache/strata-peers &&
  ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node@1.30.0
(--ort-modules=DIR/node_modules, or STRATA_ORT_MODULES, points elsewhere;
without it the ONNX Runtime column says "missing").
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
sys.path.insert(0, os.path.join(ROOT, "bench", "common"))
import kernel_bench  # noqa: E402

MODELS = ["resnet18", "mobilenet_v2", "squeezenet1_1", "transformer"]
# The statically quantized (QDQ) models of tests/models/
# make_quantized_models.py; PyTorch has no column for them (Debian's torch
# has no FBGEMM engine).
INT8_MODELS = ["resnet18_int8", "mobilenet_v2_int8"]
# Their QOperator form (QLinearConv, com.microsoft QLinearAdd and
# QLinearGlobalAveragePool), rewritten by tests/models/qoperator.py.
QOP_MODELS = ["resnet18_qop", "mobilenet_v2_qop"]
# Their dynamic form (DynamicQuantizeLinear -> ConvInteger / MatMulInteger,
# activations in f32), rewritten the same way.
DYN_MODELS = ["resnet18_dyn", "mobilenet_v2_dyn"]
QUANTIZED_MODELS = INT8_MODELS + QOP_MODELS + DYN_MODELS


def cpu_isa():
    """The widest x86 vector ISA of this CPU, for the table's header."""
    flags = kernel_bench.cpu_flags()
    if "avx512f" in flags:
        extras = [name for flag, name in (("avx512_vnni", "VNNI"),
                                          ("avx_vnni", "AVX-VNNI"),
                                          ("amx_int8", "AMX-INT8"))
                  if flag in flags]
        return "AVX-512" + (" with " + ", ".join(extras) if extras else "")
    if "avx2" in flags and "fma" in flags:
        return "AVX2+FMA"
    return platform.machine()


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def stem(work, name, batch):
    return os.path.join(work, name if batch == 1 else "%s_b%d" % (name, batch))


def prepare(args, name, batch):
    """Exports the model (cached), compiles it, writes the raw input for
    ONNX Runtime; returns (onnx, vmfb, input.npy, input.bin, dims)."""
    import numpy as np
    base = stem(args.work, name, batch)
    onnx_path = base + ".onnx"
    if not os.path.exists(onnx_path) and name in QOP_MODELS + DYN_MODELS:
        qdq, _, _, _, _ = prepare(args, name.rsplit("_", 1)[0] + "_int8",
                                  batch)
        subprocess.run([sys.executable,
                        os.path.join(ROOT, "tests", "models", "qoperator.py"),
                        "--form=" + ("qoperator" if name in QOP_MODELS
                                     else "dynamic"), qdq, onnx_path],
                       check=True)
        np.save(base + ".input.npy",
                np.load(qdq[:-len(".onnx")] + ".input.npy"))
    elif not os.path.exists(onnx_path) and name in INT8_MODELS:
        subprocess.run([sys.executable,
                        os.path.join(ROOT, "tests", "models",
                                     "make_quantized_models.py"),
                        "--out", args.work, "--models",
                        name[:-len("_int8")], "--batch", str(batch),
                        "--ort-modules", args.ort_modules], check=True)
    elif not os.path.exists(onnx_path):
        subprocess.run([sys.executable,
                        os.path.join(ROOT, "tests", "models", "make_models.py"),
                        "--out", args.work, "--models", name,
                        "--batch", str(batch)], check=True)
    vmfb = base + ".vmfb"
    tools = kernel_bench.tools(args.build)
    subprocess.run([tools["compile"], onnx_path, "--target-cpu=host", "-o",
                    vmfb], check=True)
    if alt_compiled(args):
        subprocess.run([args.alt_compiler or tools["compile"], onnx_path,
                        "--target-cpu=" + (args.alt_target_cpu or "host"),
                        "-o", base + ".alt.vmfb"], check=True)
    input_npy = base + ".input.npy"
    data = np.load(input_npy)
    input_bin = base + ".input.bin"
    data.astype("<f4").tofile(input_bin)
    return onnx_path, vmfb, input_npy, input_bin, "x".join(
        str(d) for d in data.shape)


def memory_plan(args, onnx_path):
    """(transient bytes a call allocates, sum of every dispatch result's
    bytes), read from the stream and flow phases' IR."""
    tools = kernel_bench.tools(args.build)

    def phase(name):
        return subprocess.run([tools["compile"], onnx_path, "--target-cpu=host",
                               "--compile-to=" + name, "-o", "-"],
                              check=True, stdout=subprocess.PIPE,
                              text=True).stdout

    stream = phase("stream")
    transient = sum(int(m) for m in re.findall(
        r"stream\.resource\.alloca %\S+, (\d+)", stream))
    constants = dict(re.findall(r"(%c\d+) = arith\.constant (\d+) : index",
                                stream))
    for size in re.findall(r"stream\.resource\.alloc %\S+, (%\S+) ", stream):
        transient += int(constants.get(size, 0))
    flow = phase("flow")
    results = 0
    for types in re.findall(r"flow\.dispatch @\S+\(.*\) : \(.*\) -> \(?([^\n]*)",
                            flow):
        for dims, element in re.findall(r"tensor<((?:\d+x)*)(\w+)>", types):
            count = 1
            for d in dims.split("x")[:-1]:
                count *= int(d)
            bits = int(re.sub(r"\D", "", element) or 8)
            results += count * max(bits // 8, 1)
    return transient, results


class OrtPeer:
    """One node process serving every ONNX Runtime session (ort_peer.js)."""

    def __init__(self, modules):
        env = dict(os.environ, NODE_PATH=modules)
        self.proc = subprocess.Popen(["node", os.path.join(HERE, "ort_peer.js")],
                                     stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)

    def ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        if not answer or answer.startswith("error"):
            raise RuntimeError("onnxruntime-node: %s" % (answer or "no answer"))
        return answer

    def load(self, key, onnx_path, input_bin, dims, threads,
             profile_prefix=None, optimized_path=None):
        self.ask("load %s %s %s %s %d%s%s" % (
            key, onnx_path, input_bin, dims, threads,
            " " + profile_prefix if profile_prefix else "",
            " " + optimized_path if profile_prefix and optimized_path
            else ""))

    def run(self, key, repetitions):
        return [float(t) for t in self.ask(
            "run %s %d" % (key, repetitions)).split()[1:]]

    def close(self):
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
        except OSError:
            pass
        self.proc.wait(timeout=30)


def settle():
    """Half a second for threads another runner left spinning."""
    time.sleep(0.5)


def alt_compiled(args):
    """Whether the alt column runs a module of its own (another target CPU
    or compiler), rather than this build's with another runtime."""
    return bool(args.alt_target_cpu or args.alt_compiler)


def strata_times(args, vmfb, input_npy, threads, benchmark=None):
    tools = kernel_bench.tools(args.build)
    # A new process per round, so three warm-up calls: the peers' sessions
    # live across rounds, and a large batch's first calls fault their
    # transient slabs in (two are live while the caller holds results).
    cmd = [benchmark or tools["benchmark"], "--module=" + vmfb,
           "--input=@" + input_npy,
           "--task_workers=%d" % threads, "--warmup=3",
           "--repetitions=%d" % args.repetitions, "--format=json"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        sys.exit("%s failed: %s" % (" ".join(cmd), proc.stderr.strip()))
    return json.loads(proc.stdout)["times_ms"]


def torch_times(model, example, threads, repetitions):
    import torch
    kernel_bench.set_torch_threads(threads)
    times = []
    with torch.inference_mode():
        model(example)  # warm-up at this thread count
        for _ in range(repetitions):
            start = time.perf_counter()
            model(example)
            times.append((time.perf_counter() - start) * 1e3)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--work", default=None,
                        help="models and modules (default BUILD/bench/models)")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--ort-modules", default=os.environ.get(
        "STRATA_ORT_MODULES", os.path.expanduser(
            "~/.cache/strata-peers/node_modules")))
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--alt-target-cpu", default=None,
                        help="also time Strata compiled for this CPU "
                        "(column 'alt', ratio strata/alt)")
    parser.add_argument("--alt-compiler", default=None,
                        help="also time Strata compiled by this "
                        "strata-compile (another build, an earlier "
                        "commit's), run by this build's runtime unless "
                        "--alt-benchmark (column 'alt', ratio strata/alt)")
    parser.add_argument("--alt-benchmark", default=None,
                        help="run the alt column with this strata-benchmark "
                        "(another build's runtime): this build's module "
                        "alone, or --alt-compiler's (column 'alt', ratio "
                        "strata/alt)")
    parser.add_argument("--statistic", choices=["median", "min"],
                        default="median",
                        help="per cell over all rounds: the median (the "
                        "default), or the minimum, which load from other "
                        "processes on a shared machine disturbs least")
    args = parser.parse_args()
    has_alt = alt_compiled(args) or bool(args.alt_benchmark)
    args.work = args.work or os.path.join(args.build, "bench", "models")
    os.makedirs(args.work, exist_ok=True)
    models = args.models.split(",")
    for name in models:
        if name not in MODELS + QUANTIZED_MODELS:
            sys.exit("unknown model %s (known: %s)" % (
                name, ", ".join(MODELS + QUANTIZED_MODELS)))
    batches = [int(b) for b in args.batches.split(",")]
    threads_list = [int(t) for t in args.threads.split(",")]

    import make_models  # tests/models: the same models, seeded
    import torch
    torch.manual_seed(0)

    ort = None
    if os.path.isdir(os.path.join(args.ort_modules, "onnxruntime-node")):
        ort = OrtPeer(args.ort_modules)
    else:
        print("note: no onnxruntime-node under %s; see --help" %
              args.ort_modules)

    cells = []  # (name, batch, threads, prepared, torch model, example)
    plans = {}
    for name in models:
        for batch in batches:
            prepared = prepare(args, name, batch)
            if batch == batches[0]:
                plans[name] = memory_plan(args, prepared[0])
            model = example = None
            if not args.no_torch and name not in QUANTIZED_MODELS:
                model, example = make_models.build(name, batch)
            for threads in threads_list:
                key = "%s_b%d_t%d" % (name, batch, threads)
                if ort:
                    ort.load(key, prepared[0], prepared[3], prepared[4],
                             threads)
                cells.append((key, name, batch, threads, prepared, model,
                              example))

    times = {cell[0]: {"strata": [], "alt": [], "ort": [], "torch": []}
             for cell in cells}
    for _ in range(args.rounds):
        for key, name, batch, threads, prepared, model, example in cells:
            # Each runner starts on idle cores: the one before may leave
            # threads spinning for a while after its calls (PyTorch's
            # OpenMP pool waits actively for 200 ms by default, ONNX
            # Runtime's pool spins too), which would take the cores of the
            # next one's workers.
            settle()
            times[key]["strata"] += strata_times(args, prepared[1],
                                                 prepared[2], threads)
            settle()
            if has_alt:
                times[key]["alt"] += strata_times(
                    args, prepared[1][:-len(".vmfb")] + ".alt.vmfb"
                    if alt_compiled(args) else prepared[1], prepared[2],
                    threads, args.alt_benchmark)
                settle()
            if ort:
                times[key]["ort"] += ort.run(key, args.repetitions)
                settle()
            if model is not None:
                times[key]["torch"] += torch_times(model, example, threads,
                                                   args.repetitions)
    if ort:
        ort.close()

    def med(values):
        if not values:
            return None
        return min(values) if args.statistic == "min" else \
            statistics.median(values)

    def fmt(value, spec="%8.2f"):
        return spec % value if value is not None else "%8s" % "-"

    print("bench/models: %s (%s), %s; %d interleaved rounds of %d calls, "
          "%ss in ms; load average %s" %
          (cpu_name(), cpu_isa(), time.strftime("%Y-%m-%d"), args.rounds,
           args.repetitions, args.statistic, kernel_bench.load_average()))
    if has_alt:
        print("alt: Strata compiled by %s with --target-cpu=%s, run by %s" %
              (args.alt_compiler or "this build's strata-compile",
               args.alt_target_cpu or "host",
               args.alt_benchmark or "this build's strata-benchmark"))
    print("%-17s %5s %3s %9s %9s %9s %9s %9s %9s %9s" %
          ("model", "batch", "thr", "strata", "alt", "onnxrt", "torch",
           "s/alt", "s/onnxrt", "s/torch"))
    for key, name, batch, threads, _, _, _ in cells:
        s = med(times[key]["strata"])
        a = med(times[key]["alt"])
        o = med(times[key]["ort"])
        t = med(times[key]["torch"])
        print("%-17s %5d %3d %9s %9s %9s %9s %9s %9s %9s" % (
            name, batch, threads, fmt(s), fmt(a), fmt(o), fmt(t),
            fmt(s / a if a else None, "%8.2fx"),
            fmt(s / o if o else None, "%8.2fx"),
            fmt(s / t if t else None, "%8.2fx")))
    print("memory plan (batch %d): transient bytes per call / sum of dispatch "
          "results" % batches[0])
    for name, (transient, results) in plans.items():
        print("  %-14s %12d / %12d (%.0f%%)" % (
            name, transient, results, 100.0 * transient / max(results, 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
