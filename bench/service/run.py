#!/usr/bin/env python3
"""run.py - load test of samples/service (a benchmark, not a test).

Compiles samples/mlp with --async-exports, starts strata-service on
loopback, and drives POST /v1/models/mlp:invoke/predict (the MLP input as
JSON) with wrk: two halves of --requests/2 each at --connections
connections (a Lua script stops each wrk thread after its share of
responses). It prints throughput, p50/p99 latency, errors and the server's
VmRSS before, between the halves and after; then the in-process ceiling,
the same function called through the embedding API with the same number of
calls in flight (build/bench/service/inprocess_calls), and the ratio; then
the same calls with the service's JSON decode and encode of each request
(inprocess_calls --json-body), and that ratio.

  bench/service/run.py --build=build [--requests=20000] [--connections=64]
      [--threads=2] [--device=local-task] [--task_workers=0]
"""
import argparse
import http.client
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

WRK_SCRIPT = r"""
-- Stops each wrk thread after its share of responses; counts statuses and
-- times each thread with CLOCK_MONOTONIC (wrk's own duration is always the
-- whole -d, since its main thread sleeps that long).
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clock, bench_timespec* out);
]]
local function now_us()
  local t = ffi.new("bench_timespec")
  ffi.C.clock_gettime(1, t)
  return tonumber(t.tv_sec) * 1000000 + tonumber(t.tv_nsec) / 1000
end

local threads = {}
local limit = %(per_thread)d

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  wrk.method = "POST"
  wrk.body = %(body)s
  wrk.headers["Content-Type"] = "application/json"
  responses = 0
  bad = 0
  started_us = now_us()
  stopped_us = 0
end

function response(status, headers, body)
  responses = responses + 1
  if status ~= 200 then
    bad = bad + 1
  end
  if responses == limit then
    stopped_us = now_us()
    wrk.thread:stop()
  end
end

function done(summary, latency, requests)
  local total, non200, first, last = 0, 0, math.huge, 0
  for _, t in ipairs(threads) do
    total = total + t:get("responses")
    non200 = non200 + t:get("bad")
    first = math.min(first, t:get("started_us"))
    local stopped = t:get("stopped_us")
    if stopped == 0 then
      stopped = now_us()  -- did not reach its share (calibration runs)
    end
    last = math.max(last, stopped)
  end
  local e = summary.errors
  io.write(string.format(
    "RESULT responses=%%d non200=%%d duration_us=%%d p50_us=%%d p99_us=%%d " ..
    "connect=%%d read=%%d write=%%d status=%%d timeout=%%d\n",
    total, non200, last - first, latency:percentile(50),
    latency:percentile(99), e.connect, e.read, e.write, e.status, e.timeout))
end
"""


def lua_string(text):
    return "[==[" + text + "]==]"


def read_npy_f32(path):
    with open(path, "rb") as f:
        data = f.read()
    header_length = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + header_length].decode("latin1")
    shape = tuple(int(d) for d in re.search(r"\(([^)]*)\)", header).group(1)
                  .replace(" ", "").split(",") if d)
    count = 1
    for d in shape:
        count *= d
    return list(shape), list(struct.unpack(
        "<%df" % count, data[10 + header_length:10 + header_length + 4 * count]))


def vm_rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def metrics(port):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/metrics")
    text = connection.getresponse().read().decode()
    connection.close()
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
    return values


def run_wrk(args, port, script_path, seconds):
    duration = "%ds" % seconds  # the script stops each thread at its share
    command = ["wrk", "-t%d" % args.threads, "-c%d" % args.connections,
               "-d" + duration, "--timeout", "10s", "-s", script_path,
               "http://127.0.0.1:%d/v1/models/mlp:invoke/predict" % port]
    output = subprocess.run(command, check=True, capture_output=True,
                            text=True).stdout
    match = re.search(r"RESULT (.*)", output)
    if not match:
        sys.exit("wrk printed no RESULT line:\n" + output)
    result = {k: int(v) for k, v in
              (item.split("=") for item in match.group(1).split())}
    result["errors"] = (result["non200"] + result["connect"] + result["read"] +
                        result["write"] + result["timeout"])
    result["req_per_s"] = result["responses"] / (result["duration_us"] / 1e6)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="local-task")
    parser.add_argument("--task_workers", type=int, default=0)
    parser.add_argument("--ceiling-runs", type=int, default=5)
    args = parser.parse_args()

    build = os.path.abspath(args.build)
    compile_tool = os.path.join(build, "compiler/tools/strata-compile/strata-compile")
    server_tool = os.path.join(build, "samples/service/strata-service")
    inprocess_tool = os.path.join(build, "bench/service/inprocess_calls")
    for tool in (compile_tool, server_tool, inprocess_tool):
        if not os.access(tool, os.X_OK):
            sys.exit("missing %s: build with the compiler and the service" % tool)
    if not shutil.which("wrk"):
        sys.exit("wrk is missing: apt-get install wrk (scripts/setup.sh)")

    work = tempfile.mkdtemp(prefix="strata-bench-service-")
    try:
        vmfb = os.path.join(work, "mlp.vmfb")
        subprocess.run([compile_tool, "--async-exports",
                        os.path.join(ROOT, "samples/mlp/mlp.mlir"), "-o", vmfb],
                       check=True)
        input_npy = os.path.join(ROOT, "samples/mlp/input.npy")
        shape, data = read_npy_f32(input_npy)
        body = json.dumps({"inputs": [{"shape": shape, "dtype": "f32",
                                       "data": data}]})
        half = args.requests // 2
        script_path = os.path.join(work, "predict.lua")
        with open(script_path, "w") as f:
            f.write(WRK_SCRIPT % {"per_thread": half // args.threads,
                                  "body": lua_string(body)})
        warmup_path = os.path.join(work, "warmup.lua")
        with open(warmup_path, "w") as f:
            f.write(WRK_SCRIPT % {"per_thread": 1 << 40,
                                  "body": lua_string(body)})

        print("bench/service: mlp.predict (4x16xf32 -> 4x10xf32), body %d bytes, "
              "%d requests in two halves, %d connections, %d wrk threads, "
              "device %s, %d cores" % (len(body), args.requests, args.connections,
                                       args.threads, args.device, os.cpu_count()))

        server = subprocess.Popen(
            [server_tool, "--listen=127.0.0.1:0", "--device=" + args.device,
             "--task_workers=%d" % args.task_workers,
             "--max-inflight=%d" % (4 * args.connections),
             "--model", "mlp=" + vmfb],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = server.stdout.readline()
        port = int(re.search(r":(\d+) ", line).group(1))
        try:
            rss_start = vm_rss_kib(server.pid)
            # Warm-up, and the rate that sizes wrk's -d for each half.
            warmup = run_wrk(args, port, warmup_path, 2)
            seconds = int(half / max(warmup["req_per_s"], 1) * 1.5) + 2
            print("  warm-up: %d responses in 2 s, errors %d; -d%ds per half" %
                  (warmup["responses"], warmup["errors"], seconds))
            time.sleep(0.2)
            rss = [vm_rss_kib(server.pid)]
            halves = []
            for _ in range(2):
                halves.append(run_wrk(args, port, script_path, seconds))
                # Let the answers to requests wrk abandoned at its stop land.
                time.sleep(0.2)
                rss.append(vm_rss_kib(server.pid))
            served = metrics(port)
        finally:
            server.send_signal(signal.SIGTERM)
            code = server.wait(timeout=60)

        responses = sum(h["responses"] for h in halves)
        seconds = sum(h["duration_us"] for h in halves) / 1e6
        errors = sum(h["errors"] for h in halves)
        answered = sum(v for k, v in served.items()
                       if k.startswith("strata_service_requests_total"))
        ok_answers = served.get('strata_service_requests_total{code="200"}', 0)
        for i, h in enumerate(halves):
            print("  half %d: %6d responses in %.3f s = %8.0f req/s, p50 %.2f ms, "
                  "p99 %.2f ms, errors %d (non-200 %d, connect %d, read %d, "
                  "write %d, timeout %d)" % (
                      i + 1, h["responses"], h["duration_us"] / 1e6,
                      h["req_per_s"], h["p50_us"] / 1e3, h["p99_us"] / 1e3,
                      h["errors"], h["non200"], h["connect"], h["read"],
                      h["write"], h["timeout"]))
        print("service:    %d responses in %.3f s = %.0f req/s, errors %d" %
              (responses, seconds, responses / seconds, errors))
        # wrk stops a thread once it has its share (and the warm-up at its
        # -d), abandoning the requests still open on its connections: the
        # server answers those too, so they count as abandoned, not lost.
        print("            server answered %d (200: %d), in flight at the end %d; "
              "abandoned by wrk at its stops: %d (at most %d); lost: %d" % (
                  answered, ok_answers,
                  served.get("strata_service_inflight_calls", -1),
                  ok_answers - responses - warmup["responses"],
                  3 * args.connections,
                  max(0, responses + warmup["responses"] - ok_answers) +
                  int(served.get("strata_service_inflight_calls", 0))))
        growth = (rss[2] - rss[1]) / rss[1] * 100 if rss[1] else 0
        print("server RSS: %d KiB at start, %d KiB after the warm-up, %d KiB "
              "after half 1, %d KiB after half 2: %+.2f%% between the halves; "
              "exit status %s" % (rss_start, rss[0], rss[1], rss[2], growth, code))

        body_path = os.path.join(work, "request.json")
        with open(body_path, "w") as f:
            f.write(body)
        service_rate = responses / seconds
        for label, extra in (("in-process", []),
                             ("in-process + JSON", ["--json-body=" + body_path])):
            # A ceiling: the best of --ceiling-runs runs (a run is short,
            # and a busy machine only ever makes it slower).
            runs = [json.loads(subprocess.run(
                [inprocess_tool, vmfb, "predict", "@" + input_npy,
                 "--calls=%d" % args.requests,
                 "--in-flight=%d" % args.connections, "--device=" + args.device,
                 "--task_workers=%d" % args.task_workers] + extra,
                check=True, capture_output=True, text=True).stdout)
                for _ in range(args.ceiling_runs)]
            ceiling = max(runs, key=lambda r: r["calls_per_s"])
            print("%s: %d calls in %.3f s = %.0f calls/s, p50 %.3f ms, "
                  "p99 %.3f ms (best of %d runs: %s calls/s; %d in flight on "
                  "one loop, async entry %s, failed %d)" %
                  (label, ceiling["calls"], ceiling["seconds"],
                   ceiling["calls_per_s"], ceiling["p50_us"] / 1e3,
                   ceiling["p99_us"] / 1e3, len(runs),
                   " ".join("%.0f" % r["calls_per_s"] for r in runs),
                   ceiling["in_flight"], bool(ceiling["async_entry"]),
                   sum(r["failed"] for r in runs)))
            print("ratio service/%s: %.3f" %
                  (label, service_rate / ceiling["calls_per_s"]))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
