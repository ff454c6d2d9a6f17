#!/usr/bin/env bash
# scripts/bench.sh [BASE_REV]: how fast this tree is against a base revision, measured side by
# side on this machine (README, "Speed"). Builds the current tree and BASE_REV (default: the
# last release tag, else the merge base with main, else HEAD^) in release, then runs the same
# commands with both binaries, alternating, DS_BENCH_RUNS times each (default 5), and prints the
# medians of CPU time (user + system, the robust figure on a shared machine) and wall time, and
# their ratios:
#
#   - the default run (emulated device, every wave size of the default target);
#   - `run --wave 32 --cases 1000`, and whether both binaries' results JSON agree (timings and
#     revision aside; the timed runs write no results file, as the command is usually typed);
#   - a run on the first target (in the target table's order) whose runs have AccVGPR twins of
#     every op with data or vdst (the current binary is asked: no target is named here;
#     DS_BENCH_ACC_TARGET=T picks another);
#   - the device protocol: `run --backend exec --device-cmd 'ds-harness serve-device --backend
#     emu'` against the same binary in process, at 300 and 1000 cases per op (wall time);
#   - the host side alone (`cargo bench -p ds-harness --bench host`: case generation and the check
#     of recorded device answers, on one core, as cases/s and shares of the run);
#   - peak memory of a run at 20,000 and 200,000 cases per op (three ops).
#
# What the base revision cannot do (no such target, no host bench) is skipped, saying so. The
# base's sources are exported (`git archive`: no worktree) under $TMPDIR (removed at the end) and
# built into target/bench-base (kept, so the next call with the same base builds nothing). Needs git, cargo, python3. CI does not run
# it: it is for people, and its output belongs in the closing note of a change to a hot path.
set -euo pipefail

root=$(git rev-parse --show-toplevel)
cd "$root"
runs=${DS_BENCH_RUNS:-5}

base=${1:-}
why=""
if [ -z "$base" ]; then
    if tag=$(git describe --tags --abbrev=0 2>/dev/null); then
        base=$tag why="the last release tag"
    elif mb=$(git merge-base HEAD main 2>/dev/null) && [ "$mb" != "$(git rev-parse HEAD)" ]; then
        base=$mb why="the merge base with main"
    else
        base=HEAD^ why="HEAD^"
    fi
fi
base_rev=$(git rev-parse --short "$base^{commit}")
cur_rev=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo "+changes")

work=$(mktemp -d "${TMPDIR:-/tmp}/ds-bench.XXXXXX")
src="$work/base-src"
trap 'rm -rf "$work"' EXIT

# The host bench's executable, built in the tree at $1 into the target dir $2 (none: empty).
host_bench() {
    [ -f "$1/harness/benches/host.rs" ] || return 0
    (cd "$1" && CARGO_TARGET_DIR=$2 cargo bench -q -p ds-harness --bench host --no-run \
        --message-format=json 2>/dev/null) |
        python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m["target"]["name"]=="host" and m.get("executable"):
        print(m["executable"])'
}

echo "building the current tree ($cur_rev) ..." >&2
cargo build -q --release -p ds-harness >&2
mkdir -p "$work/cur" "$work/base"
cp target/release/ds-harness "$work/cur/"
hb=$(host_bench "$root" "$root/target")
[ -n "$hb" ] && cp "$hb" "$work/cur/host-bench"

# The base's binaries are kept by commit: a second call against the same base builds nothing.
kept="$root/target/bench-base/bin-$(git rev-parse "$base_rev^{commit}")"
if [ ! -x "$kept/ds-harness" ]; then
    echo "building $base_rev${why:+ ($why)} into target/bench-base ..." >&2
    mkdir -p "$src"
    # Extracted with the time of extraction (-m), not the commit's: cargo takes a source older
    # than the last build in target/bench-base for built, and would reuse another base's crates.
    git archive "$base_rev" | tar -x -m -C "$src"
    # No repository there: the revision the binary reports is given.
    export DS_HARNESS_REVISION=$base_rev
    (cd "$src" && CARGO_TARGET_DIR="$root/target/bench-base" cargo build -q --release -p ds-harness >&2)
    mkdir -p "$kept.tmp"
    cp "$root/target/bench-base/release/ds-harness" "$kept.tmp/"
    hb=$(host_bench "$src" "$root/target/bench-base")
    [ -n "$hb" ] && cp "$hb" "$kept.tmp/host-bench"
    rm -rf "$kept" && mv "$kept.tmp" "$kept"
    unset DS_HARNESS_REVISION
    rm -rf "$src"
fi
cp "$kept"/* "$work/base/"

python3 - "$work" "$runs" "$base_rev" "${why:-given}" "$cur_rev" <<'PY'
import json, os, re, statistics, subprocess, sys, time

work, runs, base_rev, why, cur_rev = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
bins = {"base": f"{work}/base/ds-harness", "cur": f"{work}/cur/ds-harness"}
hosts = {k: f"{work}/{k}/host-bench" for k in bins if os.path.exists(f"{work}/{k}/host-bench")}


def measure(argv, out=None):
    """Runs argv; (cpu seconds, wall seconds, peak RSS in MB, exit status, stdout)."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, cwd=work)
    stdout = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return ru.ru_utime + ru.ru_stime, wall, ru.ru_maxrss / 1024, p.returncode, stdout.decode(errors="replace")


def run_args(who, extra, tag, json=False):
    """`run EXTRA` of binary `who`: as a person types it (no results file: a run writes its
    JSON after every op), or with `--json` for the comparison of results."""
    out = ["--json", f"{work}/{who}-{tag}.json"] if json else []
    return [bins[who], "run", "--out", f"{work}/out-{who}-{tag}"] + out + extra


def alternate(tag, extra, rounds=runs, whos=("base", "cur")):
    """Each binary's samples of `run EXTRA`, the binaries taking turns."""
    got = {w: [] for w in whos}
    for _ in range(rounds):
        for w in whos:
            cpu, wall, rss, rc, _ = measure(run_args(w, extra, tag))
            if rc not in (0, 1):
                got[w] = None
            if got[w] is not None:
                got[w].append((cpu, wall, rss))
        whos = whos[::-1]
    return got


def med(samples, i):
    return statistics.median(s[i] for s in samples)


def norm(x):
    drop = {"harness", "elapsed_seconds", "date", "backend_reason", "device command", "threads"}
    if isinstance(x, dict):
        return {k: norm(v) for k, v in x.items() if k not in drop}
    if isinstance(x, list):
        return [norm(v) for v in x]
    return x


def difference(a, b, path="results"):
    """Where two results JSON differ first, in words (None: they agree)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in b:
                return f"{path}.{k} only in the base's"
            if k not in a:
                return f"{path}.{k} only in the current tree's"
            d = difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} entries against {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {str(a)[:60]} against {str(b)[:60]}"


def supports(who, extra):
    _, _, _, rc, _ = measure(run_args(who, extra + ["--cases", "1", "--op", "ds_add_u32"], "probe"))
    return rc in (0, 1)


rows = []


def row(name, got):
    b, c = got.get("base"), got.get("cur")
    if not c:
        rows.append((name, "current tree failed"))
        return
    if not b:
        rows.append((name, f"skipped for the base (it cannot run this); current: CPU {med(c,0):.2f} s, wall {med(c,1):.2f} s"))
        return
    bc, cc, bw, cw = med(b, 0), med(c, 0), med(b, 1), med(c, 1)
    rows.append((name, f"CPU {bc:6.2f} -> {cc:6.2f} s ({bc/cc:4.2f}x)   wall {bw:6.2f} -> {cw:6.2f} s ({bw/cw:4.2f}x)"))


try:
    model = re.search(r"model name\s*:\s*(.*)", open("/proc/cpuinfo").read()).group(1)
except Exception:
    model = "unknown CPU"
mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
print(f"ds-harness bench: current {cur_rev} against base {base_rev} ({why}); {runs} runs of each, alternating; medians")
print(f"machine: {os.cpu_count()} cores, {model}, {mem:.0f} GiB, load average at start {os.getloadavg()[0]:.1f}")
print("speed-ups are base / current (above 1: the current tree is faster)\n")

row("default run (emu, every wave size)", alternate("default", ["--backend", "emu"]))
w32 = alternate("w32", ["--backend", "emu", "--wave", "32", "--cases", "1000"])
row("run --wave 32 --cases 1000", w32)
if w32.get("base") and w32.get("cur"):
    for w in ("base", "cur"):
        measure(run_args(w, ["--backend", "emu", "--wave", "32", "--cases", "1000"], "w32", json=True))
    d = difference(norm(json.load(open(f"{work}/base-w32.json"))), norm(json.load(open(f"{work}/cur-w32.json"))))
    rows.append(("  results JSON (timings, revision aside)", "the same" if d is None else f"DIFFERENT: {d}"))
    cases = json.load(open(f"{work}/cur-w32.json"))["totals"]["cases"]
    rows.append(("  cases/s (current, CPU; wall)", f"{cases/med(w32['cur'],0):,.0f} per CPU second; {cases/med(w32['cur'],1):,.0f} per second"))
def acc_target():
    """The first target of the table whose runs have acc twins (variants tagged `-acc`)."""
    err = subprocess.run([bins["cur"], "run", "--backend", "emu", "--target", "?"], capture_output=True, text=True).stderr
    names = re.findall(r"gfx[0-9a-z]+(?:-generic)?", err.split("supported targets:")[-1])
    for t in names:
        probe = f"{work}/probe-{t}.json"
        subprocess.run([bins["cur"], "run", "--backend", "emu", "--target", t, "--op", "ds_add_u32", "--cases", "1", "--json", probe, "--out", f"{work}/out-probe"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=work)
        try:
            ops = json.load(open(probe))["ops"]
        except Exception:
            continue
        if any(v["tag"].endswith("-acc") for o in ops for v in o["variants"]):
            return t
    return None


acc = os.environ.get("DS_BENCH_ACC_TARGET") or acc_target()
if acc:
    extra = ["--backend", "emu", "--target", acc]
    whos = tuple(w for w in ("base", "cur") if supports(w, extra))
    row(f"{acc} run (acc twins)", alternate("acc", extra, whos=whos) if whos else {})
else:
    rows.append(("run with acc twins", "skipped: no target's runs have acc twins"))

for n in (300, 1000):
    got = {}
    for w in ("base", "cur"):
        serve = f"'{bins[w]}' serve-device --backend emu"
        ex, inp = [], []
        for _ in range(runs):
            e = measure(run_args(w, ["--backend", "exec", "--device-cmd", serve, "--wave", "32", "--cases", str(n)], f"exec{n}"))
            i = measure(run_args(w, ["--backend", "emu", "--wave", "32", "--cases", str(n)], f"inproc{n}"))
            if e[3] not in (0, 1) or i[3] not in (0, 1):
                break
            ex.append(e)
            inp.append(i)
        got[w] = (ex, inp) if ex else None
    parts = []
    for w in ("base", "cur"):
        if got[w]:
            ex, inp = got[w]
            parts.append(f"{w} {med(ex,1):.2f} / {med(inp,1):.2f} s = {med(ex,1)/med(inp,1):.2f}x")
    rows.append((f"exec protocol / in process, wall, {n} cases per op", ";  ".join(parts)))

if "cur" in hosts:
    got = {}
    for _ in range(runs):
        for w in ("base", "cur"):
            if w in hosts:
                out = subprocess.run([hosts[w], "--cases", "1000"], capture_output=True, text=True, cwd=work).stdout
                line = [l for l in out.splitlines() if l.startswith("BENCH ")][-1]
                got.setdefault(w, []).append(dict(kv.split("=") for kv in line.split()[1:]))
    c = got["cur"]
    m = lambda k, s=c: statistics.median(float(x[k]) for x in s)
    cases = float(c[0]["cases"])
    for k, what in (("check_s", "host check (readback + model + diff + legal)"), ("generate_s", "host case generation")):
        text = f"{cases/m(k):,.0f} cases/s per core, {100*m(k)/m('total_s'):.0f}% of the whole run on one core"
        if "base" in got:
            text += f"  (base: {cases/m(k, got['base']):,.0f} cases/s, speed-up {m(k, got['base'])/m(k):.2f}x)"
        rows.append((what, text))
    text = f"one core: {m('total_s'):.2f} s, of it the emulated device {m('device_s'):.2f} s"
    if "base" in got:
        text += f"  (base {m('total_s', got['base']):.2f} s)"
    rows.append(("  the whole wave32 x1000 run", text))
    if "base" not in got:
        rows.append(("  host side of the base", "skipped: the base has no host bench (harness/benches/host.rs)"))

mem_ops = ["--op", "ds_add_u32", "--op", "ds_load_b128", "--op", "ds_bpermute_b32", "--wave", "32"]
for w in ("base", "cur"):
    peaks = [measure(run_args(w, ["--backend", "emu", "--cases", str(n)] + mem_ops, f"mem{n}"))[2] for n in (20000, 200000)]
    rows.append((f"peak memory 20k -> 200k cases per op ({w})", f"{peaks[0]:.0f} -> {peaks[1]:.0f} MB ({peaks[1]/peaks[0]:.2f}x; 3 ops)"))

width = max(len(n) for n, _ in rows)
for n, t in rows:
    print(f"{n:<{width}}  {t}")
PY
