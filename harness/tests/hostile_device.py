#!/usr/bin/env python3
"""A hostile device for ds-harness's tests (issue 23): speaks the device protocol by passing every
request to a real device (`--serve COMMAND`, e.g. `ds-harness serve-device`), and misbehaves as
told:

  --pidfile FILE         writes its process group id to FILE when it starts
  --stop-reading TYPE    after answering its first request of TYPE (`hello` or `loaded`), reads
                         nothing more: the harness's next request (a code object, a launch of
                         many cases: more than a pipe holds) cannot be written
  --big-line BYTES       answers the first launch with a stdout line of BYTES bytes
  --big-stderr BYTES     writes one stderr line of BYTES bytes at the first launch
  --bad-stderr           writes a line that is not UTF-8 to stderr first, then a line of stderr
                         for every request
  --name TEXT            the device name its hello gives
  --hello-target TEXT    the target its hello gives (e.g. HIP's `gfx942:sramecc+:xnack-`)
  --hardware             says `hardware: true`
  --details JSON         the `details` its hello gives
  --slow-launch SECONDS  sleeps before answering the first launch of each process (start-up work
                         done at the first launch instead of before hello)
  --error-message BYTES  answers every launch with a `fault` whose message is BYTES long
  --unsupported HEX      answers every launch `unsupported` at offset 0x10 with bytes HEX
  --queue-log FILE       holds each launch's answer for 0.2 s and appends to FILE, as each launch
                         arrives, how many launches have arrived and are not yet answered (it
                         included): 2 when the harness sent it while the one before was under way

Big lines are written in pieces, so the device itself never holds them in memory. The canary's
traffic (the self-check ds-harness runs before any op: the load of a code object holding
`canary_w32`/`canary_w64`, and their launches) is passed through untouched and not counted, so
each misbehaviour hits the ops' traffic.
"""

import argparse
import base64
import json
import os
import queue
import shlex
import subprocess
import sys
import threading
import time


def is_canary(req):
    """Whether `req` is the canary's: its code object's load, or one of its launches."""
    if req["type"] == "launch":
        return req.get("kernel", "").startswith("canary_")
    if req["type"] == "load":
        return b"canary_w" in base64.b64decode(req.get("code_object", ""))
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--serve", required=True)
    ap.add_argument("--pidfile")
    ap.add_argument("--stop-reading", choices=["hello", "loaded"])
    ap.add_argument("--big-line", type=int)
    ap.add_argument("--big-stderr", type=int)
    ap.add_argument("--bad-stderr", action="store_true")
    ap.add_argument("--name")
    ap.add_argument("--hardware", action="store_true")
    ap.add_argument("--details")
    ap.add_argument("--slow-launch", type=float)
    ap.add_argument("--error-message", type=int)
    ap.add_argument("--unsupported")
    ap.add_argument("--hello-target")
    ap.add_argument("--queue-log")
    a = ap.parse_args()
    if a.pidfile:
        with open(a.pidfile + ".tmp", "w") as f:
            f.write(str(os.getpgrp()))
        os.rename(a.pidfile + ".tmp", a.pidfile)
    if a.bad_stderr:
        sys.stderr.buffer.write(b"hostile device: \xff\xfe not utf-8 \xc3\x28\n")
        sys.stderr.buffer.flush()
    dev = subprocess.Popen(shlex.split(a.serve), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    out = sys.stdout
    launches = 0
    # Requests are read as they arrive (a thread of their own), so that one sent while the one
    # before is still under way is seen to arrive then.
    arrived = queue.Queue()
    unanswered = [0]
    lock = threading.Lock()

    def read_requests():
        for line in sys.stdin:
            r = json.loads(line)
            if a.queue_log and r["type"] == "launch" and not is_canary(r):
                with lock:
                    unanswered[0] += 1
                    with open(a.queue_log, "a") as f:
                        f.write(f"{unanswered[0]}\n")
            arrived.put(line)
        arrived.put(None)

    threading.Thread(target=read_requests, daemon=True).start()
    for line in iter(arrived.get, None):
        req = json.loads(line)
        if a.bad_stderr:
            print("hostile device: request", req["type"], file=sys.stderr, flush=True)
        canary = is_canary(req)
        if req["type"] == "launch" and not canary:
            launches += 1
            if a.slow_launch and launches == 1:
                time.sleep(a.slow_launch)
            if a.big_stderr and launches == 1:
                piece = "e" * (1 << 20)
                for _ in range(a.big_stderr >> 20):
                    sys.stderr.write(piece)
                sys.stderr.write("\n")
                sys.stderr.flush()
            if a.big_line and launches == 1:
                piece = "x" * (1 << 20)
                for _ in range(a.big_line >> 20):
                    out.write(piece)
                out.write("\n")
                out.flush()
                continue
            if a.error_message:
                msg = ("fault " * (a.error_message // 6 + 1))[: a.error_message]
                out.write(json.dumps({"type": "error", "id": req["id"], "kind": "fault", "message": msg}) + "\n")
                out.flush()
                continue
            if a.unsupported:
                out.write(json.dumps({"type": "error", "id": req["id"], "kind": "unsupported",
                                      "message": "not in this device", "offset": 16,
                                      "bytes": a.unsupported}) + "\n")
                out.flush()
                continue
        if a.queue_log and req["type"] == "launch" and not canary:
            time.sleep(0.2)
            with lock:
                unanswered[0] -= 1
        if req["type"] == "hello" and req.pop("framings", None) is not None:
            # A proxy that reads lines must not pass on the binary framing it cannot speak.
            line = json.dumps(req)
        dev.stdin.write(line if line.endswith("\n") else line + "\n")
        dev.stdin.flush()
        answer = dev.stdout.readline()
        if not answer:
            sys.exit(1)
        resp = json.loads(answer)
        if resp.get("type") == "hello":
            if a.name is not None:
                resp["device"] = a.name
            if a.hello_target is not None:
                resp["target"] = a.hello_target
            resp["hardware"] = a.hardware
            if a.details is not None:
                resp["details"] = json.loads(a.details)
            answer = json.dumps(resp)
        out.write(answer.rstrip("\n") + "\n")
        out.flush()
        if resp.get("type") == "bye":
            dev.wait()
            return
        if resp.get("type") == a.stop_reading and not canary:
            time.sleep(3600)


if __name__ == "__main__":
    main()
