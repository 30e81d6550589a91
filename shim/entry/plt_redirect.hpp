// Pointing other objects' calls of a libc function at the shim, for layer mode: a library
// the OpenCL loader opens (OPENCL_LAYERS) comes after libc in the process's symbol lookup,
// so it interposes nothing, and an app's _exit would end the process before the trace is
// written. redirect_plt_calls rewrites the GOT slots through which the objects already
// loaded call the named functions (their PLT's JUMP_SLOT relocations, and GLOB_DAT ones
// for calls built with -fno-plt or addresses taken), the way the dynamic loader itself
// fills them. Slots under RELRO are made writable for the store and read-only again.
//
// What it does not reach: objects loaded after the call (a later dlopen), calls inside
// libc itself (it calls its own _exit directly), and processors other than x86-64 and
// AArch64 (returns 0 there). docs/recording.md says so.
//
// Threads: call once, early (the loader's layer initialisation); a slot is one aligned
// pointer store, so a thread calling through it meanwhile sees the old or the new target.
#pragma once

#include <cstddef>

namespace clprof::shim {

struct PltRedirect {
  const char* name;  // the function's symbol name, e.g. "_exit"
  void* target;      // where calls to it go from now on
};

// Rewrites, in every loaded object but the one holding this code and the vDSO, each GOT
// slot through which the object calls (imports) one of `redirects`' names. Returns the
// number of slots rewritten (a slot that already holds its target is not counted).
std::size_t redirect_plt_calls(const PltRedirect* redirects, std::size_t count);

}  // namespace clprof::shim
