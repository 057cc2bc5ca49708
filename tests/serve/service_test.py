#!/usr/bin/env python3
"""service_test.py - drives strata-serve over HTTP (standard library only).

Starts the server on an ephemeral port (--listen=127.0.0.1:0; the port is
read from its first line of output) with the MLP and the test model, and
checks:
  - /healthz, /metrics, and the MLP's answer against samples/mlp/expected.npy;
    Expect: 100-continue; pipelined requests answered in order;
  - integer tensors and scalars in and out;
  - dynamic shapes: any size where the signature has '?'; with --compile
    and --onnx-python, also on a model compiled from ONNX (two inputs
    sharing N);
  - 400 for malformed JSON, an unknown model or function, a wrong shape
    (also two inputs that disagree on a dimension the model names alike),
    dtype or input count; 404 for an unknown path; 413 beyond --max-body;
  - 500 for a run-time failure (integer division by zero), after which the
    server still answers;
  - 503 beyond --max-inflight=1, made deterministic by a slow call that
    /metrics shows in flight;
  - SIGTERM with calls in flight: every call is answered and the process
    exits 0;
  - 1000 concurrent requests on 1000 connections: all answered, all right.

  service_test.py --server=PATH --mlp=VMFB --test-model=VMFB \
      --input=input.npy --expected=expected.npy [--device=local-task]
      [--compile=STRATA_COMPILE --onnx-python=PYTHON3 --work=DIR]
"""
import argparse
import asyncio
import http.client
import json
import math
import os
import re
import resource
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

FAILURES = []


def check(condition, what):
    if condition:
        print("ok   " + what)
    else:
        print("FAIL " + what)
        FAILURES.append(what)
    return condition


def read_npy_f32(path):
    """(shape, values) of a little-endian float32 .npy file."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY", path
    header_length = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + header_length].decode("latin1")
    assert "'<f4'" in header, header
    shape = tuple(int(d) for d in re.search(r"\(([^)]*)\)", header).group(1)
                  .replace(" ", "").split(",") if d)
    count = 1
    for d in shape:
        count *= d
    values = struct.unpack("<%df" % count,
                           data[10 + header_length:10 + header_length + 4 * count])
    return shape, list(values)


class Server:
    def __init__(self, args, *extra):
        command = [args.server, "--listen=127.0.0.1:0",
                   "--device=" + args.device,
                   "--model", "mlp=" + args.mlp,
                   "--model=t=" + args.test_model] + list(extra)
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"listening on http://[^:]+:(\d+)", line)
        if not match:
            self.process.kill()
            raise RuntimeError("the server did not start: %r %s" %
                               (line, self.process.stderr.read()))
        self.port = int(match.group(1))
        self.terminated = False

    def terminate(self):
        self.terminated = True
        self.process.send_signal(signal.SIGTERM)

    def request(self, method, path, body=None, timeout=60):
        connection = http.client.HTTPConnection("127.0.0.1", self.port,
                                                timeout=timeout)
        try:
            headers = {"Content-Type": "application/json"} if body else {}
            if isinstance(body, (dict, list)):
                body = json.dumps(body)
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            return response.status, response.read().decode()
        finally:
            connection.close()

    def invoke(self, model, function, body, timeout=60):
        return self.request("POST", "/v1/models/%s:invoke/%s" % (model, function),
                            body, timeout)

    def metric(self, name):
        status, text = self.request("GET", "/metrics")
        for line in text.splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        return None

    def wait_in_flight(self, count, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.metric("strata_service_inflight_calls") == count:
                return True
            time.sleep(0.005)
        return False

    def stop(self):
        """SIGTERM, then the exit status (None if it hangs)."""
        if self.process.poll() is None and not self.terminated:
            self.terminate()
        try:
            return self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None
        finally:
            self.process.stdout.close()
            self.process.stderr.close()


def tensor(shape, dtype, data):
    return {"shape": list(shape), "dtype": dtype, "data": list(data)}


def spin_expected(n):
    # spin(n) = (sum of 3i for i = 1..n) mod 1000003, step by step.
    return 3 * n * (n + 1) // 2 % 1000003


def calibrate_spin(server, target_seconds=0.7):
    n = 2000000
    begin = time.monotonic()
    status, text = server.invoke("t", "spin", {"inputs": [tensor([], "i64", [n])]})
    elapsed = time.monotonic() - begin
    check(status == 200 and json.loads(text)["outputs"] ==
          [tensor([], "i64", [spin_expected(n)])],
          "t.spin(%d) in %.3f s" % (n, elapsed))
    return max(n, min(2000000000, int(n * target_seconds / max(elapsed, 1e-4))))


def close_to(actual, expected, tolerance=1e-5):
    return len(actual) == len(expected) and all(
        math.isclose(a, b, abs_tol=tolerance) for a, b in zip(actual, expected))


def test_answers(server, mlp_input, expected):
    status, body = server.request("GET", "/healthz")
    check(status == 200 and json.loads(body)["status"] == "ok", "GET /healthz")

    status, body = server.invoke("mlp", "predict", {"inputs": [mlp_input]})
    ok = status == 200
    if ok:
        output = json.loads(body)["outputs"]
        ok = (len(output) == 1 and output[0]["shape"] == [4, 10] and
              output[0]["dtype"] == "f32" and
              close_to(output[0]["data"], expected[1]))
    check(ok, "mlp.predict matches expected.npy (%d %s)" % (status, body[:80]))

    # Expect: 100-continue is answered before the body is sent.
    body = json.dumps({"inputs": [mlp_input]}).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(b"POST /v1/models/mlp:invoke/predict HTTP/1.1\r\n"
                  b"Host: x\r\nExpect: 100-continue\r\n"
                  b"Content-Length: %d\r\n\r\n" % len(body))
        interim = s.recv(100)
        s.sendall(body)
        final = b""
        while b"]}]}" not in final:
            chunk = s.recv(65536)
            if not chunk:
                break
            final += chunk
    check(interim == b"HTTP/1.1 100 Continue\r\n\r\n" and
          final.startswith(b"HTTP/1.1 200 OK"),
          "Expect: 100-continue (%r, %r)" % (interim, final[:40]))

    # Pipelining: a slow call, then a fast one, in one write; the answers
    # come back in request order.
    def post(function, payload):
        data = json.dumps(payload).encode()
        return (b"POST /v1/models/t:invoke/%s HTTP/1.1\r\nHost: x\r\n"
                b"Content-Length: %d\r\n\r\n" % (function.encode(), len(data))
                + data)
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as s:
        s.sendall(post("spin", {"inputs": [tensor([], "i64", [3000000])]}) +
                  post("divide", {"inputs": [tensor([], "i32", [9]),
                                             tensor([], "i32", [3])]}))
        received = b""
        while received.count(b"HTTP/1.1 200 OK") < 2 or not received.endswith(b"}\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            received += chunk
    first = received.find(b'"i64", "data": [%d]' % spin_expected(3000000))
    second = received.find(b'"i32", "data": [3]')
    check(0 <= first < second,
          "pipelined requests are answered in order (%r)" % received[-120:])

    status, body = server.invoke("t", "add_i32", {"inputs": [
        tensor([2, 3], "i32", [1, 2, 3, 4, 5, -6]),
        tensor([2, 3], "i32", [10, 20, 30, 40, 50, 60])]})
    check(status == 200 and json.loads(body)["outputs"] ==
          [tensor([2, 3], "i32", [11, 22, 33, 44, 55, 54])],
          "t.add_i32 on i32 tensors (%d %s)" % (status, body))

    status, body = server.invoke("t", "divide", {"inputs": [
        tensor([], "i32", [-7]), tensor([], "i32", [2])]})
    check(status == 200 and json.loads(body)["outputs"] ==
          [tensor([], "i32", [-3])],
          "t.divide on i32 scalars (%d %s)" % (status, body))


def test_errors(server, mlp_input):
    answers_400 = [1]  # the bytes that are not HTTP, below

    def expect(code, what, text, status_body):
        status, body = status_body
        if code == 400:
            answers_400[0] += 1
        message = ""
        try:
            message = json.loads(body).get("error", "")
        except ValueError:
            pass
        check(status == code and text in message,
              "%d %s: %r" % (code, what, message or body[:120]))

    expect(400, "malformed JSON", "not valid JSON",
           server.invoke("mlp", "predict", '{"inputs": [1, 2'))
    expect(400, "JSON without inputs", "\"inputs\"",
           server.invoke("mlp", "predict", {"data": []}))
    expect(400, "unknown model", "unknown model 'nope'; models: mlp, t",
           server.invoke("nope", "predict", {"inputs": [mlp_input]}))
    expect(400, "unknown function", "has no function 'guess'",
           server.invoke("mlp", "guess", {"inputs": [mlp_input]}))
    expect(400, "wrong shape", "must be 4x16xf32, got 2x16xf32",
           server.invoke("mlp", "predict", {"inputs": [
               tensor([2, 16], "f32", mlp_input["data"][:32])]}))
    expect(400, "wrong dtype", "must be 4x16xf32, got 4x16xf64",
           server.invoke("mlp", "predict", {"inputs": [
               tensor([4, 16], "f64", mlp_input["data"])]}))
    expect(400, "wrong scalar dtype", "must be a i32 scalar",
           server.invoke("t", "divide", {"inputs": [
               tensor([], "f32", [1.5]), tensor([], "i32", [2])]}))
    expect(400, "unknown dtype", "unknown dtype 'f31'",
           server.invoke("mlp", "predict", {"inputs": [
               tensor([4, 16], "f31", mlp_input["data"])]}))
    # Error texts quote what the client sent; the answer stays valid JSON
    # (quotes and control characters escaped, UTF-8 kept as it came).
    expect(400, "unknown dtype with quotes and UTF-8",
           "unknown dtype 'f\"3\u00e9\n'",
           server.invoke("mlp", "predict", {"inputs": [
               tensor([4, 16], "f\"3\u00e9\n", mlp_input["data"])]}))
    expect(400, "bytes that are not UTF-8", "not valid JSON (",
           server.invoke("mlp", "predict", b'{"inputs": [{"dtype": "\xff"}]}'))
    expect(400, "trailing bytes after the JSON value", "not valid JSON",
           server.invoke("mlp", "predict",
                         json.dumps({"inputs": [mlp_input]}) + " ]"))
    expect(400, "negative dimension", "not an array of non-negative integers",
           server.invoke("mlp", "predict", {"inputs": [
               tensor([-4, 16], "f32", mlp_input["data"])]}))
    expect(400, "fractional dimension", "not an array of non-negative integers",
           server.invoke("mlp", "predict", {"inputs": [
               tensor([4.0, 16], "f32", mlp_input["data"])]}))
    expect(400, "rank above the limit", "has rank 17, more than 16",
           server.invoke("mlp", "predict", {"inputs": [
               tensor([1] * 17, "f32", [1.0])]}))
    expect(400, "fraction for an integer", "element 0 is not an integer",
           server.invoke("t", "divide", {"inputs": [
               tensor([], "i32", [2.5]), tensor([], "i32", [2])]}))
    expect(400, "data length", "needs 64 elements",
           server.invoke("mlp", "predict", {"inputs": [
               tensor([4, 16], "f32", mlp_input["data"][:60])]}))
    expect(400, "non-numeric data", "element 3 is not a number",
           server.invoke("mlp", "predict", {"inputs": [
               tensor([4, 16], "f32", mlp_input["data"][:3] + ["x"] +
                      mlp_input["data"][4:])]}))
    expect(400, "integer out of range", "out of range for i32",
           server.invoke("t", "divide", {"inputs": [
               tensor([], "i32", [2**32]), tensor([], "i32", [2])]}))
    expect(400, "input count", "takes 1 input, got 2",
           server.invoke("mlp", "predict", {"inputs": [mlp_input, mlp_input]}))
    # Dynamic shapes: t.add_rows takes ?x3xf32 twice, both first
    # dimensions named N. Any N fits; a static dimension that differs or
    # two Ns that disagree are a 400 naming the input.
    for rows in (0, 1, 5):
        x = [float(i) for i in range(3 * rows)]
        status, body = server.invoke("t", "add_rows", {"inputs": [
            tensor([rows, 3], "f32", x), tensor([rows, 3], "f32", x)]})
        check(status == 200 and json.loads(body)["outputs"] ==
              [tensor([rows, 3], "f32", [2 * v for v in x])],
              "t.add_rows with N = %d (%d %s)" % (rows, status, body[:80]))
    expect(400, "wrong static dimension of a dynamic argument",
           "input 1 of t.add_rows must be ?x3xf32, got 2x4xf32",
           server.invoke("t", "add_rows", {"inputs": [
               tensor([2, 3], "f32", [0] * 6),
               tensor([2, 4], "f32", [0] * 8)]}))
    expect(400, "two inputs that disagree on a named dimension",
           "input 1 of t.add_rows has dimension 0 of size 5 but input 0 has "
           "dimension 0 of size 2; the model names both 'N'",
           server.invoke("t", "add_rows", {"inputs": [
               tensor([2, 3], "f32", [0] * 6),
               tensor([5, 3], "f32", [0] * 15)]}))
    expect(404, "unknown path", "no such endpoint",
           server.request("GET", "/v2/everything"))
    expect(405, "GET on an invocation", "use POST",
           server.request("GET", "/v1/models/mlp:invoke/predict"))

    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(b"\x00\x01 not http\r\n\r\n")
        reply = s.recv(1000)
    check(reply.startswith(b"HTTP/1.1 400 Bad Request") and
          b"malformed HTTP request" in reply and b"Connection: close" in reply,
          "400 for bytes that are not HTTP (%r)" % reply[-80:])

    # A run-time failure is a 500 with the runtime's error; the server
    # keeps serving.
    expect(500, "division by zero", "integer division by zero",
           server.invoke("t", "divide", {"inputs": [
               tensor([], "i32", [7]), tensor([], "i32", [0])]}))
    status, _ = server.invoke("mlp", "predict", {"inputs": [mlp_input]})
    check(status == 200, "serves after a 500")

    text = server.request("GET", "/metrics")[1]
    check(re.search(r'strata_service_requests_total\{code="400"\} %d\b' %
                    answers_400[0], text)
          and re.search(r'strata_service_requests_total\{code="500"\} 1\b', text)
          and "strata_service_invoke_duration_seconds_bucket{le=\"+Inf\"}" in text
          and "strata_service_inflight_calls 0" in text,
          "/metrics counts answers by status, latency and calls in flight")


def test_body_limit(args, mlp_input):
    server = Server(args, "--max-body=1000")
    try:
        body = json.dumps({"inputs": [mlp_input]})
        check(len(body) > 1000, "the MLP request is over 1000 bytes")
        status, text = server.invoke("mlp", "predict", body)
        check(status == 413 and "--max-body=1000" in text,
              "413 beyond --max-body (%d %s)" % (status, text))
        status, text = server.invoke("t", "divide", {"inputs": [
            tensor([], "i32", [9]), tensor([], "i32", [3])]})
        check(status == 200, "serves after a 413 (%d)" % status)
    finally:
        check(server.stop() == 0, "exits 0 on SIGTERM (--max-body)")


def test_in_flight_bound(args, mlp_input, spin_n):
    server = Server(args, "--max-inflight=1")
    try:
        slow = {}

        def call_spin():
            slow["answer"] = server.invoke("t", "spin", {"inputs": [
                tensor([], "i64", [spin_n])]}, timeout=120)

        thread = threading.Thread(target=call_spin)
        thread.start()
        check(server.wait_in_flight(1), "the slow call is in flight")
        status, text = server.invoke("mlp", "predict", {"inputs": [mlp_input]})
        check(status == 503 and "--max-inflight=1" in text,
              "503 beyond --max-inflight=1 (%d %s)" % (status, text))
        # The HTTP loop answered all this while the slow call was running
        # on the compute thread.
        check(server.metric("strata_service_inflight_calls") == 1,
              "the HTTP loop answers while the slow call runs")
        thread.join()
        status, text = slow["answer"]
        check(status == 200 and json.loads(text)["outputs"] ==
              [tensor([], "i64", [spin_expected(spin_n)])],
              "the slow call is answered (%d %s)" % (status, text))
        status, _ = server.invoke("mlp", "predict", {"inputs": [mlp_input]})
        check(status == 200, "serves once the bound is free again")
    finally:
        check(server.stop() == 0, "exits 0 on SIGTERM (--max-inflight)")


def test_drain(args, mlp_input, spin_n):
    server = Server(args)
    calls = 3
    answers = [None] * calls

    def call_spin(i):
        try:
            answers[i] = server.invoke("t", "spin", {"inputs": [
                tensor([], "i64", [spin_n + i])]}, timeout=120)
        except Exception as error:  # noqa: BLE001 - reported below
            answers[i] = (None, repr(error))

    threads = [threading.Thread(target=call_spin, args=(i,)) for i in range(calls)]
    for thread in threads:
        thread.start()
    check(server.wait_in_flight(calls), "%d slow calls in flight" % calls)
    server.terminate()
    for thread in threads:
        thread.join()
    for i, (status, text) in enumerate(answers):
        check(status == 200 and json.loads(text)["outputs"] ==
              [tensor([], "i64", [spin_expected(spin_n + i)])],
              "call %d in flight at SIGTERM is answered (%s %s)" %
              (i, status, text))
    code = server.stop()
    check(code == 0, "exits 0 after draining (exit status %s)" % code)


async def one_request(port, body):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(("POST /v1/models/mlp:invoke/predict HTTP/1.1\r\n"
                      "Host: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      "Content-Length: %d\r\nConnection: close\r\n\r\n" %
                      len(body)).encode() + body)
        await writer.drain()
        response = await reader.read()
    finally:
        writer.close()
    head, _, payload = response.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1]) if head else None
    return status, payload


async def many_requests(port, body, count):
    # Open every connection first, then send, so all are concurrent.
    return await asyncio.gather(*(one_request(port, body) for _ in range(count)),
                                return_exceptions=True)


def test_concurrent(args, mlp_input, expected, count=1000):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2 * count + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4 * count), hard))
    server = Server(args, "--max-inflight=%d" % count)
    try:
        body = json.dumps({"inputs": [mlp_input]}).encode()
        results = asyncio.run(many_requests(server.port, body, count))
        errors = [r for r in results if isinstance(r, BaseException)]
        good = 0
        for r in results:
            if isinstance(r, BaseException):
                continue
            status, payload = r
            if status == 200 and close_to(
                    json.loads(payload)["outputs"][0]["data"], expected[1]):
                good += 1
        check(not errors, "%d concurrent requests: no connection errors (%s)" %
              (count, errors[:3]))
        check(good == count, "%d concurrent requests: %d answered right" %
              (count, good))
        answered = server.metric('strata_service_requests_total{code="200"}')
        check(answered == count, "/metrics counts %s answers" % answered)
    finally:
        check(server.stop() == 0, "exits 0 on SIGTERM (concurrent)")


ONNX_ADD_N = """
import sys
import onnx
from onnx import TensorProto, helper
inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["N", 3])
          for n in ("a", "b")]
graph = helper.make_graph(
    [helper.make_node("Add", ["a", "b"], ["c"])], "g", inputs,
    [helper.make_tensor_value_info("c", TensorProto.FLOAT, ["N", 3])])
onnx.save(helper.make_model(graph, opset_imports=[
    helper.make_opsetid("", 17)]), sys.argv[1])
"""


def test_onnx_model(args):
    """A model compiled from ONNX (two inputs sharing a symbolic N, Add):
    its reflection has argN, argN.dims and argN.name; any N fits, a wrong
    static dimension or Ns that disagree are 400s naming the input."""
    base = os.path.join(args.work, "service_add_n_" + args.device)
    # The model is written by --onnx-python (a python3 with onnx): this
    # script itself uses the standard library only.
    subprocess.run([args.onnx_python, "-c", ONNX_ADD_N, base + ".onnx"],
                   check=True)
    subprocess.run([args.compile, base + ".onnx", "-o", base + ".vmfb"],
                   check=True)
    server = Server(args, "--model=onnx=" + base + ".vmfb")
    try:
        for rows in (0, 2):
            x = [float(i) for i in range(3 * rows)]
            status, body = server.invoke("onnx", "main", {"inputs": [
                tensor([rows, 3], "f32", x), tensor([rows, 3], "f32", x)]})
            check(status == 200 and json.loads(body)["outputs"] ==
                  [tensor([rows, 3], "f32", [2 * v for v in x])],
                  "a model compiled from ONNX with N = %d (%d %s)" %
                  (rows, status, body[:80]))
        status, body = server.invoke("onnx", "main", {"inputs": [
            tensor([2, 3], "f32", [0] * 6), tensor([2, 4], "f32", [0] * 8)]})
        check(status == 400 and "input 1 of onnx.main must be ?x3xf32, got "
              "2x4xf32" in body, "ONNX model, wrong static dimension: %d %s" %
              (status, body))
        status, body = server.invoke("onnx", "main", {"inputs": [
            tensor([2, 3], "f32", [0] * 6), tensor([1, 3], "f32", [0] * 3)]})
        check(status == 400 and "input 1 of onnx.main has dimension 0 of "
              "size 1 but input 0 has dimension 0 of size 2; the model names "
              "both 'N'" in body, "ONNX model, Ns that disagree: %d %s" %
              (status, body))
    finally:
        check(server.stop() == 0, "exits 0 on SIGTERM (ONNX model)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True)
    parser.add_argument("--mlp", required=True)
    parser.add_argument("--test-model", required=True)
    parser.add_argument("--input", required=True)
    parser.add_argument("--expected", required=True)
    parser.add_argument("--device", default="local-task")
    # With a strata-compile that imports ONNX: also serve a model compiled
    # from ONNX (made here with python3-onnx, in --work).
    parser.add_argument("--compile", default="")
    parser.add_argument("--onnx-python", default="")
    parser.add_argument("--work", default="")
    # spin(n) is the slow call; by default n is sized to take ~0.7 s here
    # (sanitizer builds interpret it several times slower).
    parser.add_argument("--spin", type=int, default=0)
    args = parser.parse_args()

    shape, values = read_npy_f32(args.input)
    mlp_input = tensor(shape, "f32", values)
    expected = read_npy_f32(args.expected)

    server = Server(args)
    try:
        test_answers(server, mlp_input, expected)
        test_errors(server, mlp_input)
        if not args.spin:
            args.spin = calibrate_spin(server)
    finally:
        check(server.stop() == 0, "exits 0 on SIGTERM")
    if args.compile and args.onnx_python:
        test_onnx_model(args)
    test_body_limit(args, mlp_input)
    test_in_flight_bound(args, mlp_input, args.spin)
    test_drain(args, mlp_input, args.spin)
    test_concurrent(args, mlp_input, expected)

    if FAILURES:
        print("%d checks failed:" % len(FAILURES))
        for failure in FAILURES:
            print("  " + failure)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
