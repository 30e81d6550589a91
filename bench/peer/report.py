"""Markdown tables of the peer benchmark from its rows (one dict per run).

Per variant and column: median [min-max] over the rounds; ratio to bare = the median over
rounds of (variant / bare of the same round), [min-max] of those ratios; added = the median
over rounds of (variant - bare of the same round). Pairing within a round keeps the slow
stretches of a shared machine out of the comparison as far as possible. Standard library only.
"""
import statistics


def _cell(fmt, values):
    if not values:
        return "-"
    if len(values) == 1:
        return fmt.format(values[0])
    return f"{fmt.format(statistics.median(values))} " \
           f"[{fmt.format(min(values))}–{fmt.format(max(values))}]"


def _paired(rows, variant, value):
    """[(variant value, bare value)] of the rounds where both ran and verified."""
    by_round = {}
    for r in rows:
        if r["ok"]:
            by_round.setdefault(r["round"], {})[r["variant"]] = r
    pairs = []
    for runs in by_round.values():
        if variant in runs and "bare" in runs:
            v, b = value(runs[variant]), value(runs["bare"])
            if v is not None and b:
                pairs.append((v, b))
    return pairs


def variant_order(rows, variants):
    present = {r["variant"] for r in rows}
    return [v for v in variants if v.name in present]


def failures(rows, name):
    """'FAILED n of m runs: first reason', or '' when every run of the variant verified."""
    runs = [r for r in rows if r["variant"] == name]
    bad = [r for r in runs if not r["ok"]]
    return f"FAILED {len(bad)} of {len(runs)} runs: {bad[0]['reason']}" if bad else ""


def case_table(case, rows, variants):
    """The case's table: one line per variant."""
    head = ["variant"]
    for c in case.columns:
        head.append(c.header + ", median [min–max]")
        if c.ratio:
            head.append(f"{c.name}: ratio to bare")
        if c.added:
            head.append(f"{c.name}: added")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    notes = []
    for v in variant_order(rows, variants):
        ok = [r for r in rows if r["variant"] == v.name and r["ok"]]
        cells = [v.label]
        for c in case.columns:
            cells.append(_cell(c.fmt, [x for x in map(c.value, ok) if x is not None]))
            pairs = _paired(rows, v.name, c.value) if v.name != "bare" else []
            if c.ratio:
                cells.append("1.00" if v.name == "bare" else
                             _cell("{:.2f}", [a / b for a, b in pairs]))
            if c.added:
                cells.append("-" if v.name == "bare" or not pairs else
                             "{:+.{p}f}".format(statistics.median([a - b for a, b in pairs]),
                                                p=_decimals(c.fmt)))
        fail = failures(rows, v.name)
        if fail:
            notes.append(f"* **{v.label}: {fail}** (not a measurement; left out above)")
        lines.append("| " + " | ".join(cells) + " |")
    loads = [r[k] for r in rows for k in ("load1_before", "load1_after")]
    steal = [r["steal_pct"] for r in rows]
    notes.append(f"* machine during this case: 1-min load average {min(loads):.2f}–"
                 f"{max(loads):.2f}; steal {statistics.median(steal):.1f}% of CPU time "
                 f"(median of the runs), {max(steal):.1f}% at most")
    calls = _commands_per_run(rows)
    if calls and not case.loop:
        per = []
        for v in variant_order(rows, variants):
            sys_s = [r["sys_s"] for r in rows if r["variant"] == v.name and r["ok"]]
            if sys_s:
                per.append(f"{v.name} {statistics.median(sys_s) * 1e6 / calls:.1f}")
        notes.append(f"* OpenCL commands per run (clprof's trace: launches + transfers): "
                     f"{calls:.0f}; system time per command, µs (median): {', '.join(per)}")
    return "\n".join(lines + [""] + notes)


def _decimals(fmt):
    return int(fmt.split(".")[1][0]) if "." in fmt else 0


def _commands_per_run(rows):
    counts = [r["launches"] + (r["transfers"] or 0) for r in rows
              if r["variant"] == "clprof" and r["ok"] and r.get("launches")]
    return statistics.median(counts) if counts else None


def headline(cases_rows, variants):
    """One line per case: each variant's ratio to bare on the case's first column."""
    names = [v for v in variants if v.name != "bare" and
             any(r["variant"] == v.name for _, rows in cases_rows for r in rows)]
    lines = ["| case (first column of its table) | " + " | ".join(v.label for v in names) + " |",
             "|---|" + "---|" * len(names)]
    for case, rows in cases_rows:
        col = case.columns[0]
        cells = []
        for v in names:
            pairs = _paired(rows, v.name, col.value)
            if failures(rows, v.name):
                cells.append("FAILED")
            else:
                cells.append(_cell("{:.2f}", [a / b for a, b in pairs]) if pairs else "-")
        lines.append(f"| {case.name}: {col.name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
