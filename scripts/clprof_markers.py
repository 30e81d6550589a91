"""clprof range markers for Python (pyopencl) programs.

Name the phases of your program so that `clprof layers` can attribute each kernel launch
and transfer to them:

    import clprof_markers as clprof

    with clprof.range("conv1"):
        prg.conv(queue, ...)        # launches carry the range's id
    clprof.mark("weights loaded")

The functions find libclprof.so's marker entry points in the running process
(clprof_shim_range_push_v1 & co.) once, at the first call: exported to the whole process
when the shim is LD_PRELOADed, or in the library the OpenCL loader loaded as a layer
(OPENCL_LAYERS), which happens at the program's first OpenCL call: markers before it are
not recorded. Without the shim every call is a cheap no-op. Ranges are per OS thread, like the C API in
include/clprof/clprof.h. Names are str (UTF-8 encoded) or bytes.
"""

import contextlib
import ctypes
import os

__all__ = ["available", "push", "pop", "mark", "range"]


def _find(library, mode=ctypes.DEFAULT_MODE):
    try:
        lib = ctypes.CDLL(library, mode=mode)
        return lib.clprof_shim_range_push_v1, lib.clprof_shim_range_pop_v1, lib.clprof_shim_mark_v1
    except (OSError, AttributeError):
        return None


def _lookup():
    # The whole process (preloaded shim), else the layer's library if it is loaded.
    found = _find(None) or _find("libclprof.so", os.RTLD_LAZY | os.RTLD_NOLOAD)
    if found is None:
        return None, None, None
    push_fn, pop_fn, mark_fn = found
    push_fn.argtypes = [ctypes.c_char_p]
    push_fn.restype = None
    pop_fn.argtypes = []
    pop_fn.restype = None
    mark_fn.argtypes = [ctypes.c_char_p]
    mark_fn.restype = None
    return push_fn, pop_fn, mark_fn


_push = _pop = _mark = None
_looked_up = False


def _resolve():
    global _push, _pop, _mark, _looked_up
    if not _looked_up:
        _push, _pop, _mark = _lookup()
        _looked_up = True


def _encode(name):
    return name if isinstance(name, bytes) else str(name).encode("utf-8", "replace")


def available():
    """True when libclprof.so is loaded in this process (markers are recorded)."""
    _resolve()
    return _push is not None


def push(name):
    """Opens a range named `name` on the calling thread."""
    _resolve()
    if _push is not None:
        _push(_encode(name))


def pop():
    """Closes the calling thread's innermost open range."""
    _resolve()
    if _pop is not None:
        _pop()


def mark(name):
    """Records an instant event named `name` on the calling thread."""
    _resolve()
    if _mark is not None:
        _mark(_encode(name))


@contextlib.contextmanager
def range(name):  # noqa: A001 - mirrors clprof::ScopedRange; shadows the builtin only here
    """Context manager: push(name) on entry, pop() on exit (also on exceptions)."""
    push(name)
    try:
        yield
    finally:
        pop()
