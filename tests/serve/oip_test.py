#!/usr/bin/env python3
"""oip_test.py - strata-serve's Open Inference Protocol over REST, checked
against kserve/open-inference-protocol's inference_rest.md (standard
library only).

Starts the server on an ephemeral port with the modules
make_serve_modules writes (oip: a `main` with named inputs and two
outputs, an echo per datatype, a static shape; multi: several functions,
one failing at run time) and the HAL sample (an addition, without
reflection), and checks:
  - health (live, ready), server metadata, model metadata (datatype, shape
    with -1 for a dynamic dimension, names from the reflection), model
    ready;
  - infer: flat and nested data, the id echoed, requested outputs (a
    subset, in the order asked), inputs given in any order;
  - every datatype of the specification but BYTES, at its extremes, in and
    out, value by value; BYTES refused by name;
  - the binary tensor data extension: binary inputs
    (Inference-Header-Content-Length), binary outputs (per output and for
    the whole request), mixed with JSON ones;
  - each error: a 400 with {"error": ...} naming what is at fault, 404 for
    an unknown path, 405 for a wrong method, 500 for a run-time failure
    (after which the server still answers);
  - 64 concurrent clients, each request's answer checked value by value
    against its own inputs and id, in three waves; the server's resident
    memory does not grow after the first.

  oip_test.py --server=PATH --oip-model=VMFB --multi-model=VMFB
      --hal-sample=VMFB [--device=local-task]
"""
import argparse
import http.client
import json
import re
import signal
import struct
import subprocess
import sys
import threading

FAILURES = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        FAILURES.append(what)
    return condition


class Server:
    def __init__(self, args):
        command = [args.server, "--listen=127.0.0.1:0",
                   "--device=" + args.device,
                   "--model=oip=" + args.oip_model,
                   "--model=multi=" + args.multi_model,
                   "--model=add=" + args.hal_sample]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"listening on http://[^:]+:(\d+)", line)
        if not match:
            self.process.kill()
            raise RuntimeError("the server did not start: %r %s" %
                               (line, self.process.stderr.read()))
        self.port = int(match.group(1))

    def raw(self, method, path, body=None, headers=None):
        """(status, headers, body bytes)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port,
                                                timeout=60)
        try:
            if isinstance(body, str):
                body = body.encode()
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return (response.status, dict(response.getheaders()),
                    response.read())
        finally:
            connection.close()

    def get(self, path):
        status, _, body = self.raw("GET", path)
        return status, json.loads(body)

    def infer(self, model, request, blobs=None):
        """POST .../infer; request is a dict, blobs binary input data.
        Returns (status, answer dict, {output name: bytes})."""
        text = json.dumps(request).encode()
        headers = {"Content-Type": "application/json"}
        body = text
        if blobs is not None:
            headers["Inference-Header-Content-Length"] = str(len(text))
            body = text + b"".join(blobs)
        status, response_headers, data = self.raw(
            "POST", "/v2/models/%s/infer" % model, body, headers)
        return split_answer(status, response_headers, data)


def split_answer(status, headers, data):
    length = headers.get("Inference-Header-Content-Length")
    if length is None:
        return status, json.loads(data), {}
    length = int(length)
    answer = json.loads(data[:length])
    binary = {}
    offset = length
    for output in answer.get("outputs", []):
        size = output.get("parameters", {}).get("binary_data_size")
        if size is not None:
            binary[output["name"]] = data[offset:offset + size]
            offset += size
    if offset != len(data):
        binary["<trailing>"] = data[offset:]
    return status, answer, binary


# datatype -> (struct format, values at the extremes, function)
DATATYPES = {
    "BOOL": ("?", [True, False, False, True], "echo_bool"),
    "INT8": ("b", [-128, 127, 0, -1], "echo_i8"),
    "INT16": ("h", [-32768, 32767, 1, -2], "echo_i16"),
    "INT32": ("i", [-2**31, 2**31 - 1, 7, -7], "echo_i32"),
    "INT64": ("q", [-2**63, 2**63 - 1, 2**40, -3], "echo_i64"),
    "UINT8": ("B", [0, 255, 128, 1], "echo_u8"),
    "UINT16": ("H", [0, 65535, 32768, 2], "echo_u16"),
    "UINT32": ("I", [0, 2**32 - 1, 2**31, 3], "echo_u32"),
    "UINT64": ("Q", [0, 2**64 - 1, 2**63, 4], "echo_u64"),
    "FP16": ("e", [0.5, -2.0, 65504.0, 0.0009765625], "echo_f16"),
    "FP32": ("f", [1.5, -3.25, 3.4028234663852886e38, 1e-30], "echo_f32"),
    "FP64": ("d", [1e300, -2.5e-300, 0.1, 123456789.125], "echo_f64"),
}


def expect_error(server, model, request, what, pattern, blobs=None,
                 status_wanted=400):
    status, answer, _ = server.infer(model, request, blobs)
    message = answer.get("error", "") if isinstance(answer, dict) else ""
    check(status == status_wanted and set(answer) == {"error"} and
          re.search(pattern, message),
          "%s: %d %s" % (what, status, message[:160]))


def resident_kib(pid):
    """The process's resident set (VmRSS), in KiB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS for process %d" % pid)


def main_request(a, b, **extra):
    request = {"inputs": [
        {"name": "a", "shape": [len(a) // 3, 3], "datatype": "FP32", "data": a},
        {"name": "b", "shape": [len(b) // 3, 3], "datatype": "FP32", "data": b}]}
    request.update(extra)
    return request


def run(args):
    server = Server(args)
    try:
        # Health and metadata.
        status, body = server.get("/v2/health/live")
        check(status == 200 and body == {"live": True}, "GET /v2/health/live")
        status, body = server.get("/v2/health/ready")
        check(status == 200 and body == {"ready": True},
              "GET /v2/health/ready")
        status, body = server.get("/v2")
        check(status == 200 and body["name"] == "strata-serve" and
              isinstance(body["version"], str) and
              "binary_tensor_data" in body["extensions"],
              "GET /v2: server metadata %s" % body)
        status, body = server.get("/v2/models/oip")
        check(status == 200 and body == {
            "name": "oip", "platform": "strata",
            "inputs": [{"name": "a", "datatype": "FP32", "shape": [-1, 3]},
                       {"name": "b", "datatype": "FP32", "shape": [-1, 3]}],
            "outputs": [
                {"name": "a_out", "datatype": "FP32", "shape": [-1, 3]},
                {"name": "b_out", "datatype": "FP32", "shape": [-1, 3]}]},
              "model metadata of oip (main): names, -1 for N %s" % body)
        status, body = server.get("/v2/models/oip.fixed")
        check(status == 200 and body["inputs"] == [
            {"name": "input0", "datatype": "FP32", "shape": [4, 16]}] and
              body["outputs"] == [
            {"name": "output0", "datatype": "FP32", "shape": [4, 16]}],
              "model metadata of oip.fixed: static dims, default names %s"
              % body)
        status, body = server.get("/v2/models/add")
        check(status == 200 and body["inputs"][0] == {
            "name": "input0", "datatype": "", "shape": []},
              "model metadata of a function without reflection %s" % body)
        status, body = server.get("/v2/models/oip.echo_u16")
        check(status == 200 and body["inputs"] == [
            {"name": "x", "datatype": "UINT16", "shape": [-1, 2]}],
              "model metadata of oip.echo_u16: UINT16 from the reflection's "
              "element_type %s" % body)
        for function, datatype in (("echo_f8", "UINT8"), ("echo_i4", "INT8")):
            status, body = server.get("/v2/models/oip." + function)
            check(status == 200 and body["inputs"] == [
                {"name": "x", "datatype": datatype, "shape": [-1, 2]}] and
                  body["outputs"][0]["datatype"] == datatype,
                  "model metadata of oip.%s: %s (ONNX's float8 bits, int4 "
                  "values) %s" % (function, datatype, body))
        status, body = server.get("/v2/models/oip/ready")
        check(status == 200 and body == {"name": "oip", "ready": True},
              "GET /v2/models/oip/ready")
        status, body = server.get("/v2/models/nope/ready")
        check(status == 400 and "unknown model 'nope'" in body["error"] and
              "oip" in body["error"], "model ready of an unknown model: 400")
        status, body = server.get("/v2/models/nope")
        check(status == 400 and "unknown model 'nope'" in body["error"],
              "metadata of an unknown model: 400")
        status, body = server.get("/v2/models/add/versions/1")
        check(status == 400 and "has no versions" in body["error"],
              "a version of a model without versions: 400")
        status, body = server.get("/v2/models/multi")
        check(status == 400 and "several functions" in body["error"] and
              "count, divide, echo_any" in body["error"],
              "a model with several functions and no main: 400 naming them")

        # Infer: flat, nested, id, requested outputs, input order.
        a = [1, 2, 3, 4, 5, 6]
        b = [10, 20, 30, 40, 50, 60.5]
        status, answer, _ = server.infer("oip", main_request(a, b, id="r-1"))
        check(status == 200 and answer == {
            "model_name": "oip", "id": "r-1", "outputs": [
                {"name": "a_out", "datatype": "FP32", "shape": [2, 3],
                 "data": a},
                {"name": "b_out", "datatype": "FP32", "shape": [2, 3],
                 "data": b}]},
              "infer: both outputs, the id echoed %s" % answer)
        status, answer, _ = server.infer("add", {"inputs": [
            {"name": "input0", "shape": [2, 3], "datatype": "FP32",
             "data": a},
            {"name": "input1", "shape": [2, 3], "datatype": "FP32",
             "data": b}]})
        check(status == 200 and answer["outputs"][0]["data"] ==
              [x + y for x, y in zip(a, b)],
              "infer: the HAL sample adds (a kernel runs) %s" % answer)
        request = main_request(a, b)
        request["inputs"][0]["data"] = [[1, 2, 3], [4, 5, 6]]
        request["inputs"].reverse()
        request["outputs"] = [{"name": "a_out"}]
        status, answer, _ = server.infer("oip", request)
        check(status == 200 and "id" not in answer and
              [o["name"] for o in answer["outputs"]] == ["a_out"] and
              answer["outputs"][0]["data"] == a,
              "infer: nested data, inputs in another order, one output asked")
        request["outputs"] = [{"name": "b_out"}, {"name": "a_out"}]
        status, answer, _ = server.infer("oip", request)
        check(status == 200 and
              [o["name"] for o in answer["outputs"]] == ["b_out", "a_out"] and
              answer["outputs"][0]["data"] == b,
              "infer: outputs in the order asked")
        status, answer, _ = server.infer("oip", main_request([], []))
        check(status == 200 and answer["outputs"][0]["shape"] == [0, 3] and
              answer["outputs"][0]["data"] == [],
              "infer: zero rows (N = 0)")
        status, answer, _ = server.infer("oip/versions/1", main_request(a, b))
        check(status == 400 and "has no versions" in answer.get("error", ""),
              "infer with a version of a model without versions: 400")

        # Every datatype, JSON and binary, both ways.
        for datatype, (fmt, values, function) in DATATYPES.items():
            model = "oip." + function
            request = {"inputs": [{"name": "x", "shape": [2, 2],
                                   "datatype": datatype, "data": values}]}
            status, answer, _ = server.infer(model, request)
            got = answer.get("outputs", [{}])[0] if status == 200 else answer
            check(status == 200 and got.get("datatype") == datatype and
                  got.get("shape") == [2, 2] and len(got["data"]) == 4 and
                  all(type(g) is type(v) or datatype.startswith("FP")
                      for v, g in zip(values, got["data"])) and
                  struct.pack("<4" + fmt, *got["data"]) ==
                  struct.pack("<4" + fmt, *values),
                  "%s in JSON, back in JSON: %s" % (datatype, got))
            blob = struct.pack("<4" + fmt, *values)
            request = {"inputs": [{"name": "x", "shape": [2, 2],
                                   "datatype": datatype,
                                   "parameters": {"binary_data_size":
                                                  len(blob)}}],
                       "outputs": [{"name": "y",
                                    "parameters": {"binary_data": True}}]}
            status, answer, binary = server.infer(model, request, [blob])
            out = answer.get("outputs", [{}])[0]
            check(status == 200 and out.get("datatype") == datatype and
                  "data" not in out and
                  out.get("parameters") == {"binary_data_size": len(blob)}
                  and binary.get("y") == blob and "<trailing>" not in binary,
                  "%s in binary, back in binary, byte for byte" % datatype)
        # Nested data of the wrong length, and values out of range.
        for datatype, bad in [("UINT8", 256), ("INT8", -129), ("BOOL", 2),
                              ("UINT64", -1), ("INT16", 1.5),
                              ("FP16", 70000.0), ("FP32", 1e39)]:
            function = DATATYPES[datatype][2]
            expect_error(server, "oip." + function, {"inputs": [
                {"name": "x", "shape": [1, 2], "datatype": datatype,
                 "data": [0, bad]}]},
                "%s value %r refused" % (datatype, bad),
                r"input 'x' .* element 1 ")
        expect_error(server, "oip.echo_i32", {"inputs": [
            {"name": "x", "shape": [1, 2], "datatype": "BYTES",
             "data": ["ab", "c"]}]}, "BYTES refused by name",
            r"input 'x' is BYTES, which oip.echo_i32 cannot take: its input "
            r"is INT32")

        # Binary input mixed with JSON input, whole-request binary output.
        blob = struct.pack("<6f", *a)
        request = main_request(a, b, parameters={"binary_data_output": True})
        del request["inputs"][0]["data"]
        request["inputs"][0]["parameters"] = {"binary_data_size": len(blob)}
        status, answer, binary = server.infer("oip", request, [blob])
        check(status == 200 and binary.get("a_out") == blob and
              struct.unpack("<6f", binary.get("b_out", b"")) == tuple(b),
              "binary input beside a JSON one; binary_data_output for all")
        request["outputs"] = [{"name": "a_out"},
                              {"name": "b_out",
                               "parameters": {"binary_data": False}}]
        status, answer, binary = server.infer("oip", request, [blob])
        check(status == 200 and list(binary) == ["a_out"] and
              answer["outputs"][1]["data"] == b,
              "binary_data: false overrides binary_data_output for one output")
        status, headers, data = server.raw(
            "POST", "/v2/models/oip/infer", json.dumps(request).encode() +
            blob, {"Inference-Header-Content-Length": "x1"})
        check(status == 400 and b"Inference-Header-Content-Length must be" in
              data, "a malformed Inference-Header-Content-Length: 400")
        text = json.dumps(request).encode()
        status, headers, data = server.raw(
            "POST", "/v2/models/oip/infer", text + blob,
            {"Inference-Header-Content-Length": str(len(text) + 1000)})
        check(status == 400 and b"but the body has only" in data,
              "an Inference-Header-Content-Length beyond the body: 400")
        expect_error(server, "oip", request,
                     "binary data shorter than its binary_data_size",
                     r"add up to 24 bytes, but 20 bytes follow", [blob[:20]])
        expect_error(server, "oip", request,
                     "binary data beyond the binary_data_sizes",
                     r"add up to 24 bytes, but 28 bytes follow",
                     [blob + b"abcd"])
        request["inputs"][0]["parameters"] = {"binary_data_size": 20}
        expect_error(server, "oip", request,
                     "a binary_data_size that does not fit the shape",
                     r"input 'a' is 2x3xf32, 24 bytes, but its "
                     r"binary_data_size is 20", [blob[:20]])
        expect_error(server, "oip.echo_bool", {"inputs": [
            {"name": "x", "shape": [1, 2], "datatype": "BOOL",
             "parameters": {"binary_data_size": 2}}]},
            "BOOL binary data other than 0 or 1",
            r"holds a byte other than 0 or 1", [b"\x01\x07"])

        # Errors of the request itself.
        status, headers, data = server.raw("POST", "/v2/models/oip/infer",
                                           b"{\"inputs\": [")
        check(status == 400 and b"not valid JSON" in data,
              "malformed JSON: 400")
        expect_error(server, "oip", [], "a request that is not an object",
                     r"must be a JSON object")
        expect_error(server, "oip", {"id": "x"}, "no inputs",
                     r"needs \"inputs\"")
        expect_error(server, "oip", main_request(a, b, id=7),
                     "an id that is not a string", r"\"id\" must be a string")
        request = main_request(a, b)
        request["inputs"][1]["name"] = "c"
        expect_error(server, "oip", request, "an unknown input name",
                     r"oip.main has no input \"c\"; its inputs: 'a', 'b'")
        request = main_request(a, b)
        request["inputs"].pop()
        expect_error(server, "oip", request, "a missing input",
                     r"needs input 'b', which the request does not give")
        request = main_request(a, b)
        request["inputs"][1]["name"] = "a"
        expect_error(server, "oip", request, "an input given twice",
                     r"input 'a' is given twice")
        request = main_request(a, b)
        request["inputs"][0]["datatype"] = "FLOAT"
        expect_error(server, "oip", request, "an unknown datatype",
                     r"input 'a' has an unknown datatype \"FLOAT\" \(BOOL, ")
        request["inputs"][0]["datatype"] = "FP64"
        expect_error(server, "oip", request, "a datatype the model does not "
                     "take", r"input 'a' of oip.main must be FP32, got FP64")
        request = main_request(a, b)
        request["inputs"][0]["shape"] = [6]
        expect_error(server, "oip", request, "a wrong rank",
                     r"input 'a' of oip.main must have shape \[-1, 3\]")
        request = main_request(a, [1, 2, 3])
        expect_error(server, "oip", request,
                     "two inputs that disagree on N",
                     r"input 'b' of oip.main has dimension 0 of size 1 but "
                     r"input 'a' has dimension 0 of size 2; the model names "
                     r"both 'N'")
        expect_error(server, "oip.fixed", {"inputs": [
            {"name": "input0", "shape": [4, 8], "datatype": "FP32",
             "data": [0] * 32}]}, "a wrong static dimension",
            r"must have shape \[4, 16\]")
        request = main_request(a, b)
        request["inputs"][0]["data"] = a[:5]
        expect_error(server, "oip", request, "flat data of the wrong length",
                     r"needs 6 elements in \"data\", got 5")
        request["inputs"][0]["data"] = [[1, 2, 3], [4, 5]]
        expect_error(server, "oip", request, "nested data of the wrong shape",
                     r"\"data\" has 2 entries at depth 1 where the shape has "
                     r"3")
        request["inputs"][0]["data"] = [[[1], 2, 3], [4, 5, 6]]
        expect_error(server, "oip", request, "data nested too deep",
                     r"nested deeper than the shape's rank 2")
        request["inputs"][0]["data"] = [1, 2, "3", 4, 5, 6]
        expect_error(server, "oip", request, "a string in FP32 data",
                     r"element 2 is not a number")
        request = main_request(a, b)
        del request["inputs"][0]["data"]
        expect_error(server, "oip", request, "an input without data",
                     r"input 'a' needs \"data\"")
        request = main_request(a, b, outputs=[{"name": "product"}])
        expect_error(server, "oip", request, "an unknown requested output",
                     r"oip.main has no output \"product\"; its outputs: "
                     r"'a_out', 'b_out'")
        expect_error(server, "nope", main_request(a, b), "infer of an "
                     "unknown model", r"unknown model 'nope'; models: add, "
                     r"multi, oip")
        status, headers, data = server.raw("GET", "/v2/models/oip/infer")
        check(status == 405 and b"use POST" in data, "GET .../infer: 405")
        status, headers, data = server.raw("POST", "/v2/models/oip")
        check(status == 405 and b"use GET" in data, "POST metadata: 405")
        status, headers, data = server.raw("GET", "/v2/modelz")
        check(status == 404 and json.loads(data)["error"].startswith(
            "no such endpoint: /v2/modelz"), "an unknown path: 404")
        # A run-time failure: 500 with the runtime's error; then answers.
        expect_error(server, "multi.divide", {"inputs": [
            {"name": "input0", "shape": [], "datatype": "INT32", "data": [7]},
            {"name": "input1", "shape": [], "datatype": "INT32",
             "data": [0]}]},
            "integer division by zero: 500", r"division by zero",
            status_wanted=500)
        status, answer, _ = server.infer("multi.divide", {"inputs": [
            {"name": "input0", "shape": [], "datatype": "INT32", "data": [7]},
            {"name": "input1", "shape": [], "datatype": "INT32",
             "data": [-2]}]})
        check(status == 200 and answer["outputs"] == [
            {"name": "output0", "datatype": "INT32", "shape": [],
             "data": [-3]}], "a scalar function after the failure: 7 / -2")

        # 64 concurrent clients, each checking its own answers.
        errors = []
        lock = threading.Lock()

        def client(k):
            for r in range(8):
                rows = 1 + (k + r) % 4
                a = [k * 1000 + r * 10 + i for i in range(3 * rows)]
                b = [i * 0.5 for i in range(3 * rows)]
                ident = "c%d-r%d" % (k, r)
                request = {"id": ident, "inputs": [
                    {"name": "input0", "shape": [rows, 3],
                     "datatype": "FP32", "data": a},
                    {"name": "input1", "shape": [rows, 3],
                     "datatype": "FP32", "data": b}]}
                try:
                    status, answer, _ = server.infer(
                        "oip" if r % 2 else "add",
                        main_request(a, b, id=ident) if r % 2 else request)
                    want = ([a, b] if r % 2 else
                            [[x + y for x, y in zip(a, b)]])
                    ok = (status == 200 and answer["id"] == ident and
                          [o["data"] for o in answer["outputs"]] == want)
                except Exception as error:  # noqa: BLE001
                    ok = False
                    answer = repr(error)
                if not ok:
                    with lock:
                        errors.append((ident, status, str(answer)[:200]))

        # Three waves: every answer right in each, and the server's
        # resident memory bounded (after the first wave its call pools and
        # buffers are as large as 64 clients make them; the next 1024
        # requests must not grow it).
        resident = []
        for wave in range(3):
            threads = [threading.Thread(target=client, args=(k,))
                       for k in range(64)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            resident.append(resident_kib(server.process.pid))
        check(not errors, "64 concurrent clients x 8 requests, 3 waves: "
              "every answer its own, value by value %s" % errors[:3])
        growth = resident[2] - resident[0]
        if args.no_memory_bound:
            print("skip resident memory over the waves: %s KiB (a "
                  "sanitizer's allocator)" % resident)
        else:
            check(growth < 4096, "resident memory bounded over the waves: "
                  "%s KiB after each (1024 more requests grew it %d KiB)" %
                  (resident, growth))
    finally:
        server.process.send_signal(signal.SIGTERM)
        try:
            code = server.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.process.kill()
            code = None
        check(code == 0, "SIGTERM: exit status 0 (got %s)" % code)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--oip-model", required=True)
    parser.add_argument("--multi-model", required=True)
    parser.add_argument("--hal-sample", required=True)
    parser.add_argument("--device", default="local-task")
    parser.add_argument("--no-memory-bound", action="store_true",
                        help="skip the resident-memory check (a sanitizer's "
                        "allocator keeps freed memory)")
    args = parser.parse_args()
    run(args)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
