#!/usr/bin/env python3
"""check_robustness.py - replays each class of hostile input the runtime
tools were hardened against (issue 18) and checks for the clean outcome:
exit status 1 and one stderr line with the exact error text, within a
timeout, never a crash or a hang.

usage: check_robustness.py CASE --run PATH --dump PATH --benchmark PATH
                           --sample PATH/sample.vmfb --hal-sample PATH [...]
"""

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print("FAIL: " + message, file=sys.stderr)


def run(argv, timeout=30):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        check(False, "timed out after %d s: %s" % (timeout, " ".join(argv)))
        return None, "", ""
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def expect_error(result, line, what, code=1):
    """The tool failed with exactly one stderr line, `line`."""
    rc, out, err = result
    if rc is None:
        return
    check(rc == code, "%s: exit status %r, expected %d (stderr %r)"
          % (what, rc, code, err))
    check(err == line + "\n", "%s: stderr %r, expected %r" % (what, err, line))


# --- A: files -----------------------------------------------------------


def case_files(a):
    zero_module = ("INVALID_ARGUMENT: module file '/dev/zero': not a Strata "
                   "module: bad magic (expected \"STRATAVM\")")
    expect_error(run([a.run, "--module=/dev/zero", "--function=f"]),
                 "strata-run: " + zero_module, "strata-run /dev/zero")
    expect_error(run([a.dump, "/dev/zero"]),
                 "strata-dump: " + zero_module, "strata-dump /dev/zero")
    expect_error(run([a.benchmark, "--module=/dev/zero", "--function=f"]),
                 "strata-benchmark: " + zero_module,
                 "strata-benchmark /dev/zero")
    with tempfile.TemporaryDirectory() as tmp:
        expect_error(run([a.run, "--module=" + tmp, "--function=f"]),
                     "strata-run: INVALID_ARGUMENT: module file '%s' is a "
                     "directory" % tmp, "strata-run directory")
    hal = ["--module=" + a.hal_sample, "--function=add"]
    expect_error(run([a.run] + hal + ["--input=@/dev/zero",
                                      "--input=@/dev/zero"]),
                 "strata-run: --input #1 ('@/dev/zero'): not a .npy file "
                 "(bad magic; expected \\x93NUMPY)", "strata-run @/dev/zero")
    expect_error(run([a.benchmark] + hal + ["--input=@/dev/zero",
                                            "--input=@/dev/zero"]),
                 "strata-benchmark: --input #1 ('@/dev/zero'): not a .npy "
                 "file (bad magic; expected \\x93NUMPY)",
                 "strata-benchmark @/dev/zero")


def case_endless_pipe(a):
    """A pipe that sends a module header declaring 2 GiB and then zeros
    forever is refused from the header alone."""
    with open(a.sample, "rb") as f:
        header = bytearray(f.read(64))
    header[40:48] = (2 << 30).to_bytes(8, "little")  # segments_size
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "endless.vmfb")
        os.mkfifo(fifo)

        def feed():
            try:
                with open(fifo, "wb") as w:
                    w.write(header)
                    while True:
                        w.write(bytes(1 << 16))
            except (BrokenPipeError, OSError):
                pass

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        expect_error(run([a.run, "--module=" + fifo, "--function=f"]),
                     "strata-run: INVALID_ARGUMENT: module file '%s' is not "
                     "a regular file and its header declares %d bytes, over "
                     "the 1073741824-byte limit for streamed modules"
                     % (fifo, int.from_bytes(header[32:40], "little") +
                        (2 << 30)), "strata-run endless pipe")
        writer.join(timeout=5)


def case_huge_file(a):
    """A module whose header declares 64 GiB of segments, and a sparse 5 GiB
    .npy (over the 4 GiB limit), are refused before they are read."""
    with open(a.sample, "rb") as f:
        data = bytearray(f.read())
    with tempfile.TemporaryDirectory() as tmp:
        huge = os.path.join(tmp, "huge.vmfb")
        declared = 1 << 36
        data[40:48] = declared.to_bytes(8, "little")
        with open(huge, "wb") as f:
            f.write(data)
        seg_offset = int.from_bytes(data[32:40], "little")
        expect_error(run([a.run, "--module=" + huge, "--function=f"]),
                     "strata-run: INVALID_ARGUMENT: module file '%s': the "
                     "header declares %d bytes, over the 68719476736-byte "
                     "module limit" % (huge, seg_offset + declared),
                     "strata-run huge header")
        npy = os.path.join(tmp, "huge.npy")
        with open(npy, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00")
            f.truncate(5 << 30)  # sparse: nothing is written
        expect_error(run([a.run, "--module=" + a.hal_sample,
                          "--function=add", "--input=@" + npy,
                          "--input=@" + npy]),
                     "strata-run: --input #1 ('@%s'): cannot read '%s': the "
                     "file has 5368709120 bytes, over the limit of "
                     "4294967296 bytes" % (npy, npy), "strata-run huge .npy")


# --- B: checksums and signatures -----------------------------------------


def crc32c(data):
    table = []
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
        table.append(crc)
    crc = 0xFFFFFFFF
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def case_corrupt_segment(a):
    """One flipped bit in the kernel library (rodata 1 of the HAL sample,
    after its name) is a load error naming the segment, before anything is
    dlopen'ed."""
    with open(a.hal_sample, "rb") as f:
        data = bytearray(f.read())
    seg_offset = int.from_bytes(data[32:40], "little")
    elf = data.index(b"\x7fELF", seg_offset)
    check(elf == seg_offset + 64, "the kernel library is not rodata 1 at "
          "64: found at %d" % (elf - seg_offset))
    # The library's length is its ELF size: the section headers come last.
    shoff = int.from_bytes(data[elf + 0x28:elf + 0x30], "little")
    shentsize = int.from_bytes(data[elf + 0x3A:elf + 0x3C], "little")
    shnum = int.from_bytes(data[elf + 0x3C:elf + 0x3E], "little")
    length = shoff + shentsize * shnum
    good = crc32c(data[elf:elf + length])
    data[elf + 200] ^= 0x04
    bad = crc32c(data[elf:elf + length])
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "corrupt.vmfb")
        with open(path, "wb") as f:
            f.write(data)
        expect_error(run([a.run, "--module=" + path, "--function=add",
                          "--input=2xf32=1 2", "--input=2xf32=3 4"]),
                     "strata-run: DATA_LOSS: module file '%s': rodata 1 "
                     "[64, +%d) is corrupt: its CRC-32C is 0x%08x, the module "
                     "records 0x%08x" % (path, length, bad, good),
                     "strata-run corrupt kernel library")


def case_signature_policy(a):
    """Under --require-signature an unsigned module, a module signed by
    another key and a signed module modified afterwards are refused before
    loading; the signed one runs."""
    with tempfile.TemporaryDirectory() as tmp:
        key = os.path.join(tmp, "release")
        other = os.path.join(tmp, "other")
        for prefix in (key, other):
            rc, _, err = run([a.keygen, prefix])
            check(rc == 0, "strata-keygen %s: %r" % (prefix, err))
        signed = os.path.join(tmp, "signed.vmfb")
        rc, _, err = run([a.make_hal_sample, "--kernels=" + a.kernels,
                          "--sign-key=" + key + ".key", signed])
        check(rc == 0, "make_hal_sample --sign-key: %r" % err)
        args = ["--function=add", "--input=2xf32=1 2", "--input=2xf32=3 4"]
        policy = "--require-signature=" + key + ".pub"
        rc, out, err = run([a.run, "--module=" + signed, policy] + args)
        check(rc == 0 and out == "2xf32=4 6\n",
              "signed module under its key: rc %r out %r err %r"
              % (rc, out, err))
        expect_error(run([a.run, "--module=" + a.hal_sample, policy] + args),
                     "strata-run: PERMISSION_DENIED: module file '%s': the "
                     "module is not signed, and a signature is required"
                     % a.hal_sample, "unsigned module under a policy")
        mismatch = ("the module's signature does not match the required "
                    "public key (modified after signing, or signed with "
                    "another key)")
        expect_error(run([a.run, "--module=" + signed,
                          "--require-signature=" + other + ".pub"] + args),
                     "strata-run: PERMISSION_DENIED: module file '%s': %s"
                     % (signed, mismatch), "signed by another key")
        with open(signed, "rb") as f:
            data = bytearray(f.read())
        data[-1] ^= 0x01  # the last segment byte (a message's padding)
        changed = os.path.join(tmp, "changed.vmfb")
        with open(changed, "wb") as f:
            f.write(data)
        expect_error(run([a.run, "--module=" + changed, policy] + args),
                     "strata-run: PERMISSION_DENIED: module file '%s': %s"
                     % (changed, mismatch), "modified after signing")
        expect_error(run([a.benchmark, "--module=" + a.hal_sample, policy] +
                         args),
                     "strata-benchmark: PERMISSION_DENIED: module file '%s': "
                     "the module is not signed, and a signature is required"
                     % a.hal_sample, "strata-benchmark unsigned module")
        rc, out, err = run([a.benchmark, "--module=" + signed, policy,
                            "--repetitions=1", "--warmup=0"] + args)
        check(rc == 0, "strata-benchmark signed module: %r" % err)


# --- C: deadlines -----------------------------------------------------------


def timed(argv, limit_s):
    """Runs argv; checks that it ended within limit_s seconds."""
    import time
    start = time.monotonic()
    result = run(argv, timeout=30)
    elapsed = time.monotonic() - start
    check(elapsed < limit_s, "%s took %.2f s, over %.1f s"
          % (" ".join(argv), elapsed, limit_s))
    return result


def expect_first_line(result, line, what, code=1):
    rc, out, err = result
    if rc is None:
        return
    check(rc == code, "%s: exit status %r, expected %d (stderr %r)"
          % (what, rc, code, err))
    first = err.split("\n", 1)[0]
    check(first == line, "%s: first stderr line %r, expected %r"
          % (what, first, line))


def case_endless_loop(a):
    """Bytecode that branches backward forever ends at --timeout_ms."""
    args = ["--module=" + a.endless_loop, "--function=spin", "--input=i64=0",
            "--timeout_ms=200"]
    expect_first_line(timed([a.run] + args, 3),
                      "strata-run: loop.spin failed: DEADLINE_EXCEEDED: the "
                      "call's deadline passed while its bytecode ran",
                      "strata-run endless loop")
    expect_first_line(timed([a.benchmark] + args, 3),
                      "strata-benchmark: loop.spin failed: DEADLINE_EXCEEDED: "
                      "the call's deadline passed while its bytecode ran",
                      "strata-benchmark endless loop")


def case_endless_kernel(a):
    """A kernel that never returns: the call still ends at --timeout_ms
    (local-task), the device is lost, and the tool exits."""
    args = ["--module=" + a.endless_kernel, "--function=add",
            "--input=2xf32=1 2", "--input=2xf32=3 4", "--timeout_ms=300",
            "--device=local-task"]
    line = ("hal_sample.add failed: DEADLINE_EXCEEDED: the call's deadline "
            "passed while it waited for device work; the device is now lost")
    expect_first_line(timed([a.run] + args, 3), "strata-run: " + line,
                      "strata-run endless kernel")
    expect_first_line(timed([a.benchmark] + args, 3),
                      "strata-benchmark: " + line,
                      "strata-benchmark endless kernel")


# --- C and D: the service ------------------------------------------------

ADD_BODY = json.dumps({"inputs": [
    {"shape": [2], "dtype": "f32", "data": [1, 2]},
    {"shape": [2], "dtype": "f32", "data": [3, 4]}]})


class Service:
    """strata-serve on an ephemeral port with the models given."""

    def __init__(self, a, models, *flags):
        command = [a.service, "--listen=127.0.0.1:0", "--device=local-task",
                   "--task_workers=1"]
        for name, path in models:
            command += ["--model", "%s=%s" % (name, path)]
        command += list(flags)
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"listening on http://[^:]+:(\d+)", line)
        if not match:
            self.process.kill()
            raise RuntimeError("the service did not start: %r %s"
                               % (line, self.process.stderr.read()))
        self.port = int(match.group(1))

    def post(self, model, function, body, timeout=20):
        connection = http.client.HTTPConnection("127.0.0.1", self.port,
                                                timeout=timeout)
        try:
            connection.request("POST", "/v1/models/%s:invoke/%s"
                               % (model, function), body=body,
                               headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            return response.status, response.read().decode()
        finally:
            connection.close()

    def connect(self):
        return socket.create_connection(("127.0.0.1", self.port), timeout=10)

    def stop(self, sig=signal.SIGTERM, timeout=20):
        """Sends sig to this process (by its pid); (exit status, stderr)."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            code = None
        err = self.process.stderr.read()
        self.process.stdout.close()
        self.process.stderr.close()
        return code, err


class Answers:
    """Reads HTTP answers from a socket one at a time; bytes of the next
    answer read with this one are kept for it."""

    def __init__(self, sock):
        self.sock = sock
        self.data = b""

    def _fill(self):
        chunk = self.sock.recv(65536)
        self.data += chunk
        return bool(chunk)

    def next(self):
        """(status, headers text, body); status None at end of stream."""
        while b"\r\n\r\n" not in self.data:
            if not self._fill():
                return None, "", self.data.decode("latin1")
        head, rest = self.data.split(b"\r\n\r\n", 1)
        status = int(head.split(b" ")[1])
        length = int(re.search(rb"Content-Length: (\d+)", head).group(1))
        self.data = rest
        while len(self.data) < length:
            if not self._fill():
                break
        body, self.data = self.data[:length], self.data[length:]
        return status, head.decode("latin1"), body.decode("latin1")


def read_answer(sock):
    """The first HTTP answer from sock (for connections that get one)."""
    return Answers(sock).next()


def case_service_stuck_model(a):
    """A kernel that never returns in one model: its call is answered 504
    at --request-timeout, meanwhile another model answers at once, later
    calls to the stuck model are 503 (its device is lost), bytecode that
    loops forever is 504 too."""
    service = Service(a, [("ok", a.hal_sample), ("stuck", a.endless_kernel),
                          ("loop", a.endless_loop)],
                      "--request-timeout=700")
    try:
        stuck = {}

        def call_stuck():
            stuck["answer"] = service.post("stuck", "add", ADD_BODY)

        thread = threading.Thread(target=call_stuck)
        thread.start()
        time.sleep(0.2)  # the stuck call is running
        begin = time.monotonic()
        status, body = service.post("ok", "add", ADD_BODY)
        elapsed = time.monotonic() - begin
        check(status == 200 and json.loads(body)["outputs"][0]["data"] ==
              [4, 6], "ok.add while stuck.add runs: %r %r" % (status, body))
        check(elapsed < 0.4, "ok.add took %.3f s beside a stuck model"
              % elapsed)
        check(thread.is_alive(), "stuck.add answered before its deadline")
        thread.join(timeout=10)
        status, body = stuck.get("answer", (None, ""))
        check(status == 504, "stuck.add: %r %r" % (status, body))
        check(json.loads(body).get("error", "").startswith(
            "DEADLINE_EXCEEDED: hal_sample.add passed its deadline while its "
            "device work ran; device 'local-task' is now lost"),
            "stuck.add error: %r" % body)
        status, body = service.post("stuck", "add", ADD_BODY)
        check(status == 503 and json.loads(body)["error"].startswith(
            "UNAVAILABLE: device 'local-task' is lost: a call's deadline "
            "passed while its device work ran"),
            "stuck.add after the loss: %r %r" % (status, body))
        # Bytecode that loops holds its model's compute thread until the
        # deadline; other models answer meanwhile.
        spin = {}

        def call_spin():
            spin["answer"] = service.post("loop", "spin", json.dumps(
                {"inputs": [{"shape": [], "dtype": "i64", "data": [1]}]}))

        thread = threading.Thread(target=call_spin)
        thread.start()
        time.sleep(0.2)
        begin = time.monotonic()
        status, body = service.post("ok", "add", ADD_BODY)
        elapsed = time.monotonic() - begin
        check(status == 200 and elapsed < 0.4,
              "ok.add beside a looping model: %r in %.3f s" % (status, elapsed))
        check(thread.is_alive(), "loop.spin answered before its deadline")
        thread.join(timeout=10)
        status, body = spin.get("answer", (None, ""))
        check(status == 504 and json.loads(body)["error"].startswith(
            "DEADLINE_EXCEEDED: the call's deadline passed while its bytecode "
            "ran"), "loop.spin: %r %r" % (status, body))
    finally:
        code, err = service.stop()
    check(code == 0, "exit status %r after SIGTERM (stderr %r)" % (code, err))


def case_service_stuck_instances(a):
    """A model with instance_count 2 whose kernel never returns: each
    instance's device is lost in turn, and once a call found one lost (503)
    the next calls go to the other instance (which runs them: 504 at the
    deadline) rather than to the lost one; another model answers
    throughout, and SIGTERM exits 0."""
    repository = tempfile.mkdtemp(prefix="robustness-instances-")
    for name, module, config in [("stuck2", a.endless_kernel,
                                  {"instance_count": 2}),
                                 ("ok", a.hal_sample, None)]:
        os.makedirs(os.path.join(repository, name, "1"))
        shutil.copy(module, os.path.join(repository, name, "1", "model.vmfb"))
        if config:
            with open(os.path.join(repository, name, "config.json"),
                      "w") as f:
                json.dump(config, f)
    service = Service(a, [], "--model-repository=" + repository,
                      "--request-timeout=500")
    try:
        codes = []
        for _ in range(5):
            status, body = service.post("stuck2", "add", ADD_BODY)
            codes.append(status)
            ok_status, ok_body = service.post("ok", "add", ADD_BODY)
            if ok_status != 200:
                codes.append(("ok", ok_status, ok_body))
        # 504: instance 0's device lost at the deadline; 503: the next call
        # finds it lost; 504: then instance 1 runs the call; 503: instance 1
        # found lost; 503: both are.
        check(codes == [504, 503, 504, 503, 503],
              "stuck2.add with 2 instances: %r" % codes)
    finally:
        code, err = service.stop()
        shutil.rmtree(repository, ignore_errors=True)
    check(code == 0, "exit status %r after SIGTERM (stderr %r)" % (code, err))


def case_service_drain(a):
    """SIGTERM with a call that never ends: the drain gives up at
    --drain-timeout and the service exits 1 naming what it abandoned."""
    service = Service(a, [("ok", a.hal_sample), ("stuck", a.endless_kernel)],
                      "--drain-timeout=300")
    thread = threading.Thread(
        target=lambda: service.post("stuck", "add", ADD_BODY, timeout=10))
    thread.daemon = True
    thread.start()
    time.sleep(0.3)
    begin = time.monotonic()
    code, err = service.stop()
    elapsed = time.monotonic() - begin
    check(code == 1, "exit status %r, expected 1 (stderr %r)" % (code, err))
    check(elapsed < 3, "the drain took %.2f s" % elapsed)
    check("strata-serve: the drain timed out after --drain-timeout=300 ms; "
          "abandoned 1 call(s) still running: stuck.add\n" in err,
          "drain message: %r" % err)


def case_service_limits(a):
    """Header and idle timeouts, the connection cap, an early 413 (also with
    Expect: 100-continue), answers after a half-close, the pipeline bound
    and out-of-range values."""
    service = Service(a, [("ok", a.hal_sample)], "--header-timeout=300",
                      "--idle-timeout=500", "--max-connections=4",
                      "--max-body=1000", "--max-pipeline=2")
    try:
        # Headers that never end: 408 at the header timeout.
        sock = service.connect()
        sock.sendall(b"POST /v1/models/ok:invoke/add HTTP/1.1\r\nHost: x\r\n")
        begin = time.monotonic()
        status, head, body = read_answer(sock)
        check(status == 408 and "header-timeout=300" in body and
              time.monotonic() - begin < 2, "slow headers: %r %r" %
              (status, body))
        sock.close()
        # An idle connection is closed after the idle timeout.
        sock = service.connect()
        begin = time.monotonic()
        check(sock.recv(100) == b"" and time.monotonic() - begin < 3,
              "idle connection not closed")
        sock.close()
        # A Content-Length over --max-body: 413 before any body is sent,
        # with or without Expect: 100-continue.
        for expect in (b"", b"Expect: 100-continue\r\n"):
            sock = service.connect()
            sock.sendall(b"POST /v1/models/ok:invoke/add HTTP/1.1\r\n"
                         b"Host: x\r\nContent-Length: 100000000\r\n" +
                         expect + b"\r\n")
            status, head, body = read_answer(sock)
            check(status == 413 and "--max-body=1000" in body and
                  "Connection: close" in head,
                  "early 413 %r: %r %r" % (expect, status, body))
            sock.close()
        # A half-closed client still gets its answer.
        sock = service.connect()
        request = ("POST /v1/models/ok:invoke/add HTTP/1.1\r\nHost: x\r\n"
                   "Content-Length: %d\r\n\r\n%s" % (len(ADD_BODY), ADD_BODY))
        sock.sendall(request.encode())
        sock.shutdown(socket.SHUT_WR)
        status, head, body = read_answer(sock)
        check(status == 200 and '"data": [4, 6]' in body,
              "answer after a half-close: %r %r" % (status, body))
        sock.close()
        # 20 pipelined requests with at most 2 answers queued: all answered,
        # in order.
        sock = service.connect()
        sock.sendall(request.encode() * 20)
        reader = Answers(sock)
        answers = [reader.next()[0] for _ in range(20)]
        check(answers == [200] * 20, "pipelined answers: %r" % answers)
        sock.close()
        # A value out of range for its dtype: 400.
        status, body = service.post("ok", "add", json.dumps({"inputs": [
            {"shape": [2], "dtype": "f32", "data": [1e39, 2]},
            {"shape": [2], "dtype": "f32", "data": [3, 4]}]}))
        check(status == 400 and json.loads(body)["error"] ==
              "input 0 element 0 is out of range for f32",
              "f32 out of range: %r %r" % (status, body))
        # The connection cap: 4 open, the fifth is answered 503.
        held = [service.connect() for _ in range(4)]
        time.sleep(0.1)
        sock = service.connect()
        status, head, body = read_answer(sock)
        check(status == 503 and "--max-connections=4" in body,
              "fifth connection: %r %r" % (status, body))
        sock.close()
        for h in held:
            h.close()
    finally:
        code, err = service.stop()
    check(code == 0, "exit status %r (stderr %r)" % (code, err))


def case_compile_signed(a):
    """strata-compile --sign-key signs what it writes: the module runs under
    --require-signature with the matching key, and the same program
    compiled without the key is refused."""
    with tempfile.TemporaryDirectory() as tmp:
        key = os.path.join(tmp, "release")
        rc, _, err = run([a.keygen, key])
        check(rc == 0, "strata-keygen: %r" % err)
        signed = os.path.join(tmp, "fib_signed.vmfb")
        plain = os.path.join(tmp, "fib.vmfb")
        rc, _, err = run([a.compile, a.fib, "--sign-key=" + key + ".key",
                          "-o", signed], timeout=120)
        check(rc == 0, "strata-compile --sign-key: %r" % err)
        rc, _, err = run([a.compile, a.fib, "-o", plain], timeout=120)
        check(rc == 0, "strata-compile: %r" % err)
        policy = "--require-signature=" + key + ".pub"
        rc, out, err = run([a.run, "--module=" + signed, "--function=fib",
                            "--input=i64=10", policy])
        check(rc == 0 and out == "i64=55\n",
              "signed fib under its key: %r %r %r" % (rc, out, err))
        expect_error(run([a.run, "--module=" + plain, "--function=fib",
                          "--input=i64=10", policy]),
                     "strata-run: PERMISSION_DENIED: module file '%s': the "
                     "module is not signed, and a signature is required"
                     % plain, "unsigned compiled module")
        rc, _, err = run([a.compile, a.fib, "--sign-key=" +
                          os.path.join(tmp, "missing.key"), "-o",
                          os.path.join(tmp, "x.vmfb")], timeout=120)
        check(rc == 1 and "--sign-key: cannot open key file" in err and
              not os.path.exists(os.path.join(tmp, "x.vmfb")),
              "a missing key fails the compile: %r %r" % (rc, err))


# --- E: kernels and the compiler -----------------------------------------


def expect_output(result, out, what):
    rc, stdout, err = result
    if rc is None:
        return
    check(rc == 0 and stdout == out, "%s: exit %r, stdout %r, expected %r "
          "(stderr %r)" % (what, rc, stdout, out, err))


def case_kernel_faults(a):
    """Data that would make kernels fault (issue 18, item 1): documented
    values for integer division, clear errors naming the dispatch or the op
    for out-of-range indices and mismatched dimensions, on both devices."""
    with tempfile.TemporaryDirectory() as tmp:
        module = os.path.join(tmp, "kernel_faults.vmfb")
        rc, _, err = run([a.compile, a.kernel_faults, "-o", module],
                         timeout=300)
        check(rc == 0, "strata-compile kernel_faults.mlir: %r" % err)
        if rc != 0:
            return
        for device in ("local-sync", "local-task"):
            r = [a.run, "--module=" + module, "--device=" + device]
            # x / 0 = 0, x % 0 = 0, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0.
            expect_output(run(r + ["--function=divide",
                                   "--input=4xi32=7 -2147483648 -7 9",
                                   "--input=4xi32=0 -1 2 0"]),
                          "4xi32=0 -2147483648 -3 0\n4xi32=0 0 -1 0\n",
                          "division on " + device)
            expect_output(run(r + ["--function=divide_i64",
                                   "--input=4xi64=7 -9223372036854775808 -7 "
                                   "-7",
                                   "--input=4xi64=0 -1 2 0"]),
                          "4xi64=0 0 9223372036854775804 0\n"
                          "4xi64=0 -9223372036854775808 1 0\n"
                          "4xi64=0 -9223372036854775808 -4 0\n"
                          "4xi64=0 -9223372036854775808 -3 0\n",
                          "i64 division on " + device)
            table = "--input=8xf32=1 2 3 4 5 6 7 8"
            expect_output(run(r + ["--function=gather", table,
                                   "--input=4xi32=7 0 3 7"]),
                          "4xf32=8 1 4 8\n", "gather in range on " + device)
            for indices, index in (("8 0 0 0", "8"), ("0 0 0 -1", "-1"),
                                   ("0 2000000000 0 0", "2000000000")):
                expect_first_line(
                    run(r + ["--function=gather", table,
                             "--input=4xi32=" + indices]),
                    "strata-run: module.gather failed: OUT_OF_RANGE: "
                    "dispatch 'gather_dispatch_3_elementwise_4_f32' (export "
                    "3 of library 'executable') failed with code 2 at "
                    "workgroup (0,0,0): index %s computed from tensor data "
                    "is out of range [0, 8) of the dimension it indexes"
                    % index, "gather at %s on %s" % (indices, device))
            expect_first_line(
                run(r + ["--function=gather_dynamic", "--input=0xf32=",
                         "--input=4xi32=0 0 0 0"]),
                "strata-run: module.gather_dynamic failed: OUT_OF_RANGE: "
                "dispatch 'gather_dynamic_dispatch_4_elementwise_4_f32' "
                "(export 4 of library 'executable') failed with code 2 at "
                "workgroup (0,0,0): index 0 computed from tensor data is "
                "out of range [0, 0) of the dimension it indexes",
                "gather from an empty table on " + device)
            expect_output(run(r + ["--function=slice", table,
                                   "--input=i64=4"]),
                          "4xf32=10 12 14 16\n", "slice in range")
            for offset in ("5", "-1", "-9223372036854775808"):
                expect_first_line(
                    run(r + ["--function=slice", table,
                             "--input=i64=" + offset]),
                    "strata-run: module.slice failed: FAILED_PRECONDITION: "
                    "'tensor.extract_slice': the offset, size and stride of "
                    "dimension 0 are out of bounds of the source",
                    "slice at %s on %s" % (offset, device))
            # Slices with a run-time stride: positive, zero, negative.
            for offset, stride, out in (("1", "3", "4 10 16"),
                                        ("7", "0", "16 16 16"),
                                        ("6", "-2", "14 10 6")):
                expect_output(run(r + ["--function=strided_slice", table,
                                       "--input=i64=" + offset,
                                       "--input=i64=" + stride]),
                              "3xf32=%s\n" % out,
                              "strided slice %s:%s on %s" % (offset, stride,
                                                             device))
            expect_output(run(r + ["--function=strided_insert", table,
                                   "--input=2xf32=0 -1", "--input=i64=7",
                                   "--input=i64=-5"]),
                          "8xf32=1 2 -1 4 5 6 7 0\n",
                          "strided insert on " + device)
            for offset, stride in (("2", "3"), ("0", "4"), ("1", "-1"),
                                   ("8", "0"), ("-1", "1"),
                                   ("0", "4611686018427387904"),
                                   ("7", "-9223372036854775808")):
                expect_first_line(
                    run(r + ["--function=strided_slice", table,
                             "--input=i64=" + offset,
                             "--input=i64=" + stride]),
                    "strata-run: module.strided_slice failed: "
                    "FAILED_PRECONDITION: 'tensor.extract_slice': the "
                    "offset, size and stride of dimension 0 are out of "
                    "bounds of the source",
                    "strided slice %s:%s on %s" % (offset, stride, device))
            for offset, stride in (("1", "7"), ("0", "-1"), ("8", "0")):
                expect_first_line(
                    run(r + ["--function=strided_insert", table,
                             "--input=2xf32=0 -1", "--input=i64=" + offset,
                             "--input=i64=" + stride]),
                    "strata-run: module.strided_insert failed: "
                    "FAILED_PRECONDITION: 'tensor.insert_slice': the "
                    "offset, size and stride of dimension 0 are out of "
                    "bounds of the destination",
                    "strided insert %s:%s on %s" % (offset, stride, device))
            # A .npy of booleans whose bytes are 0, 1, 2 and 255.
            header = b"{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }"
            header += b" " * (64 - 10 - len(header) - 1) + b"\n"
            npy = os.path.join(tmp, "bools.npy")
            with open(npy, "wb") as f:
                f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little")
                        + header + bytes([0, 1, 2, 255]))
            expect_output(run(r + ["--function=booleans", "--input=@" + npy]),
                          "4xi32=0 1 1 1\n4xi1=1 0 0 0\n",
                          "boolean bytes 2 and 255 on " + device)
            grid = "--input=2x4xf32=1 2 3 4 5 6 7 8"
            expect_output(run(r + ["--function=element", grid,
                                   "--input=i64=1", "--input=i64=3"]),
                          "f32=8\n", "host extract in range")
            for i, j, dim in (("2", "0", 0), ("1", "4", 1), ("0", "-1", 1),
                              ("-4611686018427387904", "0", 0)):
                expect_first_line(
                    run(r + ["--function=element", grid, "--input=i64=" + i,
                             "--input=i64=" + j]),
                    "strata-run: module.element failed: FAILED_PRECONDITION: "
                    "'tensor.extract': index %d is out of range of dimension "
                    "%d" % (dim, dim), "host extract [%s, %s]" % (i, j))
                expect_first_line(
                    run(r + ["--function=set_element", grid,
                             "--input=i64=" + i, "--input=i64=" + j]),
                    "strata-run: module.set_element failed: "
                    "FAILED_PRECONDITION: 'tensor.insert': index %d is out "
                    "of range of dimension %d" % (dim, dim),
                    "host insert [%s, %s]" % (i, j))
            expect_first_line(
                run(r + ["--function=matmul", "--input=2x3xf32=1",
                         "--input=5x2xf32=1"]),
                "strata-run: module.matmul failed: FAILED_PRECONDITION: "
                "'linalg.matmul': dimension 1 of operand 0 and dimension 0 "
                "of operand 1 must be equal (both are the size of loop 2; "
                "they are 3 and 5)",
                "matmul with mismatched K on " + device)
            expect_output(run(r + ["--function=matmul", "--input=2x3xf32=1",
                                   "--input=3x2xf32=1"]),
                          "2x2xf32=[3 3][3 3]\n", "matmul with equal K")
            for sizes, values in ((("2xf32=1", "50000xf32=1"), "2 and 50000"),
                                  (("50000xf32=1", "2xf32=1"), "50000 and 2")):
                expect_first_line(
                    run(r + ["--function=add", "--input=" + sizes[0],
                             "--input=" + sizes[1]]),
                    "strata-run: module.add failed: FAILED_PRECONDITION: "
                    "'linalg.add': dimension 0 of operand 0 and dimension 0 "
                    "of operand 1 must be equal (both are the size of loop "
                    "0; they are %s)" % values, "add of %s and %s" % sizes)


def nested_ifs(depth):
    lines = ["func.func @deep(%c: i1, %x: i32) -> i32 {"]
    for i in range(depth):
        lines.append("  %%v%d = scf.if %%c -> i32 {" % i)
    lines.append("  scf.yield %x : i32")
    for i in reversed(range(depth)):
        lines.append("  } else { scf.yield %x : i32 }")
        if i > 0:
            lines.append("  scf.yield %%v%d : i32" % i)
    lines.append("  return %v0 : i32")
    lines.append("}")
    return "\n".join(lines) + "\n"


def case_compiler_limits(a):
    """strata-compile on input past its limits (issue 18, item 6): errors at
    the location, exit status 1, nothing written, never a signal."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.vmfb")

        def compile_error(source, flags, line, what):
            path = os.path.join(tmp, "input.mlir")
            with open(path, "w") as f:
                f.write(source)
            rc, _, err = run([a.compile, path, "-o", out] + flags,
                             timeout=300)
            if rc is None:
                return
            first = err.split("\n", 1)[0]
            check(rc == 1 and first == line.replace("FILE", path),
                  "%s: exit %r, first stderr line %r, expected %r"
                  % (what, rc, first, line.replace("FILE", path)))
            check(not os.path.exists(out), what + ": wrote its output")

        huge = "tensor<4611686018427387904x4xf32>"
        compile_error(
            "func.func @f(%%a: %s) -> %s {\n  return %%a : %s\n}\n"
            % (huge, huge, huge), [],
            "FILE:1:1: error: '%s' is too large: its size in bytes "
            "overflows a 64-bit integer (a tensor must be smaller than 2^62 "
            "bytes)" % huge, "a tensor of 2^66 bytes")
        big = "tensor<1152921504606846976x4xf32>"
        compile_error(
            "func.func @f() -> %s {\n  %%e = tensor.empty() : %s\n"
            "  return %%e : %s\n}\n" % (big, big, big), [],
            "FILE:2:8: error: '%s' is too large: its size in bytes "
            "overflows a 64-bit integer (a tensor must be smaller than 2^62 "
            "bytes)" % big, "a tensor of 2^64 bytes")
        # A splat constant of a terabyte computed in a kernel: a fill, not
        # a terabyte of data in the kernel library (LLVM ran out of memory);
        # running it is RESOURCE_EXHAUSTED at the allocation.
        tera = "tensor<1099511627776xf32>"
        path = os.path.join(tmp, "splat.mlir")
        with open(path, "w") as f:
            f.write("func.func @splat() -> %s {\n  %%c = arith.constant "
                    "dense<1.0> : %s\n  %%r = util.optimization_barrier %%c "
                    ": %s\n  return %%r : %s\n}\n" % ((tera,) * 4))
        splat_module = os.path.join(tmp, "splat.vmfb")
        rc, _, err = run([a.compile, path, "-o", splat_module], timeout=300)
        check(rc == 0, "a 4 TiB splat constant: exit %r, %r" % (rc, err[:300]))
        if rc == 0:
            expect_first_line(
                run([a.run, "--module=" + splat_module, "--function=splat",
                     "--output=@" + os.devnull]),
                "strata-run: module.splat failed: RESOURCE_EXHAUSTED: cannot "
                "map 4398046511104 bytes for a hal.buffer of 4398046511104 "
                "bytes: Cannot allocate memory", "running a 4 TiB splat")
        compile_error(nested_ifs(10001), [],
                      "FILE:10001:29: error: the input nests deeper than "
                      "10000 levels of brackets, the limit",
                      "10001 nested scf.if")
        compile_error("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                      "  %e = tensor.empty() : tensor<4xf32>\n"
                      "  %r = linalg.add ins(%a, %a : tensor<4xf32>, "
                      "tensor<4xf32>) outs(%e : tensor<4xf32>) -> "
                      "tensor<4xf32>\n  return %r : tensor<4xf32>\n}\n",
                      ["--target-cpu=cortex-a53"],
                      "FILE:0:0: error: llvm-cpu: 'cortex-a53' is not a CPU "
                      "of target 'x86_64-pc-linux-gnu'",
                      "--target-cpu for another architecture")
        # 5,000 levels (a stack overflow before) compile and run.
        path = os.path.join(tmp, "deep.mlir")
        with open(path, "w") as f:
            f.write(nested_ifs(5000))
        rc, _, err = run([a.compile, path, "-o", out], timeout=300)
        check(rc == 0, "5000 nested scf.if: exit %r, %r" % (rc, err[:300]))
        if rc == 0:
            expect_output(run([a.run, "--module=" + out, "--function=deep",
                               "--input=i32=1", "--input=i32=7"]),
                          "i32=7\n", "5000 nested scf.if run")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("case")
    parser.add_argument("--run", required=True)
    parser.add_argument("--dump", required=True)
    parser.add_argument("--benchmark", required=True)
    parser.add_argument("--sample", required=True)
    parser.add_argument("--hal-sample", required=True)
    parser.add_argument("--keygen", default="")
    parser.add_argument("--make-hal-sample", default="")
    parser.add_argument("--kernels", default="")
    parser.add_argument("--endless-loop", default="")
    parser.add_argument("--endless-kernel", default="")
    parser.add_argument("--service", default="")
    parser.add_argument("--compile", default="")
    parser.add_argument("--fib", default="")
    parser.add_argument("--kernel-faults", default="")
    args = parser.parse_args()
    globals()["case_" + args.case](args)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
