#!/usr/bin/env python3
"""grpc_load.py - a closed-loop load generator for strata-serve's gRPC
service (inference.GRPCInferenceService), bench/serve's counterpart of wrk.

Each of --connections threads owns one channel and sends its next request
as soon as the previous answer arrives, for --seconds seconds: ModelInfer
on a model (one row of FP32 in raw_input_contents), or ServerLive, the
bare-protocol peer. Prints requests/s, p50/p99 latency and errors (any
non-OK status). run.py imports `generate_stubs` and `run_load`; alone:

  bench/serve/grpc_load.py --target=127.0.0.1:PORT --model=resnet \\
      --shape=1,3,224,224 [--connections=16] [--seconds=15]
  bench/serve/grpc_load.py --target=127.0.0.1:PORT --live

The stubs are generated from tools/strata-serve/inference.proto with
Debian's python3-grpc-tools (grpc_tools.protoc) into a temporary directory.
"""
import argparse
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PROTO = os.path.join(ROOT, "tools", "strata-serve", "inference.proto")


def generate_stubs(work):
    """Generates inference_pb2(_grpc) into work and imports them."""
    out = os.path.join(work, "grpc-stubs")
    os.makedirs(out, exist_ok=True)
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc",
                    "-I" + os.path.dirname(PROTO), "--python_out=" + out,
                    "--grpc_python_out=" + out, os.path.basename(PROTO)],
                   check=True, timeout=120)
    sys.path.insert(0, out)
    import inference_pb2  # noqa: E402 (generated)
    import inference_pb2_grpc  # noqa: E402 (generated)
    return inference_pb2, inference_pb2_grpc


def infer_request(pb, model, input_name, shape):
    """One ModelInferRequest: FP32 values (i % 255) / 255, raw contents."""
    count = 1
    for d in shape:
        count *= d
    tensor = pb.ModelInferRequest.InferInputTensor(
        name=input_name, datatype="FP32", shape=shape)
    return pb.ModelInferRequest(
        model_name=model, inputs=[tensor],
        raw_input_contents=[struct.pack(
            "<%df" % count, *[(i % 255) / 255.0 for i in range(count)])])


def run_load(stubs, target, connections, seconds, request=None):
    """Closed-loop load: ModelInfer(request), or ServerLive without one.
    Returns {rate, total, p50, p99, errors} (latencies in ms)."""
    import grpc  # noqa: E402 (python3-grpcio)
    pb, pb_grpc = stubs
    latencies = [[] for _ in range(connections)]
    errors = [0] * connections
    start_barrier = threading.Barrier(connections + 1)
    deadline = [0.0]

    def worker(index):
        channel = grpc.insecure_channel(target)
        stub = pb_grpc.GRPCInferenceServiceStub(channel)
        call = (lambda: stub.ModelInfer(request, timeout=30)) if request \
            else (lambda: stub.ServerLive(pb.ServerLiveRequest(), timeout=30))
        call()  # connects before the clock starts
        start_barrier.wait()
        while time.monotonic() < deadline[0]:
            begin = time.monotonic()
            try:
                call()
                latencies[index].append((time.monotonic() - begin) * 1e3)
            except grpc.RpcError:
                errors[index] += 1
        channel.close()

    threads = [threading.Thread(target=worker, args=(i,))
               for i in range(connections)]
    for thread in threads:
        thread.start()
    deadline[0] = time.monotonic() + seconds + 1e9  # until the barrier
    start_barrier.wait()
    began = time.monotonic()
    deadline[0] = began + seconds
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    merged = sorted(x for per in latencies for x in per)
    total = len(merged)

    def percentile(p):
        if not merged:
            return float("nan")
        return merged[min(total - 1, int(p / 100.0 * total))]

    return {"rate": total / elapsed, "total": total,
            "p50": statistics.median(merged) if merged else float("nan"),
            "p99": percentile(99), "errors": sum(errors)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True, help="HOST:PORT")
    parser.add_argument("--model", help="the model to ModelInfer")
    parser.add_argument("--input", default="input",
                        help="the model's input name")
    parser.add_argument("--shape", default="1",
                        help="the input's shape, comma-separated")
    parser.add_argument("--live", action="store_true",
                        help="ServerLive instead of ModelInfer")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=15)
    args = parser.parse_args()
    if not args.live and not args.model:
        parser.error("give --model (or --live)")
    with tempfile.TemporaryDirectory() as work:
        stubs = generate_stubs(work)
        request = None
        if not args.live:
            request = infer_request(stubs[0], args.model, args.input,
                                    [int(d) for d in args.shape.split(",")])
        result = run_load(stubs, args.target, args.connections, args.seconds,
                          request)
    print("%.1f req/s  p50 %.2f ms  p99 %.2f ms  errors %d (%d answers)" %
          (result["rate"], result["p50"], result["p99"], result["errors"],
           result["total"]))
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
