#!/usr/bin/env python3
"""A fault-injecting device for ds-harness's tests: speaks the device protocol by passing every
request to a real device (`--serve COMMAND`, e.g. `ds-harness serve-device`) and, for the launches
of the ops it is told to break, does one thing wrong instead:

  --flip OP      flips bit 0 of lane 0's vdst word 0 in the first case (a wrong result)
  --crash OP     dies (SIGABRT) before answering
  --hang OP      never answers
  --hang-kernel PREFIX  never answers the launches of the kernels whose names start with PREFIX
                 (one variant of an op: a device that times out on every launch is given up)
  --garbage OP   answers with a line that is not a protocol message
  --short OP     answers with the lanes_out buffer one byte short
  --wrong-id OP  answers with the id of another request (the request's id + 1000)
  --pause-once FILE  at the first launch of an op (not the canary, which runs first), if FILE
                 does not exist: writes its pid to FILE and sleeps (so a test can kill -9 it
                 mid-run); the device started after it goes on

An op's launches are found by the kernel's name, which starts with the op's mnemonic and `_o`.
"""

import argparse
import base64
import json
import os
import shlex
import subprocess
import sys
import time


def matches(kernel, ops):
    return any(kernel.startswith(op + "_o") for op in ops)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--serve", required=True)
    for f in ("flip", "crash", "hang", "garbage", "short", "wrong-id"):
        ap.add_argument("--" + f, action="append", default=[], metavar="OP")
    ap.add_argument("--hang-kernel", action="append", default=[], metavar="PREFIX")
    ap.add_argument("--pause-once")
    a = ap.parse_args()
    dev = subprocess.Popen(shlex.split(a.serve), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def out(line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        req = json.loads(line)
        kernel = req.get("kernel", "")
        if req["type"] == "launch":
            if a.pause_once and kernel.startswith("ds_") and not os.path.exists(a.pause_once):
                with open(a.pause_once + ".tmp", "w") as f:
                    f.write(str(os.getpid()))
                os.rename(a.pause_once + ".tmp", a.pause_once)
                print("fault device: pausing at", kernel, file=sys.stderr, flush=True)
                time.sleep(60)
            if matches(kernel, a.crash):
                print("fault device: crashing on", kernel, file=sys.stderr, flush=True)
                os.abort()
            if matches(kernel, a.hang) or any(kernel.startswith(p) for p in a.hang_kernel):
                print("fault device: hanging on", kernel, file=sys.stderr, flush=True)
                time.sleep(3600)
            if matches(kernel, a.garbage):
                out("Segmentation fault (core dumped) -- not JSON")
                continue
        if req["type"] == "hello" and req.pop("framings", None) is not None:
            # A proxy that reads lines must not pass on the binary framing it cannot speak.
            line = json.dumps(req)
        dev.stdin.write(line if line.endswith("\n") else line + "\n")
        dev.stdin.flush()
        answer = dev.stdout.readline()
        if not answer:
            print("fault device: the real device died", file=sys.stderr, flush=True)
            sys.exit(1)
        resp = json.loads(answer)
        if resp.get("type") == "hello":
            resp["device"] = "fault-injecting device over " + resp["device"]
            resp["version"] += " + harness/tests/fault_device.py"
            answer = json.dumps(resp)
        if resp.get("type") == "done" and (matches(kernel, a.flip) or matches(kernel, a.short)):
            for b in resp["buffers"]:
                if b["name"] != "lanes_out":
                    continue
                raw = bytearray(base64.b64decode(b["bytes"]))
                if matches(kernel, a.flip):
                    raw[0] ^= 1
                else:
                    raw = raw[:-1]
                b["bytes"] = base64.b64encode(raw).decode()
            answer = json.dumps(resp)
        if resp.get("type") == "done" and matches(kernel, a.wrong_id):
            resp["id"] += 1000
            answer = json.dumps(resp)
        out(answer.rstrip("\n"))
        if resp.get("type") == "bye":
            dev.wait()
            return


if __name__ == "__main__":
    main()
