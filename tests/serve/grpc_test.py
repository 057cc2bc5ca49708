#!/usr/bin/env python3
"""grpc_test.py - strata-serve's Open Inference Protocol over gRPC
(inference.GRPCInferenceService), through a client generated from
tools/strata-serve/inference.proto by Debian's python3-grpc-tools and run
by python3-grpcio.

Starts the server with --grpc-listen=127.0.0.1:0 and the modules
make_serve_modules writes (oip, multi) and the HAL sample (add), and
checks: ServerLive, ServerReady, ServerMetadata, ModelMetadata (names,
datatypes, -1 for a dynamic dimension), ModelReady; ModelInfer with
raw_input_contents and with typed contents for every datatype (answers
byte for byte in raw_output_contents), requested outputs and the id; the
errors (unknown model, wrong datatype, raw_input_contents that do not match
the inputs, FP16 in typed contents, a value out of range, a run-time
failure) as gRPC status codes; 64 concurrent clients checked value by
value.

  grpc_test.py --server=PATH --proto=inference.proto --oip-model=VMFB
      --multi-model=VMFB --hal-sample=VMFB --work=DIR
"""
import argparse
import os
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


def generate(proto, work):
    """Generates inference_pb2 and inference_pb2_grpc in work."""
    out = os.path.join(work, "grpc-client")
    os.makedirs(out, exist_ok=True)
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc",
                    "-I" + os.path.dirname(os.path.abspath(proto)),
                    "--python_out=" + out, "--grpc_python_out=" + out,
                    os.path.basename(proto)], check=True, timeout=60)
    sys.path.insert(0, out)


# datatype -> (struct format, values, contents field)
DATATYPES = {
    "BOOL": ("?", [True, False, False, True], "bool_contents"),
    "INT8": ("b", [-128, 127, 0, -1], "int_contents"),
    "INT16": ("h", [-32768, 32767, 1, -2], "int_contents"),
    "INT32": ("i", [-2**31, 2**31 - 1, 7, -7], "int_contents"),
    "INT64": ("q", [-2**63, 2**63 - 1, 2**40, -3], "int64_contents"),
    "UINT8": ("B", [0, 255, 128, 1], "uint_contents"),
    "UINT16": ("H", [0, 65535, 32768, 2], "uint_contents"),
    "UINT32": ("I", [0, 2**32 - 1, 2**31, 3], "uint_contents"),
    "UINT64": ("Q", [0, 2**64 - 1, 2**63, 4], "uint64_contents"),
    "FP16": ("e", [0.5, -2.0, 65504.0, 0.0009765625], None),
    "FP32": ("f", [1.5, -3.25, 3.4028234663852886e38, 1e-30],
             "fp32_contents"),
    "FP64": ("d", [1e300, -2.5e-300, 0.1, 123456789.125], "fp64_contents"),
}
ECHO = {"BOOL": "bool", "INT8": "i8", "INT16": "i16", "INT32": "i32",
        "INT64": "i64", "UINT8": "u8", "UINT16": "u16", "UINT32": "u32",
        "UINT64": "u64", "FP16": "f16", "FP32": "f32", "FP64": "f64"}


def run(args):
    import grpc  # noqa: E402 (python3-grpcio)
    import inference_pb2 as pb  # noqa: E402 (generated)
    import inference_pb2_grpc as pb_grpc  # noqa: E402

    process = subprocess.Popen(
        [args.server, "--listen=127.0.0.1:0", "--grpc-listen=127.0.0.1:0",
         "--model=oip=" + args.oip_model, "--model=multi=" + args.multi_model,
         "--model=add=" + args.hal_sample],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    match = re.search(r"gRPC on [^:]+:(\d+)", line)
    if not match:
        process.kill()
        raise RuntimeError("no gRPC port: %r %s" % (line,
                                                    process.stderr.read()))
    channel = grpc.insecure_channel("127.0.0.1:" + match.group(1))
    stub = pb_grpc.GRPCInferenceServiceStub(channel)
    try:
        check(stub.ServerLive(pb.ServerLiveRequest(), timeout=30).live,
              "ServerLive: live")
        check(stub.ServerReady(pb.ServerReadyRequest(), timeout=30).ready,
              "ServerReady: ready")
        metadata = stub.ServerMetadata(pb.ServerMetadataRequest(), timeout=30)
        check(metadata.name == "strata-serve" and
              "binary_tensor_data" in metadata.extensions,
              "ServerMetadata: %s %s" % (metadata.name,
                                         list(metadata.extensions)))
        model = stub.ModelMetadata(pb.ModelMetadataRequest(name="oip"),
                                   timeout=30)
        check(model.name == "oip" and model.platform == "strata" and
              [(t.name, t.datatype, list(t.shape)) for t in model.inputs] ==
              [("a", "FP32", [-1, 3]), ("b", "FP32", [-1, 3])] and
              [t.name for t in model.outputs] == ["a_out", "b_out"],
              "ModelMetadata of oip: names, FP32, -1 for N")
        model = stub.ModelMetadata(
            pb.ModelMetadataRequest(name="oip.echo_u64"), timeout=30)
        check([(t.name, t.datatype) for t in model.inputs] ==
              [("x", "UINT64")], "ModelMetadata of oip.echo_u64: UINT64")
        check(stub.ModelReady(pb.ModelReadyRequest(name="oip"),
                              timeout=30).ready, "ModelReady of oip")
        try:
            stub.ModelReady(pb.ModelReadyRequest(name="nope"), timeout=30)
            check(False, "ModelReady of an unknown model fails")
        except grpc.RpcError as error:
            check(error.code() == grpc.StatusCode.INVALID_ARGUMENT and
                  "unknown model 'nope'" in error.details(),
                  "ModelReady of an unknown model: INVALID_ARGUMENT")

        def tensor(name, datatype, shape):
            return pb.ModelInferRequest.InferInputTensor(
                name=name, datatype=datatype, shape=shape)

        a = [1, 2, 3, 4, 5, 6.5]
        b = [10, 20, 30, 40, 50, 60]
        request = pb.ModelInferRequest(
            model_name="oip", id="g-1",
            inputs=[tensor("b", "FP32", [2, 3]), tensor("a", "FP32", [2, 3])],
            raw_input_contents=[struct.pack("<6f", *b),
                                struct.pack("<6f", *a)],
            outputs=[pb.ModelInferRequest.InferRequestedOutputTensor(
                name="b_out")])
        answer = stub.ModelInfer(request, timeout=30)
        check(answer.model_name == "oip" and answer.id == "g-1" and
              [(o.name, o.datatype, list(o.shape)) for o in answer.outputs]
              == [("b_out", "FP32", [2, 3])] and
              struct.unpack("<6f", answer.raw_output_contents[0]) == tuple(b),
              "ModelInfer: raw inputs by name, one output asked, the id")
        request = pb.ModelInferRequest(
            model_name="add", inputs=[tensor("input0", "FP32", [2, 3]),
                                      tensor("input1", "FP32", [2, 3])])
        request.inputs[0].contents.fp32_contents.extend(a)
        request.inputs[1].contents.fp32_contents.extend(b)
        answer = stub.ModelInfer(request, timeout=30)
        check(struct.unpack("<6f", answer.raw_output_contents[0]) ==
              tuple(x + y for x, y in zip(a, b)),
              "ModelInfer: typed contents, the HAL sample adds")

        for datatype, (fmt, values, field) in DATATYPES.items():
            raw = struct.pack("<4" + fmt, *values)
            request = pb.ModelInferRequest(
                model_name="oip.echo_" + ECHO[datatype],
                inputs=[tensor("x", datatype, [2, 2])])
            if field:
                getattr(request.inputs[0].contents, field).extend(values)
            else:
                request.raw_input_contents.append(raw)
            answer = stub.ModelInfer(request, timeout=30)
            check(answer.outputs[0].datatype == datatype and
                  list(answer.outputs[0].shape) == [2, 2] and
                  answer.raw_output_contents[0] == raw,
                  "%s in %s, back raw byte for byte" %
                  (datatype, field or "raw_input_contents"))

        def expect_error(request, code, pattern, what):
            try:
                stub.ModelInfer(request, timeout=30)
                check(False, what + ": no error")
            except grpc.RpcError as error:
                check(error.code() == code and
                      re.search(pattern, error.details() or ""),
                      "%s: %s %s" % (what, error.code(), error.details()))

        def fp32_request(model, datatype="FP32"):
            request = pb.ModelInferRequest(
                model_name=model, inputs=[tensor("a", datatype, [1, 3]),
                                          tensor("b", "FP32", [1, 3])])
            request.raw_input_contents.extend([struct.pack("<3f", 1, 2, 3)] *
                                              2)
            return request

        expect_error(fp32_request("nope"), grpc.StatusCode.INVALID_ARGUMENT,
                     r"unknown model 'nope'", "an unknown model")
        expect_error(fp32_request("oip", "INT32"),
                     grpc.StatusCode.INVALID_ARGUMENT,
                     r"input 'a' of oip.main must be FP32, got INT32",
                     "a wrong datatype")
        request = fp32_request("oip")
        del request.raw_input_contents[1]
        expect_error(request, grpc.StatusCode.INVALID_ARGUMENT,
                     r"raw_input_contents has 1 entries for 2 inputs",
                     "raw_input_contents that do not match the inputs")
        request = pb.ModelInferRequest(model_name="oip.echo_f16",
                                       inputs=[tensor("x", "FP16", [1, 2])])
        expect_error(request, grpc.StatusCode.INVALID_ARGUMENT,
                     r"FP16, which travels only in raw_input_contents",
                     "FP16 in typed contents")
        request = pb.ModelInferRequest(model_name="oip.echo_i8",
                                       inputs=[tensor("x", "INT8", [1, 2])])
        request.inputs[0].contents.int_contents.extend([1, 300])
        expect_error(request, grpc.StatusCode.INVALID_ARGUMENT,
                     r"out of range for INT8", "an INT8 value out of range")
        request = pb.ModelInferRequest(
            model_name="multi.divide",
            inputs=[tensor("input0", "INT32", []),
                    tensor("input1", "INT32", [])])
        request.inputs[0].contents.int_contents.append(7)
        request.inputs[1].contents.int_contents.append(0)
        expect_error(request, grpc.StatusCode.INTERNAL,
                     r"division by zero", "a run-time failure: INTERNAL")

        errors = []
        lock = threading.Lock()

        def client(k):
            for r in range(8):
                rows = 1 + (k + r) % 4
                x = [k * 1000 + r * 10 + i for i in range(3 * rows)]
                y = [i * 0.5 for i in range(3 * rows)]
                request = pb.ModelInferRequest(
                    model_name="add", id="c%d-%d" % (k, r),
                    inputs=[tensor("input0", "FP32", [rows, 3]),
                            tensor("input1", "FP32", [rows, 3])],
                    raw_input_contents=[struct.pack("<%df" % len(x), *x),
                                        struct.pack("<%df" % len(y), *y)])
                try:
                    answer = stub.ModelInfer(request, timeout=60)
                    got = struct.unpack("<%df" % len(x),
                                        answer.raw_output_contents[0])
                    ok = (answer.id == request.id and
                          got == tuple(p + q for p, q in zip(x, y)))
                except grpc.RpcError as error:
                    ok, got = False, error.details()
                if not ok:
                    with lock:
                        errors.append((request.id, str(got)[:100]))

        threads = [threading.Thread(target=client, args=(k,))
                   for k in range(64)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        check(not errors, "64 concurrent gRPC clients x 8 requests: every "
              "answer its own, value by value %s" % errors[:3])
    finally:
        channel.close()
        process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            code = None
        check(code == 0, "SIGTERM: exit status 0 (got %s)" % code)


def main():
    parser = argparse.ArgumentParser()
    for flag in ["--server", "--proto", "--oip-model", "--multi-model",
                 "--hal-sample", "--work"]:
        parser.add_argument(flag, required=True)
    args = parser.parse_args()
    generate(args.proto, args.work)
    run(args)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
