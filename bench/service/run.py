#!/usr/bin/env python3
"""run.py - load test of tools/strata-serve (a benchmark, not a test).

Compiles samples/mlp with --async-exports, starts strata-serve on
loopback and, after a warm-up, runs --rounds rounds. Each round, back to
back (interleaved, so a busy spell on this shared machine hits all of
them):
  service    --requests/--rounds POST /v1/models/mlp:invoke/predict (the
             MLP input as JSON) with wrk at --connections connections (a
             Lua script stops each wrk thread after its share);
  /healthz   as many GET /healthz with the same wrk settings: an answer
             with no inference and no JSON, the most any HTTP/1.1 answer
             reaches on this machine under this load;
  in-process the same function through the embedding API with as many
             calls in flight on one loop (build/bench/service/
             inprocess_calls): the ceiling;
  + JSON     the same, with the service's JSON decode and encode of each
             request (inprocess_calls --json-body).
It prints each round, the medians, the median of each round's ratios,
errors and requests lost (answered by the server but not seen by wrk, or
still in flight at the end), and the server's VmRSS after the warm-up, after
the first half of the rounds and after the last.

  bench/service/run.py --build=build [--requests=20000] [--rounds=4]
      [--connections=64] [--threads=2] [--pipeline=1] [--device=local-task]
      [--task_workers=0]

--pipeline=N sends N requests per write on each connection (HTTP/1.1
pipelining; the server answers them in order).
"""
import argparse
import http.client
import json
import os
import re
import resource
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
  local one
  if %(post)s then
    one = wrk.format("POST", nil, {["Content-Type"] = "application/json"},
                     %(body)s)
  else
    one = wrk.format("GET")
  end
  batch = string.rep(one, %(pipeline)d)
  responses = 0
  bad = 0
  started_us = now_us()
  stopped_us = 0
end

function request()
  return batch
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


def run_wrk(args, port, server_pid, script_path, seconds, path):
    duration = "%ds" % seconds  # the script stops each thread at its share
    command = ["wrk", "-t%d" % args.threads, "-c%d" % args.connections,
               "-d" + duration, "--timeout", "10s", "-s", script_path,
               "http://127.0.0.1:%d%s" % (port, path)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_before = thread_cpu_ns(server_pid)
    output = subprocess.run(command, check=True, capture_output=True,
                            text=True).stdout
    server_after = thread_cpu_ns(server_pid)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    match = re.search(r"RESULT (.*)", output)
    if not match:
        sys.exit("wrk printed no RESULT line:\n" + output)
    result = {k: int(v) for k, v in
              (item.split("=") for item in match.group(1).split())}
    result["errors"] = (result["non200"] + result["connect"] + result["read"] +
                        result["write"] + result["timeout"])
    result["req_per_s"] = result["responses"] / (result["duration_us"] / 1e6)
    # CPU time per response, in microseconds: wrk's (its threads stop at
    # their share; the main thread only sleeps) and the server's.
    result["wrk_cpu_us"] = ((after.ru_utime + after.ru_stime) -
                            (before.ru_utime + before.ru_stime)) * 1e6 / max(
                                result["responses"], 1)
    result["server_cpu_us"] = (server_after - server_before) / 1e3 / max(
        result["responses"], 1)
    return result


def thread_cpu_ns(pid):
    """Time on a CPU of all of pid's threads (schedstat, in ns)."""
    total = 0
    for task in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, task)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass  # a thread that just ended
    return total


def median(values):
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2


PREDICT = "/v1/models/mlp:invoke/predict"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--requests", type=int, default=20000,
                        help="predict requests in all (split over the rounds)")
    parser.add_argument("--rounds", type=int, default=4,
                        help="interleaved rounds (even: RSS is compared "
                             "between the halves)")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--pipeline", type=int, default=1,
                        help="requests per write on a connection")
    parser.add_argument("--device", default="local-task")
    parser.add_argument("--task_workers", type=int, default=0)
    args = parser.parse_args()
    if args.rounds < 2 or args.rounds % 2:
        parser.error("--rounds must be even and at least 2")
    if args.pipeline < 1:
        parser.error("--pipeline must be at least 1")

    build = os.path.abspath(args.build)
    compile_tool = os.path.join(build, "compiler/tools/strata-compile/strata-compile")
    server_tool = os.path.join(build, "tools/strata-serve/strata-serve")
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
        body_path = os.path.join(work, "request.json")
        with open(body_path, "w") as f:
            f.write(body)
        per_round = args.requests // args.rounds

        def script(name, post, per_thread):
            path = os.path.join(work, name)
            with open(path, "w") as f:
                f.write(WRK_SCRIPT % {"per_thread": per_thread,
                                      "body": lua_string(body),
                                      "post": "true" if post else "false",
                                      "pipeline": args.pipeline})
            return path

        predict_script = script("predict.lua", True, per_round // args.threads)
        healthz_script = script("healthz.lua", False, per_round // args.threads)
        warmup_script = script("warmup.lua", True, 1 << 40)

        print("bench/service: mlp.predict (4x16xf32 -> 4x10xf32), body %d bytes, "
              "%d requests in %d rounds, %d connections, %d wrk threads, "
              "pipeline %d, device %s, %d cores" % (
                  len(body), per_round * args.rounds, args.rounds,
                  args.connections, args.threads, args.pipeline, args.device,
                  os.cpu_count()))

        def inprocess(extra):
            out = subprocess.run(
                [inprocess_tool, vmfb, "predict", "@" + input_npy,
                 "--calls=%d" % per_round,
                 "--in-flight=%d" % args.connections, "--device=" + args.device,
                 "--task_workers=%d" % args.task_workers] + extra,
                capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit("inprocess_calls failed:\n" + out.stdout + out.stderr)
            return json.loads(out.stdout)

        server = subprocess.Popen(
            [server_tool, "--listen=127.0.0.1:0", "--device=" + args.device,
             "--task_workers=%d" % args.task_workers,
             "--max-inflight=%d" % (4 * args.connections * args.pipeline),
             "--model", "mlp=" + vmfb],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = server.stdout.readline()
        port = int(re.search(r":(\d+) ", line).group(1))
        rounds = []
        try:
            rss_start = vm_rss_kib(server.pid)
            # Warm-up, and the rate that sizes wrk's -d for each run.
            warmup = run_wrk(args, port, server.pid, warmup_script, 2, PREDICT)
            seconds = int(per_round / max(warmup["req_per_s"], 1) * 3) + 2
            print("  warm-up: %d responses in 2 s, errors %d; wrk -d%ds per run" %
                  (warmup["responses"], warmup["errors"], seconds))
            time.sleep(0.2)
            rss = [vm_rss_kib(server.pid)]
            for r in range(args.rounds):
                result = {
                    "service": run_wrk(args, port, server.pid, predict_script, seconds,
                                       PREDICT),
                    "healthz": run_wrk(args, port, server.pid, healthz_script, seconds,
                                       "/healthz"),
                    "inprocess": inprocess([]),
                    "json": inprocess(["--json-body=" + body_path]),
                }
                rounds.append(result)
                s_ = result["service"]
                print("  round %d: service %6.0f req/s (p50 %.2f ms, p99 %.2f "
                      "ms, errors %d), /healthz %6.0f req/s (errors %d), "
                      "in-process %6.0f calls/s, + JSON %6.0f calls/s" % (
                          r + 1, s_["req_per_s"], s_["p50_us"] / 1e3,
                          s_["p99_us"] / 1e3, s_["errors"],
                          result["healthz"]["req_per_s"],
                          result["healthz"]["errors"],
                          result["inprocess"]["calls_per_s"],
                          result["json"]["calls_per_s"]))
                if r + 1 == args.rounds // 2 or r + 1 == args.rounds:
                    # Let the answers to requests wrk abandoned land.
                    time.sleep(0.2)
                    rss.append(vm_rss_kib(server.pid))
            served = metrics(port)
        finally:
            server.send_signal(signal.SIGTERM)
            code = server.wait(timeout=60)

        services = [r["service"] for r in rounds]
        healthz = [r["healthz"] for r in rounds]
        responses = sum(h["responses"] for h in services)
        errors = sum(h["errors"] for h in services + healthz)
        failed_calls = sum(r["inprocess"]["failed"] + r["json"]["failed"]
                           for r in rounds)
        ok_answers = served.get('strata_service_requests_total{code="200"}', 0)
        answered = sum(v for k, v in served.items()
                       if k.startswith("strata_service_requests_total"))
        seen = (responses + sum(h["responses"] for h in healthz) +
                warmup["responses"])
        in_flight_end = int(served.get("strata_service_inflight_calls", 0))
        wrk_runs = 1 + 2 * args.rounds
        # wrk stops a thread once it has its share (and the warm-up at its
        # -d), abandoning the requests still open on its connections: the
        # server answers those too, so they count as abandoned, not lost.
        print("service: %d predict responses, errors %d (wrk: non-200, "
              "connect, read, write, timeout; /healthz included), in-process "
              "calls failed %d" % (responses, errors, failed_calls))
        print("         server answered %d (200: %d), in flight at the end %d; "
              "abandoned by wrk at its stops: %d (at most %d); lost: %d" % (
                  answered, ok_answers, in_flight_end, ok_answers - seen,
                  wrk_runs * args.connections * args.pipeline,
                  max(0, seen - ok_answers) + in_flight_end))
        growth = (rss[2] - rss[1]) / rss[1] * 100 if rss[1] else 0
        print("server RSS: %d KiB at start, %d KiB after the warm-up, %d KiB "
              "after round %d, %d KiB after round %d: %+.2f%% between the "
              "halves; exit status %s" % (
                  rss_start, rss[0], rss[1], args.rounds // 2, rss[2],
                  args.rounds, growth, code))

        def rate(result):
            return result.get("req_per_s") or result["calls_per_s"]

        print("medians of %d rounds: service %.0f req/s (p50 %.2f ms, p99 %.2f "
              "ms), /healthz %.0f req/s, in-process %.0f calls/s (p50 %.3f "
              "ms), in-process + JSON %.0f calls/s" % (
                  args.rounds, median([rate(x) for x in services]),
                  median([x["p50_us"] for x in services]) / 1e3,
                  median([x["p99_us"] for x in services]) / 1e3,
                  median([rate(x) for x in healthz]),
                  median([rate(r["inprocess"]) for r in rounds]),
                  median([r["inprocess"]["p50_us"] for r in rounds]) / 1e3,
                  median([rate(r["json"]) for r in rounds])))

        print("CPU per answer (us, medians): service: server %.1f + wrk %.1f; "
              "/healthz: server %.1f + wrk %.1f; in-process: %.1f per call, "
              "+ JSON %.1f (%d cores: %.1f us of CPU per us)" % (
                  median([x["server_cpu_us"] for x in services]),
                  median([x["wrk_cpu_us"] for x in services]),
                  median([x["server_cpu_us"] for x in healthz]),
                  median([x["wrk_cpu_us"] for x in healthz]),
                  median([r["inprocess"]["cpu_us"] / r["inprocess"]["calls"]
                          for r in rounds]),
                  median([r["json"]["cpu_us"] / r["json"]["calls"]
                          for r in rounds]),
                  os.cpu_count(), os.cpu_count()))

        def ratio(a, b):
            values = [rate(r[a]) / rate(r[b]) for r in rounds]
            return "%.3f (rounds: %s)" % (
                median(values), " ".join("%.2f" % v for v in values))

        print("ratio service/in-process:        " + ratio("service", "inprocess"))
        print("ratio service/in-process + JSON: " + ratio("service", "json"))
        print("ratio service//healthz:          " + ratio("service", "healthz"))
        print("ratio /healthz/in-process:       " + ratio("healthz", "inprocess"))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
