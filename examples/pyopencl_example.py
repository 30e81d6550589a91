#!/usr/bin/python3
"""pyopencl_example: a two-layer dense network in pyopencl, named with clprof markers.

Run it with Debian's interpreter (the one that has python3-pyopencl):

    /usr/bin/python3 examples/pyopencl_example.py [--iterations N]
    clprof record -o run.json -- /usr/bin/python3 examples/pyopencl_example.py
    clprof layers run.json

Each iteration is one "inference" range holding the ranges "layer1" and "layer2"; each
layer launches `affine` (y = W x + bias) and then `relu`. The markers come from
scripts/clprof_markers.py, which talks to libclprof.so through ctypes and does nothing
when the program runs without it. The results are checked with numpy (exit 1 on a
mismatch). Every launch is printed as a "launch ..." line so it can be compared with the
trace.
"""

import argparse
import contextlib
import os
import sys

import numpy as np
import pyopencl as cl

# scripts/ sits next to examples/ in the source tree; an installed clprof puts the module
# in share/clprof/python, which CLPROF_PYTHON_DIR may point at.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("CLPROF_PYTHON_DIR", os.path.join(_HERE, "..", "scripts")))
try:
    import clprof_markers as markers
except ImportError:  # the example must still run where clprof is not installed at all
    class _NoMarkers:
        @staticmethod
        def range(name):
            return contextlib.nullcontext()

        @staticmethod
        def mark(name):
            pass

    markers = _NoMarkers()

KERNELS = """
kernel void affine(global const float* x, global const float* w, global float* y,
                   uint n_in, float bias) {
  size_t i = get_global_id(0);
  float acc = bias;
  for (uint j = 0; j < n_in; ++j) acc += w[i * n_in + j] * x[j];
  y[i] = acc;
}
kernel void relu(global float* y) {
  size_t i = get_global_id(0);
  y[i] = fmax(y[i], 0.0f);
}
"""

# (name, inputs, outputs, bias, local size for relu)
LAYERS = [("layer1", 128, 64, 0.25, 16), ("layer2", 64, 16, -0.5, 8)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2)
    args = parser.parse_args()

    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    program = cl.Program(ctx, KERNELS).build()
    affine = cl.Kernel(program, "affine")
    relu = cl.Kernel(program, "relu")
    mf = cl.mem_flags

    rng = np.random.default_rng(1234)  # fixed seed: same numbers with and without clprof
    x_host = rng.standard_normal(LAYERS[0][1]).astype(np.float32)
    weights = [rng.standard_normal((n_out, n_in)).astype(np.float32) / np.sqrt(n_in)
               for _, n_in, n_out, _, _ in LAYERS]
    w_bufs = [cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=w) for w in weights]
    x_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x_host)
    out_bufs = [cl.Buffer(ctx, mf.READ_WRITE, size=n_out * 4) for _, _, n_out, _, _ in LAYERS]
    markers.mark("weights loaded")

    result = np.empty(LAYERS[-1][2], dtype=np.float32)
    for _ in range(args.iterations):
        with markers.range("inference"):
            layer_in = x_buf
            for (name, n_in, n_out, bias, relu_local), w_buf, out_buf in zip(
                    LAYERS, w_bufs, out_bufs):
                with markers.range(name):
                    affine.set_args(layer_in, w_buf, out_buf, np.uint32(n_in),
                                    np.float32(bias))
                    # No local size: the driver chooses (the trace shows lws null).
                    cl.enqueue_nd_range_kernel(queue, affine, (n_out,), None)
                    print(f"launch affine gws={n_out} lws=0 n_in={n_in} bias={bias}")
                    relu.set_args(out_buf)
                    cl.enqueue_nd_range_kernel(queue, relu, (n_out,), (relu_local,))
                    print(f"launch relu gws={n_out} lws={relu_local}")
                layer_in = out_buf
            cl.enqueue_copy(queue, result, out_bufs[-1])  # blocking read
    queue.finish()

    want = x_host
    for (_, _, _, bias, _), w in zip(LAYERS, weights):
        want = np.maximum(w @ want + np.float32(bias), 0.0)
    if not np.allclose(result, want, rtol=1e-4, atol=1e-5):
        print("pyopencl_example: FAILED, max error %g" % float(np.max(np.abs(result - want))))
        return 1
    print(f"pyopencl_example: OK ({args.iterations} iterations, {len(LAYERS)} layers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
