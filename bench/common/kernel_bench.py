"""kernel_bench.py - shared by the kernel benchmarks (bench/elementwise,
bench/conv): compile an MLIR program with strata-compile, time one of its
functions with strata-benchmark (median of the process's timed calls), time
a numpy peer in a separate process, and alternate the two in rounds so that
drift on a shared machine hits both alike. Benchmarks print figures; they
are not tests.
"""
import json
import os
import statistics
import subprocess
import sys

# numpy comes from Debian's python3-numpy; a python3 earlier on PATH (a
# virtualenv, pyenv) may not have it.
NUMPY_PYTHON = "/usr/bin/python3"


def tools(build):
    return {
        "compile": os.path.join(build, "compiler", "tools", "strata-compile",
                                "strata-compile"),
        "benchmark": os.path.join(build, "tools", "strata-benchmark",
                                  "strata-benchmark"),
    }


def set_torch_threads(threads):
    """PyTorch at `threads` threads, its matmuls included: Debian's torch
    runs them in OpenBLAS (BLAS_INFO=generic), whose own thread pool
    ignores torch.set_num_threads and takes every core. Left so, a
    "1 thread" PyTorch figure ran its matmuls on 2 (the transformer at
    batch 8 looked 1.5x faster than Strata; on one thread it is not).
    The OpenBLAS that torch loaded is found in this process's mappings."""
    import ctypes
    import torch
    torch.set_num_threads(threads)
    torch.ones(2, 2) @ torch.ones(2, 2)  # loads the BLAS library
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f
                 if "blas" in line and line.split()[-1].startswith("/")}
    for path in sorted(paths):
        try:
            library = ctypes.CDLL(path)
            library.openblas_set_num_threads(ctypes.c_int(threads))
        except (OSError, AttributeError):
            continue


def load_average():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def compile_program(build, source, output):
    subprocess.run([tools(build)["compile"], source, "-o", output],
                   check=True)


def strata_median_ms(build, module, function, inputs, workers, repetitions):
    """Median ms per call of module.function over repetitions timed calls
    (after strata-benchmark's warm-up), on local-task with workers threads."""
    cmd = [tools(build)["benchmark"], "--module=" + module,
           "--function=" + function, "--task_workers=%d" % workers,
           "--repetitions=%d" % repetitions, "--format=json"]
    cmd += ["--input=" + value for value in inputs]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        sys.exit("%s failed: %s" % (" ".join(cmd), proc.stderr.strip()))
    return json.loads(proc.stdout)["median_ms"]


def cpu_flags():
    """The CPU's feature flags (/proc/cpuinfo's first "flags" line), as a
    set; empty where there is none."""
    try:
        with open("/proc/cpuinfo") as f:
            return set(next((line.split(":", 1)[1].split() for line in f
                             if line.startswith("flags")), []))
    except OSError:
        return set()


OPENBLAS = "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0"


def openblas_core(env=None):
    """Sets `env` (os.environ by default) for an OpenBLAS peer: without
    OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, so that OpenBLAS picks its
    kernel for this CPU, unless it falls back to an SSE3 one on an x86 CPU
    it does not know (Debian's 0.3.21 named an Intel Xeon family 6 model
    207, AVX-512 with AMX, "Prescott": 17 GFLOP/s where SkylakeX ran 98,
    2026-12-06): then the best of its kernels the host's flags allow
    (SkylakeX with AVX-512, Haswell with AVX2 and FMA). Returns the core
    name OpenBLAS reports for the peer, to print beside its figures."""
    env = os.environ if env is None else env
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    probe = ("import ctypes\n"
             "f = ctypes.CDLL(%r).openblas_get_corename\n"
             "f.restype = ctypes.c_char_p\n"
             "print(f().decode())" % OPENBLAS)

    def corename():
        proc = subprocess.run([NUMPY_PYTHON, "-c", probe], env=env,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
        return proc.stdout.strip() if proc.returncode == 0 else "unknown"

    core = corename()
    flags = cpu_flags()
    if core.lower() in ("prescott", "core2", "nehalem", "katmai",
                        "unknown"):
        if "avx512f" in flags:
            env["OPENBLAS_CORETYPE"] = "SkylakeX"
        elif "avx2" in flags and "fma" in flags:
            env["OPENBLAS_CORETYPE"] = "Haswell"
        if "OPENBLAS_CORETYPE" in env:
            core = "%s (detected %s)" % (corename(), core)
    return core


def peer_median_ms(script, args):
    """Runs a numpy peer script that prints one JSON object with
    "median_ms"; returns it."""
    env = dict(os.environ)
    # One thread, as numpy's elementwise ops are; the peers that call BLAS
    # set their own thread count.
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    proc = subprocess.run([NUMPY_PYTHON, script] + [str(a) for a in args],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=env)
    if proc.returncode != 0:
        sys.exit("%s failed: %s" % (script, proc.stderr.strip()))
    return json.loads(proc.stdout)["median_ms"]


def interleave(rounds, runners):
    """Calls each runner once per round, in turn; returns the median of each
    runner's results."""
    results = [[] for _ in runners]
    for _ in range(rounds):
        for i, runner in enumerate(runners):
            results[i].append(runner())
    return [statistics.median(r) for r in results]
