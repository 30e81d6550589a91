#!/usr/bin/python3
"""A pyopencl program that replaces itself with exec (the e2e test of clprof's exec hooks).

    pyopencl_exec.py --then-exec   launches `double` 3 times, then execs
    pyopencl_exec.py               (the new program, same pid) launches it 2 times

Each run prints "launched N" and checks its result with numpy (exit 1 on a mismatch).
"""

import os
import sys

import numpy as np
import pyopencl as cl


def run(launches):
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, "__kernel void double_it(__global float* a) {"
                          " a[get_global_id(0)] *= 2.0f; }").build()
    host = np.arange(256, dtype=np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    for _ in range(launches):
        prg.double_it(queue, host.shape, None, buf)
    out = np.empty_like(host)
    cl.enqueue_copy(queue, out, buf)
    queue.finish()
    if not np.array_equal(out, host * 2 ** launches):
        sys.exit(1)
    print(f"launched {launches}", flush=True)


if "--then-exec" in sys.argv[1:]:
    run(3)
    os.execv(sys.executable, [sys.executable, os.path.abspath(__file__)])
else:
    run(2)
