"""The cases of the peer benchmark, declared once: the program each runs, the platform, how
its output is read, and the columns of its table.

A case's parse() reads the program's stdout into CSV fields (COLUMNS of peer_bench.py) and
raises ValueError when the program did not say what it must. Standard library only.
"""
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    header: str
    value: object        # row (dict of floats/None) -> float or None
    fmt: str             # format of one number
    ratio: bool = False  # also: ratio to bare, median of the per-round ratios [min-max]
    added: bool = False  # also: added over bare, median of the per-round differences
    short: str = ""      # the name in the ratio and added columns' headers (default: header)

    @property
    def name(self):
        return self.short or self.header


def _get(key, scale=1.0):
    return lambda r: None if r.get(key) is None else r[key] * scale


def _sum(*keys, scale=1.0):
    return lambda r: None if any(r.get(k) is None for k in keys) else \
        sum(r[k] for k in keys) * scale


def _bytes_per_launch(r):
    return None if not r.get("trace_bytes") or not r.get("launches") else \
        r["trace_bytes"] / r["launches"]


LOOP_COLUMNS = (
    Column("ns/launch", _get("ns_per_iter"), "{:.0f}", ratio=True, added=True),
    Column("CPU ns/launch, user+sys, all threads", _sum("user_ns_per_iter", "sys_ns_per_iter"),
           "{:.0f}", ratio=True, added=True, short="CPU ns/launch"),
    Column("sys ns/launch", _get("sys_ns_per_iter"), "{:.0f}"),
    Column("app thread CPU ns/launch", _get("thread_cpu_ns_per_iter"), "{:.0f}", added=True,
           short="app thread CPU"),
    Column("tool threads CPU ns/launch (clprof-*)", _get("tool_threads_cpu_ns_per_iter"),
           "{:.0f}", short="tool threads CPU"),
    Column("bytes/launch", _bytes_per_launch, "{:.0f}"),
    Column("peak RSS MB", _get("peak_rss_kb", 1 / 1024), "{:.1f}"),
)
LATENCY_COLUMNS = (
    Column("host µs per launch + clFinish", _get("ns_per_iter", 1e-3), "{:.1f}", ratio=True,
           added=True, short="host µs"),
    Column("event QUEUED→START µs", _get("queued_to_start_ns_per_iter", 1e-3), "{:.1f}",
           ratio=True, added=True, short="QUEUED→START"),
    Column("event QUEUED→END µs", _get("queued_to_end_ns_per_iter", 1e-3), "{:.1f}",
           ratio=True, short="QUEUED→END"),
    Column("CPU µs/launch, user+sys", _sum("user_ns_per_iter", "sys_ns_per_iter", scale=1e-3),
           "{:.1f}", ratio=True, short="CPU µs/launch"),
)
CLPEAK_COLUMNS = (
    Column("clpeak's kernel launch latency µs (event timer, QUEUED→START)",
           _get("clpeak_latency_us"), "{:.2f}", ratio=True, added=True, short="clpeak µs"),
    Column("process wall s", _get("wall_s"), "{:.2f}", ratio=True, added=True),
    Column("CPU s, user+sys", _sum("user_s", "sys_s"), "{:.2f}", ratio=True, short="CPU s"),
)
PROGRAM_COLUMNS = (
    Column("wall s", _get("wall_s"), "{:.2f}", ratio=True, added=True),
    Column("CPU s, user+sys", _sum("user_s", "sys_s"), "{:.2f}", ratio=True, added=True,
           short="CPU s"),
    Column("sys s", _get("sys_s"), "{:.2f}", ratio=True),
    Column("output MB", _get("out_bytes", 1e-6), "{:.1f}"),
    Column("peak RSS MB (ru_maxrss)", _get("maxrss_kb", 1 / 1024), "{:.0f}"),
)
# Peak RSS from the program's own VmHWM: wait4's ru_maxrss also counts the runner's forked
# image before exec (~15 MB of Python), more than the fake-driver program's whole peak.
INIT_COLUMNS = (
    Column("process wall ms", _get("wall_s", 1e3), "{:.1f}", ratio=True, added=True),
    Column("CPU ms, user+sys", _sum("user_s", "sys_s", scale=1e3), "{:.1f}", added=True,
           short="CPU ms"),
    Column("peak RSS MB", _get("peak_rss_kb", 1 / 1024), "{:.2f}", added=True),
)

_KEYS = ("launches", "ns_per_iter", "thread_cpu_ns_per_iter", "process_cpu_ns_per_iter",
         "user_ns_per_iter", "sys_ns_per_iter", "peak_rss_kb", "queued_to_start_ns_per_iter",
         "queued_to_end_ns_per_iter", "tool_threads_cpu_ns_per_iter",
         "other_threads_cpu_ns_per_iter")


def parse_enqueue_bench(stdout, required):
    out = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in _KEYS:
            out[parts[0]] = float(parts[1])
    missing = [k for k in required if k not in out]
    if missing:
        raise ValueError(f"enqueue_bench printed no {', '.join(missing)}")
    out["program_launches"] = out.pop("launches")
    return out


_CLPEAK = re.compile(r"Kernel launch latency : ([0-9.]+) us")


def parse_clpeak(stdout):
    m = _CLPEAK.search(stdout)
    if not m:
        raise ValueError("clpeak printed no 'Kernel launch latency : N us'")
    return {"clpeak_latency_us": float(m.group(1))}


def parse_marker(marker):
    def parse(stdout):
        if marker not in stdout:
            raise ValueError(f"the program did not print '{marker}'")
        return {}
    return parse


@dataclass(frozen=True)
class Case:
    name: str
    title: str
    platform: str        # "pocl" or "fake": which ICD the loader sees
    argv: object         # opts -> list of str (opts.build, opts.iters_pocl, ...)
    parse: object        # stdout -> dict of CSV fields
    columns: tuple
    loop: bool = False   # an enqueue_bench case: the program's launch count is exact
    events: bool = False  # bare-events runs too (the plain loop: the driver's share)
    long: bool = False   # rounds from --long-rounds


def _bench(opts):
    return f"{opts.build}/bin/enqueue_bench"


LOOP_KEYS = ("launches", "ns_per_iter", "user_ns_per_iter", "sys_ns_per_iter", "peak_rss_kb")


def _loop(platform, title, iters_of, times=1):
    """The plain enqueue loop; times > 1: a long run, for memory that must stay flat."""
    name = f"{platform}-loop" + (f"-{times}x" if times > 1 else "")
    if times > 1:
        title = f"the {'PoCL' if platform == 'pocl' else 'fake-driver'} loop {times}x as long " \
                "(memory must stay flat)"
    return Case(name, title, platform,
                lambda o: [_bench(o), str(times * iters_of(o)), "1000"],
                lambda s: parse_enqueue_bench(s, LOOP_KEYS), LOOP_COLUMNS, loop=True,
                events=times == 1, long=times > 1)


CASES = (
    _loop("pocl", "enqueue loop on PoCL (setarg x3 + enqueue, no event)",
          lambda o: o.iters_pocl),
    _loop("pocl", "", lambda o: o.iters_pocl, times=4),
    _loop("fake", "enqueue loop on the fake driver (the tool's own code alone)",
          lambda o: o.iters_fake),
    _loop("fake", "", lambda o: o.iters_fake, times=4),
    Case("pocl-latency", "launch + clFinish latency on PoCL (clpeak's loop, own timers)",
         "pocl", lambda o: [_bench(o), "--latency", str(o.iters_latency), "1000", "200"],
         lambda s: parse_enqueue_bench(s, LOOP_KEYS + ("queued_to_start_ns_per_iter",)),
         LATENCY_COLUMNS, loop=True),
    Case("clpeak-latency", "clpeak --kernel-latency (20,000 launch + clFinish)", "pocl",
         lambda o: ["clpeak", "--kernel-latency"], parse_clpeak, CLPEAK_COLUMNS),
    Case("clblast-network", "CLBlast example: AlexNet-shaped GEMM network", "pocl",
         lambda o: [f"{o.build}/bin/clblast_network", "--iterations", str(o.network_iters)],
         parse_marker("clblast_network: OK"), PROGRAM_COLUMNS),
    Case("xim2col", "clblast_test_xim2col (CLBlast's test: transfer-heavy)", "pocl",
         lambda o: ["clblast_test_xim2col"], parse_marker("test(s) passed"), PROGRAM_COLUMNS,
         long=True),
    Case("init-pocl", "fixed cost per process on PoCL: set up, no launch", "pocl",
         lambda o: [_bench(o), "--init-only"],
         lambda s: parse_enqueue_bench(s, ("launches", "peak_rss_kb")), INIT_COLUMNS),
    Case("init-fake", "fixed cost per process on the fake driver: set up, no launch", "fake",
         lambda o: [_bench(o), "--init-only"],
         lambda s: parse_enqueue_bench(s, ("launches", "peak_rss_kb")), INIT_COLUMNS),
)
BY_NAME = {c.name: c for c in CASES}
