"""The variants of the peer benchmark, declared once: how a program is started under each one
and how a run is checked to have measured something.

A variant that wrote no trace or no report is not a measurement: verify() says why, and the
runner fails that variant loudly instead of publishing a bare-speed figure under a tool's name.
Standard library only (Debian's /usr/bin/python3); single-threaded.
"""
import json
import os
import re
import subprocess
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Variant:
    name: str            # the CSV's and the command line's name
    label: str           # the table's words
    tool: str            # "" (no tool), "clprof" or "clintercept"
    env: dict = field(default_factory=dict)   # besides LD_PRELOAD and the output path
    args: tuple = ()     # extra arguments of enqueue_bench (the app's own events)
    loop_only: bool = False  # only the plain enqueue_bench loop cases run it
    to_null: bool = False    # clprof writes its trace to /dev/null
    shim: str = ""           # another libclprof.so than the build's (--shim LABEL=PATH)
    zst: bool = False        # clprof writes its trace compressed (trace.json.zst)


VARIANTS = (
    Variant("bare", "bare", ""),
    Variant("bare-events", "bare, app asks profiling + an event per launch", "",
            args=("--events",), loop_only=True),
    Variant("bare-events-held", "bare, app holds each event 512 launches, reads its 4 times", "",
            args=("--events-held",), loop_only=True),
    Variant("bare-events-remote", "bare, a second thread reads each event's 4 times", "",
            args=("--events-remote",), loop_only=True),
    Variant("bare-app-work-500", "bare, the app's thread works 500 ns more per launch", "",
            args=("--app-work-ns", "500"), loop_only=True),
    Variant("bare-app-work-1000", "bare, the app's thread works 1000 ns more per launch", "",
            args=("--app-work-ns", "1000"), loop_only=True),
    Variant("clprof", "clprof (trace file)", "clprof"),
    Variant("clprof-null", "clprof, trace to /dev/null", "clprof", to_null=True),
    Variant("clprof-zst", "clprof (trace file compressed, .zst)", "clprof", zst=True),
    Variant("cli-dpt", "clIntercept DevicePerformanceTiming (summary)", "clintercept",
            env={"CLI_DevicePerformanceTiming": "1"}),
    Variant("cli-chrome", "clIntercept ChromePerformanceTiming (per-launch trace)",
            "clintercept", env={"CLI_ChromePerformanceTiming": "1"}),
)
BY_NAME = {v.name: v for v in VARIANTS}


def other_shim(label, path):
    """The clprof variants again with another build of the shim: builds side by side."""
    return (Variant(f"clprof@{label}", f"clprof@{label} (trace file)", "clprof", shim=path),
            Variant(f"clprof-null@{label}", f"clprof@{label}, trace to /dev/null", "clprof",
                    to_null=True, shim=path),
            Variant(f"clprof-zst@{label}", f"clprof@{label} (trace file compressed, .zst)",
                    "clprof", zst=True, shim=path))

# Variables of the tools and of this benchmark: never inherited from the caller's shell, where
# a CLPROF_* or CLI_* setting would change what is measured.
_SCRUBBED = re.compile(r"^(LD_PRELOAD|CLPROF_.*|CLI_.*|FAKE_CL_.*|ENQUEUE_BENCH_.*|OCL_ICD_.*)$")


def base_environment():
    return {k: v for k, v in os.environ.items() if not _SCRUBBED.match(k)}


def environment(variant, tools, run_dir):
    """The variables that put `variant` in charge; tools: {'shim':, 'peer':, 'loader':}."""
    env = dict(variant.env)
    if variant.tool == "clprof":
        env["LD_PRELOAD"] = variant.shim or tools["shim"]
        env["CLPROF_OUTPUT"] = "/dev/null" if variant.to_null else \
            os.path.join(run_dir, _trace_name(variant))
        env["CLPROF_LOG_LEVEL"] = "info"  # one line at start: the proof it recorded
    elif variant.tool == "clintercept":
        env["LD_PRELOAD"] = tools["peer"]
        env["CLI_DumpDir"] = os.path.join(run_dir, "cli")
        env["CLI_OpenCLFileName"] = tools["loader"]  # the ICD loader, never ./real_libOpenCL.so
    return env


def _trace_name(variant):
    return "trace.json.zst" if variant.zst else "trace.json"


def _tail(path, zst, keep=65536):
    """The last `keep` bytes of the trace's text: a .zst trace through `zstd -dc` (the zstd
    tool; Python's standard library has no zstd), which also proves every frame decodes."""
    if not zst:
        with open(path, "rb") as f:
            f.seek(max(0, os.path.getsize(path) - keep))
            return f.read().decode("utf-8", "replace")
    try:
        proc = subprocess.Popen(["zstd", "-dcq", path], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
    except OSError as e:
        raise Unverified(f"{path}: cannot run zstd to check the trace: {e}") from None
    tail = b""
    while True:
        chunk = proc.stdout.read(1 << 20)
        if not chunk:
            break
        tail = (tail + chunk)[-keep:]
    err = proc.stderr.read().decode("utf-8", "replace").strip()
    if proc.wait() != 0:
        raise Unverified(f"{path}: zstd -d fails: {err}")
    return tail.decode("utf-8", "replace")


class Unverified(Exception):
    """The run measured nothing for this variant (message: what is missing)."""


def verify(variant, run_dir, stderr_text, expected_launches):
    """Checks the run's output; returns {'out_bytes', 'trace_bytes' (a per-launch trace's
    size), 'launches', 'transfers'}, None where the variant writes nothing.
    expected_launches: the exact count when the program knows it."""
    if variant.tool == "":
        return {}
    if variant.tool == "clprof":
        return _verify_clprof(variant, run_dir, stderr_text, expected_launches)
    if variant.name == "cli-dpt":
        return _verify_cli_summary(run_dir, expected_launches)
    return _verify_cli_chrome(run_dir, expected_launches)


def _check_count(what, found, expected):
    """expected: the exact count the program made, or None (unknown: at least one)."""
    if expected is None and found <= 0:
        raise Unverified(f"{what}: no launch recorded")
    if expected is not None and found != expected:
        raise Unverified(f"{what}: {found} launches recorded, the program made {expected}")


def _verify_clprof(variant, run_dir, stderr_text, expected):
    warnings = [l for l in stderr_text.splitlines()
                if l.startswith("clprof: ") and not l.startswith("clprof: recording to ")]
    if warnings:
        raise Unverified(f"clprof warned: {warnings[0]}")
    if variant.to_null:
        if "clprof: recording to /dev/null" not in stderr_text:
            raise Unverified("no 'clprof: recording to /dev/null' line: the shim did not record")
        return {}
    path = os.path.join(run_dir, _trace_name(variant))
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        raise Unverified(f"no trace at {path}")
    size = os.path.getsize(path)
    tail = _tail(path, variant.zst)
    at = tail.rfind('{"type":"end"')
    if at < 0:
        raise Unverified(f"{path}: no end record (truncated trace)")
    text = tail[at:].rstrip()
    if not text.endswith("]}"):
        raise Unverified(f"{path}: the end record is not the last one")
    try:
        end = json.loads(text[:-2])
    except ValueError as e:
        raise Unverified(f"{path}: end record does not parse: {e}") from None
    counts = end.get("counts", {})
    if end.get("dropped", 0):
        raise Unverified(f"{path}: {end['dropped']} records dropped")
    _check_count(path, counts.get("launch", 0), expected)
    return {"out_bytes": size, "trace_bytes": size, "launches": counts.get("launch", 0),
            "transfers": counts.get("transfer", 0)}


_DPT_ROW = re.compile(r"^\s*([^,]+),\s*(\d+),\s*\d+,")


def _verify_cli_summary(run_dir, expected):
    path = os.path.join(run_dir, "cli", "clintercept_report.txt")
    if not os.path.isfile(path):
        raise Unverified(f"no clIntercept report at {path}")
    text = open(path, encoding="utf-8", errors="replace").read()
    if "Total Enqueues:" not in text:
        raise Unverified(f"{path}: no 'Total Enqueues' line")
    if expected == 0:  # set up, no launch: the report exists, with no table
        return {"out_bytes": os.path.getsize(path), "launches": 0, "transfers": 0}
    if "Device Performance Timing Results" not in text:
        raise Unverified(f"{path}: no device timing results")
    # Rows "name, calls, time, ..." after the header of the device timing table.
    table = text.split("Device Performance Timing Results", 1)[1]
    calls = {}
    for line in table.splitlines():
        m = _DPT_ROW.match(line)
        if m and m.group(1).strip() != "Function Name":
            calls[m.group(1).strip()] = calls.get(m.group(1).strip(), 0) + int(m.group(2))
    launches = sum(n for name, n in calls.items() if not name.startswith("clEnqueue"))
    _check_count(path, launches, expected)
    return {"out_bytes": os.path.getsize(path), "launches": launches,
            "transfers": sum(calls.values()) - launches}


def _verify_cli_chrome(run_dir, expected):
    path = os.path.join(run_dir, "cli", "clintercept_trace.json")
    if not os.path.isfile(path):
        raise Unverified(f"no clIntercept Chrome trace at {path}")
    commands = 0
    eof = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith('{"ph":"X"'):
                commands += 1
            elif '"clintercept_eof"' in line:
                eof = True
    if not eof:
        raise Unverified(f"{path}: no clintercept_eof record (truncated trace)")
    # The Chrome trace has one X event per command (kernels and transfers alike): exact
    # only for the loop, where every command is a launch.
    _check_count(path, commands, expected)
    size = os.path.getsize(path)
    return {"out_bytes": size, "trace_bytes": size, "launches": commands}
