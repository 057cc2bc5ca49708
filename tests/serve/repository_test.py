#!/usr/bin/env python3
"""repository_test.py - strata-serve's model repository and dynamic
batching (standard library only).

Builds a repository in --work from the modules make_serve_modules writes
and the HAL sample:
  batch/{1,2}/model.vmfb  oip.vmfb (main passes a and b through),
                          batching (config.json: up to 8 rows, 20 ms,
                          preferred 8); version 2 is served
  add/1/model.vmfb        the HAL sample (a kernel adds), batching
  add2/1/model.vmfb       the HAL sample, batching, instance_count 2
  add2plain/1/model.vmfb  the HAL sample, instance_count 2, no batching
  plain/1/model.vmfb      oip.vmfb, no config: never batched
  shaped/1/model.vmfb     oip.vmfb, config.json inputs naming and
                          narrowing its arguments
  extra/1/model.vmfb      multi.vmfb, batching (echo_any, count)
  broken/1/model.vmfb     not a module
  badconfig/1/model.vmfb  with a config.json naming an unknown key
and checks:
  - the failed models are reported with their reasons (index, model
    ready 503, 400 on use) while the others serve; the server is not ready
    until they are fixed and loaded;
  - versions: the newest served, another one refused by name;
  - dynamic batching: 64 concurrent clients, 1-3 rows each, every answer
    checked value by value against its own inputs and id; the metrics show
    fewer executions than inferences, and nothing lost;
  - requests of other widths are not batched together (each right);
  - a batch whose outputs cannot be split fails each request with the
    error; a request over max_batch_size is refused;
  - instance_count 2, with and without batching: 48 concurrent clients,
    every answer checked; the metrics add up (successes, inferences, the
    executions of both instances, each used, summing to the model's);
    an unload while requests run (each answered, right or refused);
    0, -1, 65, 1.5, "2" and 1e9 refused at load naming instance_count;
  - config.json's inputs: names and a narrowed shape in the metadata and
    on each request; each inconsistent entry refused at load, naming it;
  - unload and load without a restart;
  - a model.onnx that is not a model, beside a module: reported with the
    compiler's message (a server built with the compiler) or as not
    loadable by a server built without it, while the module serves;
  - modules with a sequence argument or an optional result (seq.vmfb,
    optout.vmfb): refused at load, the reason naming the value and its
    type (index, load answer, inference), while a module beside serves.

  repository_test.py --server=PATH --oip-model=VMFB --multi-model=VMFB
      --hal-sample=VMFB --seq-model=VMFB --optional-model=VMFB --work=DIR
      [--server-compiles]
"""
import argparse
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

FAILURES = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        FAILURES.append(what)
    return condition


class Server:
    def __init__(self, server, repository):
        self.process = subprocess.Popen(
            [server, "--listen=127.0.0.1:0",
             "--model-repository=" + repository],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"listening on http://[^:]+:(\d+)", line)
        if not match:
            self.process.kill()
            raise RuntimeError("the server did not start: %r %s" %
                               (line, self.process.stderr.read()))
        self.port = int(match.group(1))

    def request(self, method, path, body=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port,
                                                timeout=60)
        try:
            if body is not None and not isinstance(body, (bytes, str)):
                body = json.dumps(body)
            connection.request(method, path, body=body)
            response = connection.getresponse()
            data = response.read()
            try:
                return response.status, json.loads(data)
            except ValueError:
                return response.status, data.decode()
        finally:
            connection.close()

    def metric(self, name, model, version):
        status, text = self.request("GET", "/metrics")
        key = '%s{model="%s",version="%s"} ' % (name, model, version)
        for line in text.splitlines():
            if line.startswith(key):
                return float(line[len(key):])
        return None


def write_repository(root, oip_model, multi_model, hal_sample):
    shutil.rmtree(root, ignore_errors=True)
    batching = {"max_batch_size": 8,
                "dynamic_batching": {"max_queue_delay_microseconds": 20000,
                                     "preferred_batch_size": [8]}}
    for name, source, versions, config in [
            ("batch", oip_model, [1, 2], batching),
            ("add", hal_sample, [1], batching),
            ("add2", hal_sample, [1], dict(batching, instance_count=2)),
            ("add2plain", hal_sample, [1], {"instance_count": 2}),
            ("plain", oip_model, [1], None),
            ("shaped", oip_model, [1],
             {"inputs": [{"name": "left", "shape": [2, 3]},
                         {"name": "right"}]}),
            ("extra", multi_model, [1], batching),
            ("badconfig", oip_model, [1], {"max_batch": 4})]:
        for version in versions:
            os.makedirs(os.path.join(root, name, str(version)))
            shutil.copy(source, os.path.join(root, name, str(version),
                                             "model.vmfb"))
        if config is not None:
            with open(os.path.join(root, name, "config.json"), "w") as f:
                json.dump(config, f)
    os.makedirs(os.path.join(root, "broken", "1"))
    with open(os.path.join(root, "broken", "1", "model.vmfb"), "wb") as f:
        f.write(b"not a module")


def main_request(a, b, ident):
    return {"id": ident, "inputs": [
        {"name": "a", "shape": [len(a) // 3, 3], "datatype": "FP32",
         "data": a},
        {"name": "b", "shape": [len(b) // 3, 3], "datatype": "FP32",
         "data": b}]}


def concurrent(count, work):
    """Runs work(k) on count threads; returns the failures they report."""
    errors = []
    lock = threading.Lock()

    def run(k):
        try:
            problem = work(k)
        except Exception as error:  # noqa: BLE001
            problem = repr(error)
        if problem:
            with lock:
                errors.append(problem)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def run(args):
    root = os.path.join(args.work, "serve-repository")
    write_repository(root, args.oip_model, args.multi_model,
                     args.hal_sample)
    server = Server(args.server, root)
    try:
        status, index = server.request("POST", "/v2/repository/index")
        states = {m["name"]: m for m in index} if status == 200 else {}
        check(status == 200 and sorted(states) ==
              ["add", "add2", "add2plain", "badconfig", "batch", "broken",
               "extra", "plain", "shaped"] and
              states["batch"] == {"name": "batch", "version": "2",
                                  "state": "READY"} and
              states["broken"]["state"] == "UNAVAILABLE" and
              "module is truncated" in states["broken"]["reason"] and
              'unknown key "max_batch"' in states["badconfig"]["reason"],
              "index: the models, their versions, states and reasons %s" %
              index)
        status, body = server.request("GET", "/v2/health/ready")
        check(status == 503 and body == {"ready": False},
              "server not ready while a model failed to load")
        status, body = server.request("GET", "/v2/models/broken/ready")
        check(status == 503 and body == {"name": "broken", "ready": False},
              "model ready of a model that failed: 503")
        status, body = server.request("GET", "/v2/models/broken")
        check(status == 400 and "model 'broken' is not ready" in
              body.get("error", "") and "truncated" in body["error"],
              "metadata of a failed model: 400 with its reason")
        status, body = server.request("GET", "/v2/models/batch")
        check(status == 200 and body["versions"] == ["2"],
              "the newest version is served: %s" % body.get("versions"))
        status, body = server.request("GET", "/v2/models/batch/versions/1")
        check(status == 400 and "has no version '1'; its version: 2" in
              body.get("error", ""), "an older version is refused by name")
        status, body = server.request(
            "POST", "/v2/models/plain/versions/1/infer",
            main_request([1, 2, 3], [3, 2, 1], "p"))
        check(status == 200 and body["model_version"] == "1" and
              body["outputs"][1]["data"] == [3, 2, 1],
              "a model without config.json answers")

        # Dynamic batching: 64 clients x 4 requests, 1-3 rows each, to a
        # model that passes its inputs through and to one that adds them.
        def batch_client(k):
            for r in range(4):
                rows = 1 + (k + r) % 3
                a = [k * 100 + r * 10 + i for i in range(3 * rows)]
                b = [(k + i) * 0.25 for i in range(3 * rows)]
                ident = "k%d-r%d" % (k, r)
                status, body = server.request(
                    "POST", "/v2/models/batch/infer",
                    main_request(a, b, ident))
                if not (status == 200 and body["id"] == ident and
                        body["model_version"] == "2" and
                        body["outputs"][0]["shape"] == [rows, 3] and
                        body["outputs"][0]["data"] == a and
                        body["outputs"][1]["data"] == b):
                    return "%s: %d %s" % (ident, status, str(body)[:200])
                status, body = server.request(
                    "POST", "/v2/models/add/infer",
                    {"id": ident, "inputs": [
                        {"name": "input0", "shape": [rows, 3],
                         "datatype": "FP32", "data": a},
                        {"name": "input1", "shape": [rows, 3],
                         "datatype": "FP32", "data": b}]})
                if not (status == 200 and body["id"] == ident and
                        body["outputs"][0]["shape"] == [rows, 3] and
                        body["outputs"][0]["data"] ==
                        [x + y for x, y in zip(a, b)]):
                    return "add %s: %d %s" % (ident, status, str(body)[:200])
            return None

        errors = concurrent(64, batch_client)
        check(not errors, "64 concurrent clients x 4 x 2 batched requests: "
              "every answer its own, value by value %s" % errors[:3])
        add_inferences = server.metric("strata_serve_inference_count_total",
                                       "add", "1")
        add_executions = server.metric("strata_serve_execution_count_total",
                                       "add", "1")
        check(add_inferences == 256 and add_executions is not None and
              add_executions < add_inferences,
              "metrics: the kernel ran 256 requests in %s calls" %
              add_executions)
        inferences = server.metric("strata_serve_inference_count_total",
                                   "batch", "2")
        executions = server.metric("strata_serve_execution_count_total",
                                   "batch", "2")
        successes = server.metric("strata_serve_request_success_total",
                                  "batch", "2")
        pending = server.metric("strata_serve_pending_requests", "batch", "2")
        check(inferences == 256 and successes == 256 and pending == 0 and
              executions is not None and executions < inferences,
              "metrics: 256 inferences in %s executions, 256 successes, 0 "
              "pending" % executions)

        # instance_count 2: each instance its own device and compute
        # thread; requests and batches go to a free one.
        def add_request(model, a, b, ident):
            rows = len(a) // 3
            return server.request(
                "POST", "/v2/models/%s/infer" % model,
                {"id": ident, "inputs": [
                    {"name": "input0", "shape": [rows, 3],
                     "datatype": "FP32", "data": a},
                    {"name": "input1", "shape": [rows, 3],
                     "datatype": "FP32", "data": b}]})

        def pair_client(k):
            for r in range(4):
                rows = 1 + (k + r) % 3
                a = [k * 100 + r * 10 + i for i in range(3 * rows)]
                b = [(k - i) * 0.5 for i in range(3 * rows)]
                for model in ("add2", "add2plain"):
                    ident = "%s-%d-%d" % (model, k, r)
                    status, body = add_request(model, a, b, ident)
                    if not (status == 200 and body["id"] == ident and
                            body["outputs"][0]["shape"] == [rows, 3] and
                            body["outputs"][0]["data"] ==
                            [x + y for x, y in zip(a, b)]):
                        return "%s: %d %s" % (ident, status, str(body)[:200])
            return None

        errors = concurrent(48, pair_client)
        check(not errors, "instance_count 2: 48 concurrent clients x 4 x 2 "
              "requests, value by value %s" % errors[:3])
        status, text = server.request("GET", "/metrics")
        for model in ("add2", "add2plain"):
            values = {}
            for name in ("request_success_total", "request_failure_total",
                         "inference_count_total", "execution_count_total",
                         "pending_requests"):
                values[name] = server.metric("strata_serve_" + name, model,
                                             "1")
            per_instance = [float(v) for v in re.findall(
                r'strata_serve_instance_execution_count_total\{model="%s",'
                r'version="1",instance="\d+"\} (\d+)' % model, text)]
            check(values["request_success_total"] == 192 and
                  values["request_failure_total"] == 0 and
                  values["inference_count_total"] == 192 and
                  values["pending_requests"] == 0 and
                  len(per_instance) == 2 and min(per_instance) > 0 and
                  sum(per_instance) == values["execution_count_total"],
                  "instance_count 2 (%s): metrics add up %s, executions "
                  "per instance %s" % (model, values, per_instance))
        batched = server.metric("strata_serve_execution_count_total", "add2",
                                "1")
        check(batched is not None and batched < 192,
              "instance_count 2 with batching: 192 requests in %s calls" %
              batched)

        # An unload while requests of both instances run: each is answered
        # (right, or refused as not ready), nothing crashes.
        stop_unload = threading.Event()

        def unload_client(k):
            count = 0
            while not stop_unload.is_set() or count < 2:
                a = [k + i for i in range(3)]
                b = [1.0, 2.0, 3.0]
                status, body = add_request("add2plain", a, b, str(k))
                count += 1
                if status == 200:
                    if body["outputs"][0]["data"] != [
                            x + y for x, y in zip(a, b)]:
                        return "%d: wrong %s" % (k, body)
                elif not (status == 400 and "is not ready: unloaded" in
                          body.get("error", "")):
                    return "%d: %d %s" % (k, status, str(body)[:200])
                else:
                    return None
            return None

        def unloader(k):
            if k < 16:
                return unload_client(k)
            status, body = server.request(
                "POST", "/v2/repository/models/add2plain/unload")
            stop_unload.set()
            return None if status == 200 else "unload: %d %s" % (status,
                                                                  body)

        errors = concurrent(17, unloader)
        status, body = server.request("GET", "/v2/health/live")
        check(not errors and status == 200,
              "instance_count 2: unloaded while 16 clients call it: each "
              "answered right or refused %s" % errors[:3])
        status, body = server.request(
            "POST", "/v2/repository/models/add2plain/load")
        status_infer, answer = add_request("add2plain", [1, 2, 3], [1, 1, 1],
                                           "again")
        check(status == 200 and status_infer == 200 and
              answer["outputs"][0]["data"] == [2, 3, 4],
              "instance_count 2: loaded again and answering")
        for bad in ["0", "-1", "65", "1.5", '"2"', "1e9"]:
            with open(os.path.join(root, "add2plain", "config.json"),
                      "w") as f:
                f.write('{"instance_count": %s}' % bad)
            status, body = server.request(
                "POST", "/v2/repository/models/add2plain/load")
            check(status == 400 and '"instance_count" must be an integer '
                  'within 1..64, got ' in body.get("error", ""),
                  "instance_count %s refused at load: %s" % (bad, body))
        with open(os.path.join(root, "add2plain", "config.json"), "w") as f:
            f.write('{"instance_count": 2}')
        status, body = server.request(
            "POST", "/v2/repository/models/add2plain/load")
        check(status == 200, "instance_count 2 loaded again")

        # config.json's inputs: names for the protocol and a narrowed
        # shape, in the metadata and checked on each request.
        status, body = server.request("GET", "/v2/models/shaped")
        check(status == 200 and
              [(t["name"], t["shape"]) for t in body.get("inputs", [])] ==
              [("left", [2, 3]), ("right", [-1, 3])],
              "config inputs: renamed and narrowed in the metadata %s" % body)
        request = {"inputs": [
            {"name": "left", "shape": [2, 3], "datatype": "FP32",
             "data": [1, 2, 3, 4, 5, 6]},
            {"name": "right", "shape": [2, 3], "datatype": "FP32",
             "data": [6, 5, 4, 3, 2, 1]}]}
        status, body = server.request("POST", "/v2/models/shaped/infer",
                                      request)
        check(status == 200 and body["outputs"][1]["data"] ==
              [6, 5, 4, 3, 2, 1], "config inputs: a request that fits")
        request["inputs"][0]["shape"] = [1, 3]
        request["inputs"][0]["data"] = [1, 2, 3]
        status, body = server.request("POST", "/v2/models/shaped/infer",
                                      request)
        check(status == 400 and "'left'" in body.get("error", "") and
              "must have shape [2, 3]" in body["error"],
              "config inputs: a shape outside the narrowed one: 400 %s" %
              body)
        shaped_config = os.path.join(root, "shaped", "config.json")
        for bad, why in [
                ({"inputs": [{"shape": [2, 4]}]},
                 "config.json inputs[0] (argument 0 'a'): dimension 1 is 4, "
                 "the module's is 3 (?x3xf32)"),
                ({"inputs": [{"shape": [2]}]},
                 "shape has 1 dimensions, the module's 2"),
                ({"inputs": [{}, {}, {}]},
                 "config.json lists 3 inputs; function 'main' takes 2"),
                ({"inputs": [{"name": "b"}]},
                 "arguments 0 and 1 of function 'main' are both named 'b'"),
                ({"max_batch_size": 4, "inputs": [{"shape": [4, 3]}]},
                 "dimension 0 is the batch (max_batch_size 4): it must "
                 "stay -1"),
                ({"inputs": [{"shape": [-2, 3]}]},
                 '"inputs[0].shape" must be at most 32 sizes, each -1 (any) '
                 'or >= 0'),
                ({"inputs": [{"name": ""}]},
                 '"inputs[0].name" must be a non-empty string'),
                ({"inputs": [{"dims": [1]}]},
                 'unknown key "inputs[0].dims" (name, shape)'),
                ({"inputs": {"name": "x"}}, '"inputs" must be an array')]:
            with open(shaped_config, "w") as f:
                json.dump(bad, f)
            status, body = server.request(
                "POST", "/v2/repository/models/shaped/load")
            check(status == 400 and why in body.get("error", ""),
                  "config inputs %s refused at load: %s" % (bad, body))
        with open(shaped_config, "w") as f:
            json.dump({"inputs": [{"name": "left", "shape": [2, 3]},
                                  {"name": "right"}]}, f)
        status, body = server.request("POST",
                                      "/v2/repository/models/shaped/load")
        check(status == 200, "config inputs: loaded again once fixed")

        # Other widths are not batched together.
        def scale_client(k):
            width = 2 + k % 3
            x = [k + i * 0.5 for i in range(width)]
            status, body = server.request(
                "POST", "/v2/models/extra.echo_any/infer",
                {"id": str(k), "inputs": [{"name": "input0",
                                           "shape": [1, width],
                                           "datatype": "FP32", "data": x}]})
            if not (status == 200 and body["id"] == str(k) and
                    body["outputs"][0]["shape"] == [1, width] and
                    body["outputs"][0]["data"] == x):
                return "%d: %d %s" % (k, status, str(body)[:200])
            return None

        errors = concurrent(24, scale_client)
        check(not errors, "24 concurrent requests of 3 widths: each batched "
              "only with its own width, value by value %s" % errors[:3])

        # A batch whose outputs have no batch dimension cannot be split.
        def rowsum_client(k):
            status, body = server.request(
                "POST", "/v2/models/extra.count/infer",
                {"inputs": [{"name": "input0", "shape": [1, 3],
                             "datatype": "FP32", "data": [k, k, k]}]})
            if not (status == 500 and "cannot be split per request" in
                    body.get("error", "")):
                return "%d: %d %s" % (k, status, str(body)[:200])
            return None

        errors = concurrent(4, rowsum_client)
        check(not errors, "outputs without a batch dimension: each request "
              "fails with the error %s" % errors[:3])
        status, body = server.request(
            "POST", "/v2/models/batch/infer",
            main_request(list(range(27)), list(range(27)), "big"))
        check(status == 400 and "batch of 9 rows exceeds max_batch_size 8"
              in body.get("error", ""), "9 rows over max_batch_size 8: 400")

        # Unload and load without a restart.
        status, body = server.request(
            "POST", "/v2/repository/models/batch/unload")
        check(status == 200, "unload batch")
        status, body = server.request("GET", "/v2/models/batch/ready")
        check(status == 503 and body == {"name": "batch", "ready": False},
              "an unloaded model is not ready")
        status, body = server.request("POST", "/v2/models/batch/infer",
                                      main_request([1, 2, 3], [1, 1, 1], "u"))
        check(status == 400 and "model 'batch' is not ready: unloaded" in
              body.get("error", ""), "infer of an unloaded model: 400")
        status, index = server.request("POST", "/v2/repository/index")
        states = {m["name"]: m for m in index}
        check(states["batch"].get("state") == "UNAVAILABLE" and
              states["batch"].get("reason") == "unloaded",
              "the index shows the unload")
        shutil.copy(args.oip_model, os.path.join(root, "batch", "2",
                                                 "model.vmfb"))
        status, body = server.request("POST",
                                      "/v2/repository/models/batch/load")
        status_ready, ready = server.request("GET", "/v2/models/batch/ready")
        status_infer, answer = server.request(
            "POST", "/v2/models/batch/infer",
            main_request([1, 2, 3], [1, 1, 1], "l"))
        check(status == 200 and status_ready == 200 and status_infer == 200
              and answer["outputs"][0]["data"] == [1, 2, 3],
              "load batch again: ready and answering")
        status, body = server.request("POST",
                                      "/v2/repository/models/nope/load")
        check(status == 400 and "no directory 'nope'" in body.get("error", ""),
              "load of a model the repository lacks: 400")
        # Fix the failed models and load them: the server becomes ready.
        os.makedirs(os.path.join(root, "broken", "2"))
        shutil.copy(args.oip_model, os.path.join(root, "broken", "2",
                                                 "model.vmfb"))
        with open(os.path.join(root, "badconfig", "config.json"), "w") as f:
            json.dump({"max_batch_size": 2}, f)
        loads = [server.request("POST", "/v2/repository/models/%s/load" %
                                name)[0] for name in ("broken", "badconfig")]
        status, body = server.request("GET", "/v2/health/ready")
        check(loads == [200, 200] and status == 200 and
              body == {"ready": True},
              "the failed models fixed and loaded: the server is ready")
    finally:
        server.process.send_signal(signal.SIGTERM)
        try:
            code = server.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.process.kill()
            code = None
        check(code == 0, "SIGTERM: exit status 0 (got %s)" % code)


def run_onnx(args):
    root = os.path.join(args.work, "serve-repository-onnx")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "vm", "1"))
    shutil.copy(args.oip_model, os.path.join(root, "vm", "1", "model.vmfb"))
    os.makedirs(os.path.join(root, "onnx", "1"))
    with open(os.path.join(root, "onnx", "1", "model.onnx"), "wb") as f:
        f.write(b"\x08\x07 not an ONNX model")
    server = Server(args.server, root)
    try:
        deadline = time.monotonic() + 120
        while True:
            status, index = server.request("POST", "/v2/repository/index")
            states = {m["name"]: m for m in index}
            reason = states["onnx"].get("reason", "")
            if not reason.startswith("compiling") or \
                    time.monotonic() > deadline:
                break
            time.sleep(0.1)
        want = ("strata-compile failed" if args.server_compiles else
                "this strata-serve was built without the compiler")
        check(states["onnx"]["state"] == "UNAVAILABLE" and want in reason,
              "a model.onnx that does not compile: %s" % reason)
        status, body = server.request(
            "POST", "/v2/models/vm/infer", main_request([1, 2, 3], [4, 5, 6],
                                                        "vm"))
        check(status == 200 and body["outputs"][1]["data"] == [4, 5, 6],
              "the module beside it serves")
    finally:
        server.process.send_signal(signal.SIGTERM)
        try:
            code = server.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.process.kill()
            code = None
        check(code == 0, "SIGTERM: exit status 0 (got %s)" % code)


def run_lists(args):
    """Models whose function takes or returns an ONNX sequence or optional
    (a list): the protocol has tensors only, so each is refused at load
    with a reason naming the function, the value and its type, in the
    index and in a load's answer, while a model beside them serves."""
    root = os.path.join(args.work, "serve-repository-lists")
    shutil.rmtree(root, ignore_errors=True)
    for name, source in [("seq", args.seq_model),
                         ("optout", args.optional_model),
                         ("plain", args.oip_model)]:
        os.makedirs(os.path.join(root, name, "1"))
        shutil.copy(source, os.path.join(root, name, "1", "model.vmfb"))
    server = Server(args.server, root)
    try:
        status, index = server.request("POST", "/v2/repository/index")
        states = {m["name"]: m for m in index} if status == 200 else {}
        want_seq = ("model 'seq': function 'main' takes argument 0 "
                    "('pieces'), list<?xf32> (an ONNX sequence); the Open "
                    "Inference Protocol has tensors only, so strata-serve "
                    "does not serve it")
        want_opt = ("model 'optout': function 'main' returns result 0 "
                    "('maybe'), optional<?x3xf32> (an ONNX optional)")
        check(status == 200 and
              states.get("seq", {}).get("state") == "UNAVAILABLE" and
              want_seq in states["seq"].get("reason", "") and
              states.get("optout", {}).get("state") == "UNAVAILABLE" and
              want_opt in states["optout"].get("reason", "") and
              states.get("plain", {}).get("state") == "READY",
              "index: models with a sequence argument or an optional "
              "result are refused, with the reason %s" % index)
        status, body = server.request("POST",
                                      "/v2/repository/models/seq/load")
        check(status == 400 and isinstance(body, dict) and
              "failed to load 'seq'" in body.get("error", "") and
              want_seq in body["error"],
              "load of the sequence model: 400 with the reason %s" % body)
        status, body = server.request(
            "POST", "/v2/models/seq/infer",
            {"inputs": [{"name": "pieces", "shape": [3], "datatype": "FP32",
                         "data": [1, 2, 3]}]})
        check(status == 400 and "not ready" in body.get("error", "") and
              "list<?xf32>" in body["error"],
              "an inference on it: 400 naming why %s" % body)
        status, body = server.request(
            "POST", "/v2/models/plain/infer",
            main_request([1, 2, 3], [4, 5, 6], "p"))
        check(status == 200 and body["outputs"][1]["data"] == [4, 5, 6],
              "the module beside them serves")
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
    parser.add_argument("--seq-model", required=True)
    parser.add_argument("--optional-model", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--server-compiles", action="store_true")
    args = parser.parse_args()
    run(args)
    run_onnx(args)
    run_lists(args)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
