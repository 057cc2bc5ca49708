#!/usr/bin/env python3
"""compiled_batch_test.py - dynamic batching on a model compiled from ONNX
with a symbolic batch, as a user would serve it.

Writes an ONNX model (y = x @ W + b, x of shape [N, 4], W 4x3 and b fixed;
z = relu(x) summed over its row, [N, 1]) with --onnx-python's onnx,
compiles it with strata-compile (which keeps N symbolic), lays out a
repository with a batching config.json, starts strata-serve on it and
sends 48 concurrent clients x 4 requests of 1-3 rows over REST. Every
answer is checked value by value against a reference computed here, the
metadata shows -1 for N, and /metrics shows the requests ran in fewer
calls than requests.

Batch failure isolation: --checked-mlir (main(x) = 2 * x, failing when
an element of x is negative) compiled and served with batching; in each
of 4 rounds 8 concurrent requests gather into batches, one of them with a
negative value: it alone fails, with the model's message; the others get
their values. /metrics counts the reruns (each request of a failed batch
at most once) and the executions they cost.

Compiling model.onnx at load: the same repository holds onnxlin/1/
model.onnx (the linear model, compiled by the server into --compile-cache)
and onnxbad/1/model.onnx (not a model): onnxlin becomes ready and answers
right, onnxbad is reported with the compiler's message while the others
serve; onnxlin's model.onnx changed and loaded again replaces its cache
entry (the old one is pruned); onnxseq/1/model.onnx (a sequence input)
compiles and is refused at load, the reason naming the sequence. A second
server, whose --compiler is a wrapper that sleeps before
compiling: /v2/health/live keeps answering during the compile while
ready says 503; a load again hits the cache (no compile); a new version
whose compile outlasts --compile-timeout is refused with the reason while
the old version serves; an unload during a compile cancels it; SIGTERM
during a compile exits 0 at once. A third
with --compiler= reports the model.onnx as not loadable, saying why.

  compiled_batch_test.py --server=PATH --compile=STRATA_COMPILE
      --onnx-python=PYTHON3 --checked-mlir=MLIR --work=DIR
      [--server-compiles]  (the server was built with the compiler)
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
import threading
import time

FAILURES = []

W = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 1.0, 0.75], [0.125, 3.0, -1.25]]
B = [0.1, -0.2, 0.3]

MAKE_MODEL = r"""
import sys
import onnx
from onnx import TensorProto, helper
W, B = %r, %r
weights = helper.make_tensor("W", TensorProto.FLOAT, [4, 3],
                             [v for row in W for v in row])
bias = helper.make_tensor("B", TensorProto.FLOAT, [3], B)
axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "W"], ["xw"]),
     helper.make_node("Add", ["xw", "B"], ["y"]),
     helper.make_node("Relu", ["x"], ["r"]),
     helper.make_node("ReduceSum", ["r", "axes"], ["z"], keepdims=1)],
    "batch", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                            ["N", 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3]),
     helper.make_tensor_value_info("z", TensorProto.FLOAT, ["N", 1])],
    initializer=[weights, bias, axes])
onnx.save(helper.make_model(graph, opset_imports=[
    helper.make_opsetid("", 17)]), sys.argv[1])
""" % (W, B)


MAKE_DOUBLE = r"""
import sys
import onnx
from onnx import TensorProto, helper
graph = helper.make_graph(
    [helper.make_node("Add", ["x", "x"], ["y"])],
    "double", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                             ["N", 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])])
onnx.save(helper.make_model(graph, opset_imports=[
    helper.make_opsetid("", 17)]), sys.argv[1])
"""

# A model with a sequence input (SplitToSequence's inverse): served by no
# protocol route, so refused at load once compiled.
MAKE_SEQUENCE = r"""
import sys
import onnx
from onnx import TensorProto, helper
seq = helper.make_sequence_type_proto(
    helper.make_tensor_type_proto(TensorProto.FLOAT, [None, 4]))
graph = helper.make_graph(
    [helper.make_node("ConcatFromSequence", ["pieces"], ["x"], axis=0)],
    "seq", [helper.make_value_info("pieces", seq)],
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 4])])
onnx.save(helper.make_model(graph, opset_imports=[
    helper.make_opsetid("", 17)]), sys.argv[1])
"""


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        FAILURES.append(what)
    return condition


def f32(value):
    return struct.unpack("<f", struct.pack("<f", value))[0]


def reference(rows):
    y, z = [], []
    for row in rows:
        for j in range(3):
            acc = f32(0.0)
            for k in range(4):
                acc = f32(acc + f32(row[k] * W[k][j]))
            y.append(f32(acc + f32(B[j])))
        z.append(f32(sum(max(v, 0.0) for v in row)))
    return y, z


def close(got, want):
    return len(got) == len(want) and all(
        abs(g - w) <= 1e-4 * max(1.0, abs(w)) for g, w in zip(got, want))


def request(port, method, path, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request(method, path,
                           body=None if body is None else json.dumps(body))
        response = connection.getresponse()
        data = response.read().decode()
        try:
            return response.status, json.loads(data)
        except ValueError:
            return response.status, data
    finally:
        connection.close()


def checked_metrics(port):
    status, text = request(port, "GET", "/metrics")
    counts = {}
    for name in ["inference_count", "execution_count", "rerun_count",
                 "request_success", "request_failure"]:
        found = re.search(r'strata_serve_%s_total\{model="checked",'
                          r'version="1"\} (\d+)' % name, text)
        counts[name] = int(found.group(1)) if found else 0
    return counts


def check_isolation(port):
    """A batch failing on one request's data fails that request only."""
    for round_index in range(4):
        bad = (3 * round_index + 1) % 8
        before = checked_metrics(port)
        answers = {}
        lock = threading.Lock()

        def client(k):
            x = [[k + 0.5, k + 1.0, k * 2.0]]
            if k == bad:
                x[0][round_index % 3] = -1.5
            status, body = request(port, "POST", "/v2/models/checked/infer", {
                "id": str(k), "inputs": [{"name": "input0", "shape": [1, 3],
                                          "datatype": "FP32", "data": x}]})
            with lock:
                answers[k] = (x, status, body)

        threads = [threading.Thread(target=client, args=(k,))
                   for k in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wrong = []
        for k, (x, status, body) in sorted(answers.items()):
            if k == bad:
                error = body.get("error", "") if isinstance(body, dict) else ""
                if not (status == 500 and
                        "checked.main: an input is negative" in error and
                        "a batch of" not in error):
                    wrong.append((k, status, str(body)[:200]))
            elif not (status == 200 and body["id"] == str(k) and
                      body["outputs"][0]["data"] == [2 * v for v in x[0]]):
                wrong.append((k, status, str(body)[:200]))
        after = checked_metrics(port)
        delta = {name: after[name] - before[name] for name in after}
        batches = delta["execution_count"] - delta["rerun_count"]
        check(not wrong and len(answers) == 8,
              "round %d: request %d (a negative value) fails alone with the "
              "model's message, the other 7 get 2 * x %s" %
              (round_index + 1, bad, wrong[:3]))
        # The failed batch's requests ran again alone, each once: at most
        # the batch's size (8) more calls; every request answered once.
        check(delta["request_success"] == 7 and
              delta["request_failure"] == 1 and
              delta["inference_count"] == 8 and
              batches < 8 and 2 <= delta["rerun_count"] <= 8,
              "round %d: 8 requests in %d batch(es) and %d rerun(s) %s" %
              (round_index + 1, batches, delta["rerun_count"], delta))
    # A round without a bad request: no reruns.
    before = checked_metrics(port)
    results = []

    def good(k):
        status, body = request(port, "POST", "/v2/models/checked/infer", {
            "inputs": [{"name": "input0", "shape": [1, 3],
                        "datatype": "FP32", "data": [k, k, k]}]})
        results.append(status == 200 and
                       body["outputs"][0]["data"] == [2 * k] * 3)

    threads = [threading.Thread(target=good, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    after = checked_metrics(port)
    check(results == [True] * 8 and
          after["rerun_count"] == before["rerun_count"] and
          after["execution_count"] - before["execution_count"] < 8,
          "8 good requests: batched, no rerun")


def wait_state(port, name, limit=300):
    """Polls /v2/repository/index until model name is not compiling."""
    deadline = time.monotonic() + limit
    while True:
        status, index = request(port, "POST", "/v2/repository/index")
        states = {m["name"]: m for m in index} if status == 200 else {}
        state = states.get(name, {})
        if not state.get("reason", "").startswith("compiling") or \
                time.monotonic() > deadline:
            return state
        time.sleep(0.2)


def check_compiled_at_load(port, cache):
    state = wait_state(port, "onnxlin")
    check(state.get("state") == "READY",
          "model.onnx compiled at load: READY %s" % state)
    rows = [[1.0, -2.0, 3.5, 0.25], [-1.5, 0.5, 2.0, -3.0], [0, 1, 0, 1]]
    status, body = request(port, "POST", "/v2/models/onnxlin/infer", {
        "inputs": [{"name": "x", "shape": [3, 4], "datatype": "FP32",
                    "data": rows}]})
    y, z = reference(rows)
    check(status == 200 and close(body["outputs"][0]["data"], y) and
          close(body["outputs"][1]["data"], z),
          "the model compiled at load answers right: %d %s" %
          (status, str(body)[:200]))
    state = wait_state(port, "onnxbad")
    check(state.get("state") == "UNAVAILABLE" and
          "strata-compile failed" in state.get("reason", "") and
          "not a valid ONNX model" in state.get("reason", ""),
          "a broken model.onnx: its reason is the compiler's message %s" %
          state)
    state = wait_state(port, "onnxseq")
    check(state.get("state") == "UNAVAILABLE" and
          "function 'main' takes argument 0 ('pieces'), list<?x4xf32> (an "
          "ONNX sequence); the Open Inference Protocol has tensors only" in
          state.get("reason", ""),
          "a model.onnx with a sequence input: compiled, refused at load "
          "naming it %s" % state)
    status, body = request(port, "POST", "/v2/models/linear/infer", {
        "inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP32",
                    "data": [rows[0]]}]})
    check(status == 200 and close(body["outputs"][0]["data"],
                                  reference([rows[0]])[0]),
          "another model serves beside the broken one")
    status, body = request(port, "GET", "/v2/health/ready")
    check(status == 503, "not ready while a model.onnx does not compile")
    cached = sorted(os.listdir(cache))
    check(any(re.match(r"onnxlin\.[0-9a-f]{16}\.vmfb$", f) for f in cached)
          and any(re.match(r"onnxbad\.[0-9a-f]{16}\.vmfb\.log$", f)
                  for f in cached),
          "--compile-cache holds the module and the failed compile's log %s"
          % cached)


def check_cache_pruned(args, port, cache, onnx_path):
    """A changed model.onnx, loaded again: compiled under its new key, and
    the old entry of that model leaves the cache (one entry per model)."""
    def entries():
        return sorted(f for f in os.listdir(cache)
                      if re.match(r"onnxlin\.[0-9a-f]{16}\.vmfb", f))
    before = entries()
    subprocess.run([args.onnx_python, "-c", MAKE_DOUBLE, onnx_path],
                   check=True, timeout=120)
    status, body = request(port, "POST",
                           "/v2/repository/models/onnxlin/load")
    served, answer = request(port, "POST", "/v2/models/onnxlin/infer", {
        "inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP32",
                    "data": [[1, 2, 3, 4]]}]})
    after = entries()
    check(status == 200 and served == 200 and
          close(answer["outputs"][0]["data"], [2, 4, 6, 8]) and
          len(before) == 1 and len(after) == 1 and after != before,
          "a changed model.onnx: compiled again, the old cache entry "
          "pruned: %s -> %s (%s)" % (before, after, str(answer)[:120]))


def start(command):
    process = subprocess.Popen(command, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    match = re.search(r"listening on http://[^:]+:(\d+)", line)
    if not match:
        process.kill()
        raise RuntimeError("the server did not start: %r %s" %
                           (line, process.stderr.read()))
    return process, int(match.group(1))


def stop(process, limit=30):
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return None


def run_slow_compiles(args, root, onnx_path):
    """A server whose compiler sleeps first (as long as SLEEP says)."""
    repo = os.path.join(root, "slow-repo")
    os.makedirs(os.path.join(repo, "slow", "1"))
    shutil.copy(onnx_path, os.path.join(repo, "slow", "1", "model.onnx"))
    sleep_file = os.path.join(root, "sleep")
    runs_file = os.path.join(root, "runs")
    with open(sleep_file, "w") as f:
        f.write("2")
    wrapper = os.path.join(root, "slow-compile.sh")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\necho run >> '%s'\nsleep $(cat '%s')\n"
                "exec '%s' \"$@\"\n" % (runs_file, sleep_file, args.compile))
    os.chmod(wrapper, 0o755)
    process, port = start([args.server, "--listen=127.0.0.1:0",
                           "--model-repository=" + repo,
                           "--compiler=" + wrapper,
                           "--compile-timeout=5000"])
    try:
        slowest = 0.0
        states = set()
        for _ in range(10):
            began = time.monotonic()
            status, body = request(port, "GET", "/v2/health/live")
            slowest = max(slowest, time.monotonic() - began)
            ready, _ = request(port, "GET", "/v2/health/ready")
            _, index = request(port, "POST", "/v2/repository/index")
            states.add((status, ready, index[0].get("reason", "")[:9]))
            time.sleep(0.1)
        check(states == {(200, 503, "compiling")} and slowest < 0.5,
              "during a compile: live 200 (slowest %.3f s), ready 503, "
              "the index says compiling %s" % (slowest, states))
        state = wait_state(port, "slow")
        status, body = request(port, "POST", "/v2/models/slow/infer", {
            "inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP32",
                        "data": [[1, 2, 3, 4]]}]})
        check(state.get("state") == "READY" and status == 200 and
              close(body["outputs"][0]["data"],
                    reference([[1, 2, 3, 4]])[0]),
              "compiled by the wrapper: ready and right %s" % state)
        began = time.monotonic()
        status, body = request(port, "POST",
                               "/v2/repository/models/slow/load")
        took = time.monotonic() - began
        with open(runs_file) as f:
            runs = len(f.read().split())
        check(status == 200 and runs == 1 and took < 2,
              "a load again hits the cache: %d, %d compile(s), %.2f s" %
              (status, runs, took))
        # Version 2 (another model: y = x + x) outlasts --compile-timeout.
        with open(sleep_file, "w") as f:
            f.write("30")
        os.makedirs(os.path.join(repo, "slow", "2"))
        subprocess.run([args.onnx_python, "-c", MAKE_DOUBLE, os.path.join(
            repo, "slow", "2", "model.onnx")], check=True, timeout=120)
        began = time.monotonic()
        status, body = request(port, "POST",
                               "/v2/repository/models/slow/load")
        took = time.monotonic() - began
        served, answer = request(port, "POST", "/v2/models/slow/infer", {
            "inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP32",
                        "data": [[1, 2, 3, 4]]}]})
        check(status == 400 and "did not finish within "
              "--compile-timeout=5000 ms" in body.get("error", "") and
              4.5 < took < 20 and served == 200 and
              answer["model_version"] == "1",
              "a compile past --compile-timeout: refused after %.1f s (%s), "
              "version 1 still serves" % (took, body))
        # An unload while a compile runs cancels it: the load waiting for
        # it is refused, the model is unloaded.
        loads = []
        thread = threading.Thread(target=lambda: loads.append(request(
            port, "POST", "/v2/repository/models/slow/load")))
        thread.start()
        time.sleep(1)
        status, body = request(port, "POST",
                               "/v2/repository/models/slow/unload")
        thread.join(timeout=30)
        _, index = request(port, "POST", "/v2/repository/index")
        served, _ = request(port, "POST", "/v2/models/slow/infer", {
            "inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP32",
                        "data": [[1, 2, 3, 4]]}]})
        check(status == 200 and loads and loads[0][0] == 400 and
              "unloaded while compiling" in loads[0][1].get("error", "") and
              index[0].get("reason") == "unloaded" and served == 400,
              "an unload during a compile cancels it: %s, the load %s, %s" %
              (status, loads, index))
        # SIGTERM while a compile runs: the load is answered 503 and the
        # server exits 0 at once.
        loads = []
        thread = threading.Thread(target=lambda: loads.append(request(
            port, "POST", "/v2/repository/models/slow/load")))
        thread.start()
        time.sleep(1)
        began = time.monotonic()
        code = stop(process)
        took = time.monotonic() - began
        thread.join(timeout=30)
        check(code == 0 and took < 5 and loads and loads[0][0] == 503 and
              "shutting down" in loads[0][1].get("error", ""),
              "SIGTERM during a compile: exit %s after %.1f s, the load "
              "answered %s" % (code, took, loads))
    finally:
        if process.poll() is None:
            stop(process)
    # --compiler= turns compiling at load off: the model is not loadable.
    process, port = start([args.server, "--listen=127.0.0.1:0",
                           "--model-repository=" + repo, "--compiler="])
    try:
        status, index = request(port, "POST", "/v2/repository/index")
        check(status == 200 and index[0]["state"] == "UNAVAILABLE" and
              "compiling model.onnx at load is off (--compiler=)" in
              index[0].get("reason", ""),
              "--compiler=: the model.onnx is reported not loadable %s" %
              index)
    finally:
        check(stop(process) == 0, "--compiler=: exit status 0")


def run(args):
    root = os.path.join(args.work, "compiled-batch")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "repo", "linear", "1"))
    onnx_path = os.path.join(root, "linear.onnx")
    subprocess.run([args.onnx_python, "-c", MAKE_MODEL, onnx_path],
                   check=True, timeout=120)
    subprocess.run([args.compile, "--async-exports", onnx_path, "-o",
                    os.path.join(root, "repo", "linear", "1", "model.vmfb")],
                   check=True, timeout=600)
    with open(os.path.join(root, "repo", "linear", "config.json"), "w") as f:
        json.dump({"max_batch_size": 16, "dynamic_batching":
                   {"max_queue_delay_microseconds": 5000}}, f)
    os.makedirs(os.path.join(root, "repo", "checked", "1"))
    subprocess.run([args.compile, "--async-exports", args.checked_mlir, "-o",
                    os.path.join(root, "repo", "checked", "1", "model.vmfb")],
                   check=True, timeout=600)
    # A long delay, so that each round's 8 requests gather into batches.
    with open(os.path.join(root, "repo", "checked", "config.json"),
              "w") as f:
        json.dump({"max_batch_size": 8, "dynamic_batching":
                   {"max_queue_delay_microseconds": 200000}}, f)
    # model.onnx files, compiled by the server at load.
    os.makedirs(os.path.join(root, "repo", "onnxlin", "1"))
    shutil.copy(onnx_path, os.path.join(root, "repo", "onnxlin", "1",
                                        "model.onnx"))
    with open(os.path.join(root, "repo", "onnxlin", "config.json"),
              "w") as f:
        json.dump({"max_batch_size": 16, "dynamic_batching":
                   {"max_queue_delay_microseconds": 5000}}, f)
    os.makedirs(os.path.join(root, "repo", "onnxbad", "1"))
    with open(os.path.join(root, "repo", "onnxbad", "1", "model.onnx"),
              "wb") as f:
        f.write(b"\x08\x07 not an ONNX model")
    os.makedirs(os.path.join(root, "repo", "onnxseq", "1"))
    subprocess.run([args.onnx_python, "-c", MAKE_SEQUENCE, os.path.join(
        root, "repo", "onnxseq", "1", "model.onnx")], check=True, timeout=120)
    cache = os.path.join(root, "cache")
    os.makedirs(cache)
    command = [args.server, "--listen=127.0.0.1:0",
               "--model-repository=" + os.path.join(root, "repo"),
               "--compile-cache=" + cache]
    if not args.server_compiles:
        command.append("--compiler=" + args.compile)
    process = subprocess.Popen(command, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        match = re.search(r"listening on http://[^:]+:(\d+)", line)
        if not check(match is not None, "the server starts: %r" % line):
            return
        port = int(match.group(1))
        status, metadata = request(port, "GET", "/v2/models/linear")
        check(status == 200 and metadata["inputs"] == [
            {"name": "x", "datatype": "FP32", "shape": [-1, 4]}] and
              metadata["outputs"] == [
            {"name": "y", "datatype": "FP32", "shape": [-1, 3]},
            {"name": "z", "datatype": "FP32", "shape": [-1, 1]}],
              "metadata from the compiled model: names, -1 for N %s" %
              metadata)
        errors = []
        lock = threading.Lock()

        def client(k):
            for r in range(4):
                count = 1 + (k + r) % 3
                rows = [[(k * 7 + r * 3 + i * 5 + j) % 11 - 5.5 + 0.25 * j
                         for j in range(4)] for i in range(count)]
                ident = "k%d-r%d" % (k, r)
                status, body = request(port, "POST", "/v2/models/linear/infer", {
                    "id": ident, "inputs": [
                        {"name": "x", "shape": [count, 4],
                         "datatype": "FP32", "data": rows}]})
                y, z = reference(rows)
                ok = (status == 200 and body["id"] == ident and
                      body["outputs"][0]["shape"] == [count, 3] and
                      close(body["outputs"][0]["data"], y) and
                      body["outputs"][1]["shape"] == [count, 1] and
                      close(body["outputs"][1]["data"], z))
                if not ok:
                    with lock:
                        errors.append((ident, status, str(body)[:200]))

        threads = [threading.Thread(target=client, args=(k,))
                   for k in range(48)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        check(not errors, "48 concurrent clients x 4 requests of 1-3 rows: "
              "every answer its own, value by value %s" % errors[:3])
        status, text = request(port, "GET", "/metrics")
        counts = {}
        for name in ["inference_count", "execution_count"]:
            found = re.search(r'strata_serve_%s_total\{model="linear",'
                              r'version="1"\} (\d+)' % name, text)
            counts[name] = int(found.group(1)) if found else None
        check(counts["inference_count"] == 192 and
              counts["execution_count"] is not None and
              counts["execution_count"] < 192,
              "192 requests ran in %s calls of the compiled model" %
              counts["execution_count"])
        check_isolation(port)
        check_compiled_at_load(port, cache)
        check_cache_pruned(args, port, cache, os.path.join(
            root, "repo", "onnxlin", "1", "model.onnx"))
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            code = None
        check(code == 0, "SIGTERM: exit status 0 (got %s)" % code)
    run_slow_compiles(args, root, onnx_path)


def main():
    parser = argparse.ArgumentParser()
    for flag in ["--server", "--compile", "--onnx-python", "--checked-mlir",
                 "--work"]:
        parser.add_argument(flag, required=True)
    parser.add_argument("--server-compiles", action="store_true")
    args = parser.parse_args()
    run(args)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
