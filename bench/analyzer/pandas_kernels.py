#!/usr/bin/python3
"""Per-kernel table of a clprof trace computed the way seed 001's notebook does it:
json.load the whole trace, one DataFrame row per kernel launch (sizes and the device
phases as columns, like prof_wrangler's df_kernel_enqueues), then groupby the kernel name.

usage: /usr/bin/python3 pandas_kernels.py TRACE

Prints the same table as clprof_bench_reader (kernel, count, total_ms, median_us) so that
run.sh can check that both agree.
"""
import json
import sys

import pandas as pd


def main():
    with open(sys.argv[1]) as f:
        trace = json.load(f)
    rows = []
    for r in trace['records']:
        if r.get('type') != 'launch':
            continue
        gws = (r.get('gws') or []) + [1, 1, 1]
        lws = (r.get('lws') or [0, 0, 0]) + [1, 1, 1]
        gwo = (r.get('gwo') or [0, 0, 0]) + [0, 0, 0]
        host = r.get('host_ns') or [0, 0]
        p = r.get('device_ns')
        rows.append({
            'name': r['kernel'],
            'lws0': lws[0], 'lws1': lws[1], 'lws2': lws[2],
            'gws0': gws[0], 'gws1': gws[1], 'gws2': gws[2],
            'gwo0': gwo[0], 'gwo1': gwo[1], 'gwo2': gwo[2],
            't1 - t0 (ns)': host[1] - host[0],
            'p3 - p0 (ns)': p[3] - p[0] if p else None,
            'p3 - p2 (ns)': p[3] - p[2] if p else None,
            'p2 - p1 (ns)': p[2] - p[1] if p else None,
            'p1 - p0 (ns)': p[1] - p[0] if p else None,
        })
    df = pd.DataFrame(rows).set_index('name')
    df['count'] = 1
    by_name = df.groupby(level='name')
    sums = by_name.sum()
    medians = by_name['p3 - p2 (ns)'].median()
    print('%-28s %10s %14s %12s' % ('kernel', 'count', 'total_ms', 'median_us'))
    for name in sorted(sums.index):
        print('%-28s %10d %14.3f %12.3f' % (name, sums.loc[name, 'count'],
                                            sums.loc[name, 'p3 - p2 (ns)'] / 1e6,
                                            medians.loc[name] / 1e3))


if __name__ == '__main__':
    main()
