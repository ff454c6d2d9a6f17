#!/usr/bin/env python3
"""A deliberately partial ds-harness device, speaking the device protocol (version 1) on
stdin/stdout: copy it as the start of an adapter for your own emulator.

    ds-harness run --backend exec --allow-unsupported \
        --device-cmd 'python3 examples/device-adapter/adapter.py --target TARGET'

What it shows (docs/device-protocol.md has every message):
  * hello / load / launch / shutdown, one JSON object per line, binary data as base64;
  * finding a kernel's instructions in the code object (the ELF's symbol table) and decoding them:
    instruction lengths by this file's small decoder, DS instructions named by `ds-harness disasm`
    (so no opcode is written here);
  * the `unsupported` error, with the instruction's offset and bytes, for every kernel that holds
    a DS instruction other than ds_load_b32 / ds_store_b32, for kernels whose instruction
    under test has operands sharing a register (that needs a real register file), and for
    launches of wave64 kernels (workgroups of 64 work-items: this adapter knows wave32 only).

It does NOT run the code object as an emulator would: for the kernels it supports, it applies the
one DS instruction under test to the launch's buffers as ds-harness's kernel ABI lays them out
(kernels/src/abi.rs: lds_in, lanes_in, lds_out, lanes_out, wave_in). An emulator instead runs
every instruction of the kernel and needs to know nothing of that ABI.

Only the Python standard library is used. Diagnostics go to stderr (the harness keeps them).
"""

import argparse
import base64
import json
import struct
import subprocess
import sys

PROTOCOL = 1
SUPPORTED = ("ds_load_b32", "ds_store_b32")
# The ABI (kernels/src/abi.rs): the offsets in a lane's records (the records' sizes are taken
# from the buffers' sizes).
LANES = 32
WAVE_IN_BYTES = 8
LANE_IN_ADDR, LANE_IN_DATA0, LANE_IN_VDST = 0, 16, 48
LANE_OUT_VDST, LANE_OUT_ADDR, LANE_OUT_DATA0 = 0, 16, 32


def log(*args):
    print("adapter:", *args, file=sys.stderr, flush=True)


def elf_kernels(elf):
    """{symbol name: code bytes} for every function symbol of an ELF64 little-endian file."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
    sections = []
    for i in range(shnum):
        name, typ, flags, addr, off, size, link, info, align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", elf, shoff + i * shentsize)
        sections.append((typ, addr, off, size, link, entsize))
    kernels = {}
    for typ, _, off, size, link, entsize in sections:
        if typ != 2:  # SHT_SYMTAB
            continue
        strtab = sections[link]
        for at in range(off + entsize, off + size, entsize):
            st_name, st_info, _, st_shndx, st_value, st_size = struct.unpack_from("<IBBHQQ", elf, at)
            if st_info & 0xF != 2:  # STT_FUNC
                continue
            end = elf.index(b"\0", strtab[2] + st_name)
            name = elf[strtab[2] + st_name:end].decode()
            sec = sections[st_shndx]
            start = sec[2] + (st_value - sec[1])
            kernels[name] = elf[start:start + st_size]
    return kernels


def inst_length(code, at):
    """Bytes of the gfx11 instruction at `at` (RDNA3 ISA guide, "Microcode Formats"), or None."""
    (w,) = struct.unpack_from("<I", code, at)
    literal = 0
    if w >> 30 == 0b10:  # scalar ALU and program control: 32 bits
        if w >> 23 in (0b101111111,) or w >> 28 == 0b1011:  # SOPP, SOPK
            return 4
        if w >> 23 == 0b101111101:  # SOP1
            literal = (w & 0xFF) == 255
        else:  # SOP2, SOPC
            literal = (w & 0xFF) == 255 or (w >> 8 & 0xFF) == 255
        return 8 if literal else 4
    if w >> 31 == 0:  # VOP1, VOP2, VOPC: 32 bits, src0 may be a literal
        return 8 if (w & 0x1FF) == 255 else 4
    if w >> 26 in (0b110101, 0b110011):  # VOP3, VOP3SD, VOP3P: 64 bits, sources may be literals
        if at + 8 > len(code):
            return None
        (w1,) = struct.unpack_from("<I", code, at + 4)
        srcs = (w1 & 0x1FF, w1 >> 9 & 0x1FF, w1 >> 18 & 0x1FF)
        return 12 if 255 in srcs else 8
    if w >> 26 in (0b110110, 0b110111, 0b111101, 0b111000, 0b111010):  # DS, FLAT, SMEM, MUBUF, MTBUF
        return 8
    return None


def disassemble(ds_harness, lines):
    """The text of each 8-byte DS instruction, through `ds-harness disasm` (None where it fails)."""
    text = "".join(",".join("0x%02x" % b for b in inst) + "\n" for inst in lines)
    out = subprocess.run([ds_harness, "disasm"], input=text, capture_output=True, text=True)
    got = [l.strip() for l in out.stdout.splitlines() if l.strip()]
    if out.returncode == 0 and len(got) == len(lines):
        return got
    if len(lines) == 1:
        return [None]
    return [disassemble(ds_harness, [l])[0] for l in lines]


class Kernel:
    """A kernel as far as this adapter understands it."""

    def __init__(self, code, ds_harness):
        self.unsupported = None  # (message, offset, bytes) when this adapter cannot run it
        ds = []
        under_test = None
        after_nop = False
        at = 0
        while at < len(code):
            n = inst_length(code, at)
            if n is None:
                self.unsupported = ("instruction encoding not decoded by this adapter", at, code[at:at + 4])
                return
            (w,) = struct.unpack_from("<I", code, at)
            if w >> 26 == 0b110110:
                if after_nop and under_test is None:
                    under_test = len(ds)
                ds.append((at, bytes(code[at:at + 8])))
            # s_nop (SOPP opcode 0): the template puts one wait state right before the
            # instruction under test (after it sets M0 and EXEC).
            after_nop = w >> 16 == 0xBF80
            at += n
        texts = disassemble(ds_harness, [b for _, b in ds])
        for (off, raw), text in zip(ds, texts):
            mnemonic = (text or "?").split()[0]
            if mnemonic not in SUPPORTED:
                self.unsupported = ("%s is not supported by this adapter" % (text or "a DS instruction"), off, raw)
                return
        # The template: the LDS image copied in (stores: a loop, a tail when the size is not a
        # multiple of 128 bytes, zeroes up to the allocation granule), `s_nop 0`, the instruction
        # under test, the image copied out (loads).
        if under_test is None:
            self.unsupported = ("kernel shape not understood (no DS instruction after s_nop)", ds[0][0] if ds else 0, b"")
            return
        off, raw = ds[under_test]
        self.op = texts[under_test].split()[0]
        self.offset = raw[0] | raw[1] << 8
        # Operands sharing a register (addr = vdst, addr = data0) need a real register file.
        regs = (raw[4], raw[7]) if self.op == "ds_load_b32" else (raw[4], raw[5])
        if regs[0] == regs[1]:
            self.unsupported = ("register aliasing is not supported by this adapter", off, raw)


def run_kernel(k, workgroups, buffers):
    """The output buffers of one launch, by the kernel ABI."""
    by_name = {b["name"]: bytearray(base64.b64decode(b["bytes"])) for b in buffers}
    lds_in, lanes_in, wave_in = by_name["lds_in"], by_name["lanes_in"], by_name["wave_in"]
    lds_out, lanes_out = by_name["lds_out"], by_name["lanes_out"]
    size = len(lds_in) // workgroups
    lane_in_bytes = len(lanes_in) // (workgroups * LANES)
    lane_out_bytes = len(lanes_out) // (workgroups * LANES)
    for c in range(workgroups):
        lds = bytearray(lds_in[c * size:(c + 1) * size])
        exec_mask, _m0 = struct.unpack_from("<II", wave_in, c * WAVE_IN_BYTES)
        for lane in range(LANES):
            rin = (c * LANES + lane) * lane_in_bytes
            rout = (c * LANES + lane) * lane_out_bytes
            (addr,) = struct.unpack_from("<I", lanes_in, rin + LANE_IN_ADDR)
            vdst = list(struct.unpack_from("<4I", lanes_in, rin + LANE_IN_VDST))
            if exec_mask >> lane & 1:
                at = (addr + k.offset) & 0xFFFFFFFF
                if k.op == "ds_store_b32":
                    data = lanes_in[rin + LANE_IN_DATA0:rin + LANE_IN_DATA0 + 4]
                    for i in range(4):  # bytes past the allocation are dropped
                        if at + i < size:
                            lds[at + i] = data[i]
                else:  # bytes past the allocation read as zero
                    vdst[0] = int.from_bytes(bytes(lds[at + i] if at + i < size else 0 for i in range(4)), "little")
            struct.pack_into("<4I", lanes_out, rout + LANE_OUT_VDST, *vdst)
            struct.pack_into("<I", lanes_out, rout + LANE_OUT_ADDR, addr)
            if lane_out_bytes >= LANE_OUT_DATA0 + 4:  # kernels that dump data0 too (unchanged)
                lanes_out[rout + LANE_OUT_DATA0:rout + LANE_OUT_DATA0 + 4] = \
                    lanes_in[rin + LANE_IN_DATA0:rin + LANE_IN_DATA0 + 4]
        lds_out[c * size:(c + 1) * size] = lds
    return [{"name": b["name"], "bytes": base64.b64encode(by_name[b["name"]]).decode()}
            for b in buffers if b["output"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", required=True, help="the target this device says it runs")
    ap.add_argument("--ds-harness", default="ds-harness", help="the ds-harness binary (for disasm)")
    args = ap.parse_args()
    modules = []

    def send(msg):
        sys.stdout.write(json.dumps(msg) + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError as e:
            send({"type": "error", "id": None, "kind": "other", "message": "not JSON: %s" % e})
            continue
        rid, typ = req.get("id"), req.get("type")
        if typ == "hello":
            send({"type": "hello", "id": rid, "protocol": PROTOCOL, "target": args.target,
                  "device": "example adapter: b32 loads and stores only",
                  "version": "examples/device-adapter/adapter.py 1", "hardware": False})
        elif typ == "load":
            try:
                kernels = elf_kernels(base64.b64decode(req["code_object"]))
                modules.append({n: Kernel(c, args.ds_harness) for n, c in kernels.items()})
                log("loaded %d kernels" % len(kernels))
                send({"type": "loaded", "id": rid, "module": len(modules) - 1})
            except Exception as e:  # noqa: BLE001 -- any failure is the device's answer
                send({"type": "error", "id": rid, "kind": "other", "message": "load: %s" % e})
        elif typ == "launch":
            k = modules[req["module"]].get(req["kernel"]) if req["module"] < len(modules) else None
            if k is None:
                send({"type": "error", "id": rid, "kind": "other", "message": "no kernel %r" % req["kernel"]})
            elif req.get("workgroup_size") != LANES:
                send({"type": "error", "id": rid, "kind": "unsupported",
                      "message": "workgroups of %s work-items (a wave64 kernel): this adapter runs "
                                 "wave32 only" % req.get("workgroup_size"),
                      "offset": 0, "bytes": ""})
            elif k.unsupported:
                msg, off, raw = k.unsupported
                send({"type": "error", "id": rid, "kind": "unsupported", "message": msg,
                      "offset": off, "bytes": raw.hex()})
            else:
                send({"type": "done", "id": rid,
                      "buffers": run_kernel(k, req["workgroups"], req["buffers"])})
        elif typ == "shutdown":
            send({"type": "bye", "id": rid})
            return
        else:
            send({"type": "error", "id": rid, "kind": "other", "message": "unknown request %r" % typ})


if __name__ == "__main__":
    main()
