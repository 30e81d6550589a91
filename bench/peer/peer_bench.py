#!/usr/bin/python3
"""clprof side by side with its peer (Intel's opencl-intercept-layer): the runner.

Run through bench/peer/run.sh (its header has the usage; bench/peer/README.md the method).
For every case, ROUNDS rounds; in each round every variant runs the case once, in a fresh
random order (seeded, printed). Every run is timed from fork to exit (wall, and user/sys/max
RSS from wait4), its output parsed, and its tool's output verified: a variant that wrote no
trace or report fails loudly and is left out of the figures. Writes rounds.csv (every run)
and table.md (the tables, ready to paste) to --out, and prints the tables.
Standard library only; Debian's /usr/bin/python3. Runs one program at a time.
"""
import argparse
import csv
import datetime
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as cases_mod  # noqa: E402
import report  # noqa: E402
import variants as variants_mod  # noqa: E402

COLUMNS = ("case", "round", "slot", "variant", "ok", "reason", "start_utc", "wall_s", "user_s",
           "sys_s", "maxrss_kb", "program_launches", "ns_per_iter", "thread_cpu_ns_per_iter",
           "process_cpu_ns_per_iter", "user_ns_per_iter", "sys_ns_per_iter", "peak_rss_kb",
           "queued_to_start_ns_per_iter", "queued_to_end_ns_per_iter",
           "tool_threads_cpu_ns_per_iter", "other_threads_cpu_ns_per_iter", "clpeak_latency_us",
           "out_bytes", "trace_bytes", "launches", "transfers", "load1_before", "load1_after",
           "steal_pct")


def cpu_ticks():
    """(steal, total) jiffies of all CPUs since boot, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal [guest guest_nice: counted in user]
    return fields[7] if len(fields) > 7 else 0, sum(fields[:8])


def steal_pct(t0, t1):
    total = t1[1] - t0[1]
    return 100.0 * (t1[0] - t0[0]) / total if total > 0 else 0.0


def load_avg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def git_commit(source):
    """Short commit of a source checkout, '+changes' when shim/ or include/ differ from it."""
    try:
        rev = subprocess.run(["git", "-C", source, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    dirty = subprocess.run(["git", "-C", source, "diff", "--quiet", "HEAD", "--", "shim",
                            "include"], capture_output=True).returncode
    return rev + (" (+ uncommitted changes in shim/ or include/)" if dirty else "")


def cmake_source(build):
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith("CMAKE_HOME_DIRECTORY:INTERNAL="):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def find_peer(path):
    """clIntercept's libOpenCL.so from its build folder (or the library itself)."""
    for candidate in (path, os.path.join(path, "intercept", "libOpenCL.so"),
                      os.path.join(path, "libOpenCL.so")):
        if os.path.isfile(candidate):
            return os.path.abspath(candidate)
    sys.exit(f"peer_bench: no clIntercept libOpenCL.so in {path} "
             "(give its build folder, see bench/peer/README.md)")


def run_once(case, variant, opts, tools, work, round_no, slot):
    run_dir = os.path.join(work, case.name, variant.name)
    shutil.rmtree(run_dir, ignore_errors=True)
    os.makedirs(run_dir)
    env = variants_mod.base_environment()
    env["OCL_ICD_VENDORS"] = tools["icd_" + case.platform]
    env.update(variants_mod.environment(variant, tools, run_dir))
    argv = case.argv(opts)
    if variant.args:
        argv = argv[:1] + list(variant.args) + argv[1:]
    row = dict.fromkeys(COLUMNS)
    row.update(case=case.name, round=round_no, slot=slot, variant=variant.name,
               start_utc=datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M:%S"),
               load1_before=load_avg()[0])
    out_path, err_path = os.path.join(run_dir, "stdout"), os.path.join(run_dir, "stderr")
    ticks0 = cpu_ticks()
    t0 = time.monotonic_ns()
    with open(out_path, "wb") as so, open(err_path, "wb") as se:
        proc = subprocess.Popen(argv, env=env, cwd=run_dir, stdin=subprocess.DEVNULL,
                                stdout=so, stderr=se, preexec_fn=_affinity(opts.cpus))
        _, status, ru = os.wait4(proc.pid, 0)
    row["wall_s"] = (time.monotonic_ns() - t0) / 1e9
    proc.returncode = os.waitstatus_to_exitcode(status)
    row.update(steal_pct=steal_pct(ticks0, cpu_ticks()), load1_after=load_avg()[0],
               user_s=ru.ru_utime, sys_s=ru.ru_stime, maxrss_kb=ru.ru_maxrss)
    stdout = open(out_path, encoding="utf-8", errors="replace").read()
    stderr = open(err_path, encoding="utf-8", errors="replace").read()
    try:
        if proc.returncode != 0:
            last = (stderr.strip().splitlines() or ["(no stderr)"])[-1]
            raise variants_mod.Unverified(f"exit status {proc.returncode}: {last}")
        try:
            row.update(case.parse(stdout))
        except ValueError as e:
            raise variants_mod.Unverified(str(e)) from None
        expected = row["program_launches"]
        row.update(variants_mod.verify(variant, run_dir, stderr,
                                       None if expected is None else int(expected)))
        row.update(ok=1, reason="")
    except variants_mod.Unverified as e:
        row.update(ok=0, reason=str(e))
        keep = os.path.join(opts.out, "failed", f"{case.name}-{variant.name}-r{round_no}")
        os.makedirs(keep, exist_ok=True)
        shutil.copy(out_path, keep)
        shutil.copy(err_path, keep)
        print(f"\nFAILED {case.name} / {variant.name}, round {round_no}: {e} "
              f"(stdout, stderr in {keep})", file=sys.stderr)
    shutil.rmtree(run_dir, ignore_errors=True)
    return row


def parse_args():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(prog="bench/peer/run.sh", description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(here, "..", "..", "build"),
                    help="clprof build folder (bin/enqueue_bench, lib/libclprof.so, the fake "
                         "driver, bin/clblast_network); default ./build")
    ap.add_argument("--peer", help="clIntercept's build folder (or its libOpenCL.so); without "
                                   "it the clIntercept variants are skipped")
    ap.add_argument("--rounds", type=int, default=15, help="rounds per case (15)")
    ap.add_argument("--long-rounds", type=int, default=5,
                    help="rounds of the long cases: xim2col and the 4x loops (5)")
    ap.add_argument("--shim", action="append", default=[], metavar="LABEL=PATH",
                    help="also run the clprof variants with this libclprof.so (repeatable): "
                         "builds of the shim side by side, e.g. before=/tmp/before.so")
    ap.add_argument("--cases", default=",".join(c.name for c in cases_mod.CASES))
    ap.add_argument("--variants", default=",".join(v.name for v in variants_mod.VARIANTS))
    ap.add_argument("--iters-pocl", type=int, default=200000)
    ap.add_argument("--iters-fake", type=int, default=1000000)
    ap.add_argument("--iters-latency", type=int, default=20000)
    ap.add_argument("--network-iters", type=int, default=5)
    ap.add_argument("--pocl-icd", default="/etc/OpenCL/vendors/pocl.icd")
    ap.add_argument("--loader", default="/usr/lib/x86_64-linux-gnu/libOpenCL.so.1",
                    help="the ICD loader clIntercept forwards to")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--out", default=None, help="folder for rounds.csv and table.md "
                                                "(default: a new one in $TMPDIR)")
    ap.add_argument("--cpus", default=None, metavar="LIST",
                    help="run every program on these CPUs only, e.g. 0 (one core: a tool's "
                         "thread shares the app's cache; the driver's threads too); "
                         "default: all")
    ap.add_argument("--no-warmup", action="store_true",
                    help="skip the unrecorded bare run before each case's rounds")
    opts = ap.parse_args()
    for name in ("rounds", "long_rounds", "iters_pocl", "iters_fake", "iters_latency",
                 "network_iters"):
        if not 1 <= getattr(opts, name) <= 10**8:
            ap.error(f"--{name.replace('_', '-')} must be 1..10^8")
    if opts.cpus is not None:
        opts.cpus = _cpu_list(ap, opts.cpus)
    return opts


def _cpu_list(ap, text):
    """Parses "0", "0,2" or "0-3" into a set of CPUs this process may use (else an
    argparse error)."""
    cpus = set()
    try:
        for part in text.split(","):
            lo, _, hi = part.partition("-")
            cpus.update(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        ap.error(f"--cpus {text}: expected CPU numbers such as 0 or 0,1 or 0-1")
    allowed = os.sched_getaffinity(0)
    if not cpus or not cpus <= allowed:
        ap.error(f"--cpus {text}: expected CPUs among {sorted(allowed)}")
    return cpus


def _affinity(cpus):
    """The child's pre-exec step: pin it (and every thread it starts) to `cpus`."""
    return None if cpus is None else (lambda: os.sched_setaffinity(0, cpus))


def select(names, table, what):
    chosen = []
    for n in filter(None, names.split(",")):
        if n not in table:
            sys.exit(f"peer_bench: unknown {what} '{n}' (known: {', '.join(table)})")
        chosen.append(table[n])
    return chosen


def available(case, opts):
    """None when the case can run, else why not."""
    prog = case.argv(opts)[0]
    if os.sep in prog:
        return None if os.access(prog, os.X_OK) else f"{prog} is not built"
    return None if shutil.which(prog) else f"{prog} is not installed"


def main():
    opts = parse_args()
    opts.build = os.path.abspath(opts.build)
    tools = {"shim": os.path.join(opts.build, "lib", "libclprof.so"), "loader": opts.loader,
             "icd_pocl": opts.pocl_icd,
             "icd_fake": os.path.join(opts.build, "fake_icd_vendors", "clprof_fake.icd")}
    for need in ("shim", "loader", "icd_pocl", "icd_fake"):
        if not os.path.exists(tools[need]):
            sys.exit(f"peer_bench: missing {tools[need]} (build the targets enqueue_bench "
                     "clprof_shim clprof_fake_icd clblast_network)")
    variants = select(opts.variants, variants_mod.BY_NAME, "variant")
    for spec in opts.shim:
        label, _, path = spec.partition("=")
        if not label or not os.path.isfile(path):
            sys.exit(f"peer_bench: --shim {spec}: expected LABEL=PATH of a libclprof.so")
        chosen = {v.name for v in variants}
        variants += [v for v in variants_mod.other_shim(label, os.path.abspath(path))
                     if v.name.split("@")[0] in chosen]
    if opts.peer:
        tools["peer"] = find_peer(opts.peer)
        for conf in (os.path.expanduser("~/clintercept.conf"), "/etc/OpenCL/clintercept.conf"):
            if os.path.exists(conf):
                print(f"warning: {conf} exists and sets clIntercept controls for every run",
                      file=sys.stderr)
    else:
        skipped = [v.name for v in variants if v.tool == "clintercept"]
        variants = [v for v in variants if v.tool != "clintercept"]
        if skipped:
            print(f"clIntercept variants skipped ({', '.join(skipped)}): no --peer given "
                  "(bench/peer/README.md says how to build it)", file=sys.stderr)
    cases = []
    for case in select(opts.cases, cases_mod.BY_NAME, "case"):
        why = available(case, opts)
        if why:
            print(f"case {case.name} skipped: {why}", file=sys.stderr)
        else:
            cases.append(case)
    opts.out = os.path.abspath(opts.out or tempfile.mkdtemp(
        prefix="clprof_peer_bench.", dir=os.environ.get("TMPDIR", "/tmp")))
    os.makedirs(opts.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="work.", dir=opts.out)
    seed = opts.seed if opts.seed is not None else int(time.time())
    rng = random.Random(seed)

    started = datetime.datetime.now(datetime.timezone.utc)
    load0, ticks0 = load_avg(), cpu_ticks()
    all_rows, per_case = [], []
    csv_path = os.path.join(opts.out, "rounds.csv")
    with open(csv_path, "w", newline="") as csv_file:
        writer = csv.DictWriter(csv_file, fieldnames=COLUMNS)
        writer.writeheader()
        for case in cases:
            runs = [v for v in variants if case.events or not v.loop_only]
            rounds = opts.long_rounds if case.long else opts.rounds
            if not opts.no_warmup:
                warm = run_once(case, variants_mod.BY_NAME["bare"], opts, tools, work, 0, 0)
                if not warm["ok"]:
                    sys.exit(f"peer_bench: {case.name} fails bare: {warm['reason']}")
            rows = []
            for round_no in range(1, rounds + 1):
                order = runs[:]
                rng.shuffle(order)
                line = []
                for slot, variant in enumerate(order):
                    row = run_once(case, variant, opts, tools, work, round_no, slot)
                    rows.append(row)
                    writer.writerow({k: f"{v:.6g}" if isinstance(v, float) else v
                                     for k, v in row.items()})
                    csv_file.flush()
                    value = case.columns[0].value(row) if row["ok"] else None
                    line.append(f"{variant.name} " + ("FAILED" if value is None else
                                                      case.columns[0].fmt.format(value)))
                print(f"{case.name} round {round_no}/{rounds}: {', '.join(line)}",
                      file=sys.stderr)
            per_case.append((case, rows))
            all_rows += rows
    shutil.rmtree(work, ignore_errors=True)

    load1, ticks1 = load_avg(), cpu_ticks()
    loads = [r[k] for r in all_rows for k in ("load1_before", "load1_after")]
    peer_source = cmake_source(os.path.dirname(os.path.dirname(tools["peer"]))) \
        if "peer" in tools else None
    text = [f"## clprof vs clIntercept: {started:%Y-%m-%d %H:%M} UTC",
            "",
            f"* clprof {git_commit(cmake_source(opts.build) or opts.build)} "
            f"(build {opts.build}); peer: "
            + (f"clIntercept {git_commit(peer_source) if peer_source else '?'} "
               f"({tools['peer']})" if "peer" in tools else "not run"),
            f"* machine: {platform.node()}, {os.cpu_count()} CPUs, "
            f"{_cpu_model()}; load average (1/5/15 min) "
            f"{'/'.join(f'{x:.2f}' for x in load0)} at start, "
            f"{'/'.join(f'{x:.2f}' for x in load1)} at end, 1-min load "
            f"{min(loads, default=0):.2f}–{max(loads, default=0):.2f} over the runs; "
            f"steal {steal_pct(ticks0, ticks1):.1f}% of CPU time over the run"
            + (f"; every program pinned to CPUs {sorted(opts.cpus)} (--cpus)"
               if opts.cpus is not None else ""),
            f"* rounds: {opts.rounds} ({opts.long_rounds} for the long cases); the variants "
            f"in a new random order each round (seed {seed}); median [min–max] over rounds; "
            "ratio to bare = median [min–max] of the per-round ratios (each run against the "
            "bare run of the same round); added = median of the per-round differences",
            "", "### Ratio to bare, first column of each case", "",
            report.headline(per_case, variants)]
    for case, rows in per_case:
        text += ["", f"### {case.name}: {case.title}", "",
                 f"`{' '.join(case.argv(opts))}`", "",
                 report.case_table(case, rows, variants)]
    table = "\n".join(text) + "\n"
    with open(os.path.join(opts.out, "table.md"), "w") as f:
        f.write(table)
    print(table)
    print(f"rounds: {csv_path}\ntable: {os.path.join(opts.out, 'table.md')}", file=sys.stderr)
    failed = sum(1 for r in all_rows if not r["ok"])
    if failed:
        print(f"peer_bench: {failed} run(s) FAILED verification (see above)", file=sys.stderr)
        return 1
    return 0


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


if __name__ == "__main__":
    sys.exit(main())
