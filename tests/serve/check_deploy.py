#!/usr/bin/env python3
"""check_deploy.py - the deployment files (deploy/) against strata-serve.

Parses deploy/Containerfile, deploy/kserve/servingruntime.yaml and
deploy/kserve/inferenceservice.yaml (python3-yaml) and checks that they
agree with each other and with the server: the runtime and model format
the InferenceService names exist; every flag they pass is one
`strata-serve --help` lists; the --listen port is the container port, the
EXPOSEd port and the probes' port; the probes' paths are the protocol's;
the image is Debian bookworm with no LLVM or compiler in its final stage.
Then it starts strata-serve with the ServingRuntime's arguments (the
address made local, the repository a temporary one laid out as KServe's
storage initializer leaves it: <InferenceService name>/1/model.vmfb) and
asks the probe paths and the model's ready endpoint.

  check_deploy.py --server=PATH --source=ROOT --model=VMFB --work=DIR
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

import yaml

FAILURES = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        FAILURES.append(what)
    return condition


def containerfile_stages(text):
    """[(from, [instructions])] with continuation lines joined."""
    joined = re.sub(r"\\\n\s*", " ", text)
    stages = []
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        if word.upper() == "FROM":
            stages.append((rest.split()[0], []))
        elif stages:
            stages[-1][1].append((word.upper(), rest.strip()))
    return stages


def flag_names(arguments):
    return [a.split("=", 1)[0] for a in arguments if a.startswith("--")]


def run(args):
    root = args.source
    with open(os.path.join(root, "deploy/kserve/servingruntime.yaml")) as f:
        runtime = yaml.safe_load(f)
    with open(os.path.join(root, "deploy/kserve/inferenceservice.yaml")) as f:
        service = yaml.safe_load(f)
    with open(os.path.join(root, "deploy/Containerfile")) as f:
        stages = containerfile_stages(f.read())
    help_text = subprocess.run([args.server, "--help"], capture_output=True,
                               text=True, timeout=30).stdout

    check(runtime["apiVersion"] == "serving.kserve.io/v1alpha1" and
          runtime["kind"] == "ServingRuntime", "a ServingRuntime")
    check(service["apiVersion"] == "serving.kserve.io/v1beta1" and
          service["kind"] == "InferenceService", "an InferenceService")
    model = service["spec"]["predictor"]["model"]
    check(model["runtime"] == runtime["metadata"]["name"],
          "the InferenceService names the ServingRuntime")
    formats = [f["name"] for f in runtime["spec"]["supportedModelFormats"]]
    check(model["modelFormat"]["name"] == "strata" and "strata" in formats,
          "the model format is 'strata' on both sides")
    check(model.get("protocolVersion") == "v2" and
          "v2" in runtime["spec"]["protocolVersions"],
          "the protocol is v2 (the Open Inference Protocol) on both sides")

    container = runtime["spec"]["containers"][0]
    arguments = container["args"]
    unknown = [f for f in flag_names(arguments) if f not in help_text]
    check(not unknown, "every ServingRuntime flag is one strata-serve "
          "--help lists %s" % unknown)
    check("--model-repository=/mnt/models" in arguments,
          "the repository is /mnt/models, where KServe puts the model")
    listen = [a for a in arguments if a.startswith("--listen=")]
    port = int(listen[0].rsplit(":", 1)[1]) if listen else None
    grpc_listen = [a for a in arguments if a.startswith("--grpc-listen=")]
    grpc_port = (int(grpc_listen[0].rsplit(":", 1)[1]) if grpc_listen
                 else None)
    ports = [p["containerPort"] for p in container["ports"]]
    probes = [container["livenessProbe"]["httpGet"],
              container["readinessProbe"]["httpGet"]]
    check(port is not None and ports == [port] and
          all(p["port"] == port for p in probes),
          "--listen's port %s is the container's %s and the probes'" %
          (port, ports))
    check(probes[0]["path"] == "/v2/health/live" and
          probes[1]["path"] == "/v2/health/ready",
          "liveness /v2/health/live, readiness /v2/health/ready")

    check(len(stages) >= 1 and all(s[0].startswith("debian:bookworm")
                                   for s in stages),
          "every stage is Debian bookworm: %s" % [s[0] for s in stages])
    final = dict()
    for word, rest in stages[-1][1]:
        final.setdefault(word, []).append(rest)
    installs = " ".join(final.get("RUN", []))
    check(not re.search(r"llvm|mlir|clang|lld|strata-compile", installs),
          "the final stage installs no LLVM, MLIR or compiler")
    exposed = [int(p.split("/")[0]) for e in final.get("EXPOSE", [])
               for p in e.split()]
    check(exposed == [port, grpc_port], "EXPOSE %s is --listen's port and "
          "--grpc-listen's" % exposed)
    check(grpc_port is not None and grpc_port != port,
          "the ServingRuntime serves gRPC on a port of its own (%s)" %
          grpc_port)
    entrypoint = json.loads(final["ENTRYPOINT"][-1])
    check(os.path.basename(entrypoint[0]) == "strata-serve" and
          sorted(entrypoint[1:]) == sorted(arguments),
          "the ENTRYPOINT runs strata-serve with the ServingRuntime's "
          "arguments %s" % entrypoint)
    unknown = [f for f in flag_names(entrypoint[1:]) if f not in help_text]
    check(not unknown, "every ENTRYPOINT flag is one strata-serve --help "
          "lists %s" % unknown)

    # The server, as the ServingRuntime starts it, on the layout KServe
    # leaves in /mnt/models.
    repository = os.path.join(args.work, "deploy-models")
    shutil.rmtree(repository, ignore_errors=True)
    name = service["metadata"]["name"]
    os.makedirs(os.path.join(repository, name, "1"))
    shutil.copy(args.model, os.path.join(repository, name, "1",
                                         "model.vmfb"))
    local = [a.replace("/mnt/models", repository) if
             a.startswith("--model-repository=") else
             "--listen=127.0.0.1:0" if a.startswith("--listen=") else
             "--grpc-listen=127.0.0.1:0" if a.startswith("--grpc-listen=")
             else a for a in arguments]
    process = subprocess.Popen([args.server] + local, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        match = re.search(r"listening on http://[^:]+:(\d+)", line)
        check(grpc_port is None or "gRPC on 127.0.0.1:" in line,
              "the gRPC service starts too")
        check(match is not None, "strata-serve starts with the "
              "ServingRuntime's arguments: %r" % line)
        if match:
            for path in [probes[0]["path"], probes[1]["path"],
                         "/v2/models/%s/ready" % name]:
                connection = http.client.HTTPConnection(
                    "127.0.0.1", int(match.group(1)), timeout=30)
                connection.request("GET", path)
                status = connection.getresponse().status
                connection.close()
                check(status == 200, "GET %s: %d" % (path, status))
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    run(args)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
