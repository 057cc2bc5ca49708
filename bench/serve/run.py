#!/usr/bin/env python3
"""run.py - load test of strata-serve's Open Inference Protocol on a model
with a dynamic batch (a benchmark, not a test).

Serves MODEL (a .vmfb whose input 0 has a dynamic dimension 0, e.g.
resnet18 compiled from ONNX with a symbolic batch) twice from one
repository: as `plain` (no batching) and as `batched` (config.json:
max_batch_size 16, max_queue_delay_microseconds --delay-us), and with
--instance-count=N above 1 also as `plainN` and `batchedN` (the same with
instance_count N in config.json). Then, in
--rounds interleaved rounds, wrk sends POST /v2/models/<m>/infer (one
row, the binary tensor data extension: JSON header plus 4 bytes per
element) at --connections connections for --seconds seconds to each, and
GET /v2/health/live as the bare-HTTP peer; before each run the server is
let go idle (no request pending), so that the requests wrk leaves in
flight when it stops are not counted in the next run. The CPU time per
answer includes them. With --grpc, each round also runs the same load over
gRPC (ModelInfer with raw_input_contents from grpc_load.py's closed-loop
clients, one channel each) on every model, and ServerLive as the gRPC
peer: rows `grpc:plain`, ..., `grpc:live`. Prints per round and as
medians: requests/s, p50/p99 latency, errors, the server's CPU time per
answer, the mean batch (inference_count / execution_count from
/metrics), and the ratios of each model to plain and to live (gRPC rows
to grpc:plain and grpc:live).

  bench/serve/run.py --server=build/tools/strata-serve/strata-serve \
      --model=resnet18_dyn.vmfb [--connections=16] [--rounds=3] \
      [--instance-count=2] [--grpc]
"""
import argparse
import http.client
import json
import os
import re
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import grpc_load

WRK_SCRIPT = """
local f = io.open("%s", "rb")
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/octet-stream"
wrk.headers["Inference-Header-Content-Length"] = "%d"
"""


def cpu_seconds(pid):
    """utime + stime of every thread of pid, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def metric(port, name, model):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/metrics")
    text = connection.getresponse().read().decode()
    connection.close()
    found = re.search(r'%s\{model="%s",version="1"\} (\d+)' % (name, model),
                      text)
    return int(found.group(1)) if found else 0


def wait_idle(port, names, limit=120):
    """Waits until no request of the models is pending (wrk leaves its
    last requests in flight when it stops; they must not run into the
    next measurement)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if all(metric(port, "strata_serve_pending_requests", name) == 0
               for name in names):
            return True
        time.sleep(0.1)
    return False


def run_wrk(args, url, script):
    command = ["wrk", "-t2", "-c%d" % args.connections,
               "-d%ds" % args.seconds, "--latency", "--timeout", "30s", url]
    if script:
        command[1:1] = ["-s", script]
    out = subprocess.run(command, capture_output=True, text=True,
                         timeout=args.seconds + 60).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))

    def latency(percentile):
        found = re.search(r"%s%%\s+([\d.]+)(us|ms|s)" % percentile, out)
        value, unit = float(found.group(1)), found.group(2)
        return value * {"us": 1e-3, "ms": 1.0, "s": 1e3}[unit]

    errors = 0
    for pattern in [r"Non-2xx or 3xx responses: (\d+)",
                    r"Socket errors: connect (\d+), read (\d+), write (\d+), "
                    r"timeout (\d+)"]:
        found = re.search(pattern, out)
        if found:
            errors += sum(int(g) for g in found.groups())
    return {"rate": rate, "total": total, "p50": latency(50),
            "p99": latency(99), "errors": errors}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--delay-us", type=int, default=2000)
    parser.add_argument("--instance-count", type=int, default=1)
    parser.add_argument("--grpc", action="store_true",
                        help="also load every model over gRPC "
                        "(grpc_load.py)")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="bench-serve-")
    batching = {"max_batch_size": 16, "dynamic_batching": {
        "max_queue_delay_microseconds": args.delay_us}}
    configs = {"plain": None, "batched": batching}
    if args.instance_count > 1:
        n = args.instance_count
        configs["plain%d" % n] = {"instance_count": n}
        configs["batched%d" % n] = dict(batching, instance_count=n)
    models = list(configs)
    for name, config in configs.items():
        os.makedirs(os.path.join(work, "repo", name, "1"))
        shutil.copy(args.model, os.path.join(work, "repo", name, "1",
                                             "model.vmfb"))
        if config:
            with open(os.path.join(work, "repo", name, "config.json"),
                      "w") as f:
                json.dump(config, f)
    command = [args.server, "--listen=127.0.0.1:0",
               "--model-repository=" + os.path.join(work, "repo")]
    if args.grpc:
        command.append("--grpc-listen=127.0.0.1:0")
    process = subprocess.Popen(command, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    port = int(re.search(r"http://[^:]+:(\d+)", line).group(1))
    try:
        stubs = grpc_target = None
        if args.grpc:
            found = re.search(r"gRPC on [^:]+:(\d+)", line)
            if not found:
                raise RuntimeError("strata-serve did not start gRPC: %r" %
                                   line)
            grpc_target = "127.0.0.1:" + found.group(1)
            stubs = grpc_load.generate_stubs(work)
        connection = http.client.HTTPConnection("127.0.0.1", port)
        connection.request("GET", "/v2/models/plain")
        metadata = json.loads(connection.getresponse().read())
        connection.close()
        tensor = metadata["inputs"][0]
        shape = [1] + tensor["shape"][1:]
        count = 1
        for d in shape:
            count *= d
        header = json.dumps({"inputs": [{
            "name": tensor["name"], "shape": shape, "datatype": "FP32",
            "parameters": {"binary_data_size": 4 * count}}]}).encode()
        body_path = os.path.join(work, "body.bin")
        with open(body_path, "wb") as f:
            f.write(header + struct.pack("<%df" % count,
                                         *[(i % 255) / 255.0
                                           for i in range(count)]))
        scripts = {}
        for name in models:
            scripts[name] = os.path.join(work, name + ".lua")
            with open(scripts[name], "w") as f:
                f.write(WRK_SCRIPT % (body_path, len(header)))
        base = "http://127.0.0.1:%d" % port
        urls = {name: base + "/v2/models/%s/infer" % name for name in models}
        urls["live"] = base + "/v2/health/live"
        # Each row: a name, the model whose metrics it reads (None: a
        # probe), and what sends its load.
        rows = [(name, name, lambda name=name: run_wrk(
            args, urls[name], scripts.get(name))) for name in models]
        rows.append(("live", None, lambda: run_wrk(args, urls["live"],
                                                    None)))
        if args.grpc:
            for name in models:
                request = grpc_load.infer_request(stubs[0], name,
                                                  tensor["name"], shape)
                rows.append(("grpc:" + name, name,
                             lambda request=request: grpc_load.run_load(
                                 stubs, grpc_target, args.connections,
                                 args.seconds, request)))
            rows.append(("grpc:live", None, lambda: grpc_load.run_load(
                stubs, grpc_target, args.connections, args.seconds)))
        cpu = subprocess.run(["lscpu"], capture_output=True,
                             text=True).stdout
        model_name = re.search(r"Model name:\s+(.*)", cpu).group(1)
        isa = [f for f in ["avx512f", "avx512_vnni", "avx512_bf16",
                           "amx_int8", "amx_bf16", "avx2"]
               if re.search(r"\b%s\b" % f, cpu)]
        print("bench/serve: %s, input %s FP32 (%d bytes, binary), %d "
              "connections, %d s per run, %d rounds, batching: "
              "max_batch_size 16, delay %d us; models %s" %
              (os.path.basename(args.model), shape, 4 * count,
               args.connections, args.seconds, args.rounds, args.delay_us,
               " ".join(models)))
        print("CPU: %s, %d cores, %s; load before: %s" %
              (model_name, os.cpu_count(), " ".join(isa),
               open("/proc/loadavg").read().split()[:3]))
        # Warm-up: every model, a few seconds.
        for name in models:
            warm = dict(vars(args))
            warm["seconds"] = 2
            run_wrk(argparse.Namespace(**warm), urls[name], scripts[name])
            wait_idle(port, models)
        results = {name: [] for name, _, _ in rows}
        for round_index in range(args.rounds):
            parts = []
            for name, model, send in rows:
                wait_idle(port, models)
                before_cpu = cpu_seconds(process.pid)
                before = {k: metric(port, "strata_serve_%s_total" % k, model)
                          for k in ["inference_count", "execution_count"]}
                result = send()
                # The requests wrk left in flight are answered (and their
                # CPU counted) before the next run starts.
                wait_idle(port, models)
                used = cpu_seconds(process.pid) - before_cpu
                after = {k: metric(port, "strata_serve_%s_total" % k, model)
                         for k in ["inference_count", "execution_count"]}
                executions = after["execution_count"] - before[
                    "execution_count"]
                result["cpu_ms"] = 1e3 * used / max(result["total"], 1)
                result["batch"] = ((after["inference_count"] -
                                    before["inference_count"]) / executions
                                   if executions else 0)
                results[name].append(result)
                parts.append("%s %.1f req/s (p50 %.1f ms, p99 %.1f ms, "
                             "errors %d, server CPU %.2f ms/answer%s)" %
                             (name, result["rate"], result["p50"],
                              result["p99"], result["errors"],
                              result["cpu_ms"],
                              ", mean batch %.2f" % result["batch"]
                              if model else ""))
            print("round %d: %s" % (round_index + 1, "; ".join(parts)))
        median = {name: {k: statistics.median(r[k] for r in rs)
                         for k in rs[0]} for name, rs in results.items()}
        for name, model, _ in rows:
            m = median[name]
            print("median %-14s %8.1f req/s  p50 %7.2f ms  p99 %7.2f ms  "
                  "server CPU %.3f ms/answer%s" %
                  (name, m["rate"], m["p50"], m["p99"], m["cpu_ms"],
                   "  mean batch %.2f" % m["batch"] if model else ""))
        for prefix, live in [("", "live"), ("grpc:", "grpc:live")]:
            if live not in results:
                continue
            for name in models[1:]:
                ratios = [b["rate"] / p["rate"] if p["rate"]
                          else float("nan") for b, p in
                          zip(results[prefix + name],
                              results[prefix + "plain"])]
                print("ratio %s%s/%splain throughput: %.2f (rounds: %s)" %
                      (prefix, name, prefix, statistics.median(ratios),
                       " ".join("%.2f" % r for r in ratios)))
            for name in models:
                ratios = [r["rate"] / l["rate"] if l["rate"]
                          else float("nan") for r, l in
                          zip(results[prefix + name], results[live])]
                print("ratio %s%s/%s: %.4f (rounds: %s)" %
                      (prefix, name, live, statistics.median(ratios),
                       " ".join("%.4f" % r for r in ratios)))
        errors = sum(r["errors"] for rs in results.values() for r in rs)
        print("errors: %d; load after: %s" %
              (errors, open("/proc/loadavg").read().split()[:3]))
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
