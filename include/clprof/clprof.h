/* clprof range markers: name the layers and iterations of your program so that
 * `clprof layers` can attribute each kernel launch and transfer to them.
 *
 * Header-only: nothing to link. Without libclprof.so loaded every call is a cheap no-op
 * (the shim's entry points are looked up once, at the first call: dlsym(RTLD_DEFAULT, ...)
 * finds a preloaded shim, dlopen("libclprof.so", RTLD_NOLOAD) one the OpenCL loader loaded
 * as a layer; link with -ldl on glibc < 2.34). A layer is loaded at the program's first
 * OpenCL call: markers called before it are not recorded. With the shim loaded, ranges are
 * per thread: each launch carries the enqueuing thread's open ranges, innermost last.
 *
 *   clprof_range_push("conv1");  ...enqueue kernels...  clprof_range_pop();
 *   clprof_mark("weights loaded");
 *   { clprof::ScopedRange r{"conv1"}; ... }            // C++
 *
 * Thread safety: every function may be called from any thread at any time, including
 * before the first OpenCL call and after main returns. Names are copied; the caller keeps
 * ownership of the string. A pop with no open range is ignored (and reported in the trace).
 */
#ifndef CLPROF_CLPROF_H
#define CLPROF_CLPROF_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The shim's exported ABI (stable; versioned by name suffix if it ever changes). */
typedef void (*clprof_shim_name_fn_v1)(const char* name);
typedef void (*clprof_shim_void_fn_v1)(void);

struct clprof_marker_table_v1 {
  int resolved; /* 0: not looked up yet; 1: looked up (functions may still be NULL) */
  clprof_shim_name_fn_v1 push;
  clprof_shim_void_fn_v1 pop;
  clprof_shim_name_fn_v1 mark;
};

/* One table per translation unit; resolution is idempotent, so a benign race between
 * two threads resolving at once writes the same values. */
static struct clprof_marker_table_v1 clprof_marker_table_;

static inline const struct clprof_marker_table_v1* clprof_markers_(void) {
  if (!__atomic_load_n(&clprof_marker_table_.resolved, __ATOMIC_ACQUIRE)) {
    clprof_marker_table_.push =
        (clprof_shim_name_fn_v1)dlsym(RTLD_DEFAULT, "clprof_shim_range_push_v1");
    clprof_marker_table_.pop =
        (clprof_shim_void_fn_v1)dlsym(RTLD_DEFAULT, "clprof_shim_range_pop_v1");
    clprof_marker_table_.mark = (clprof_shim_name_fn_v1)dlsym(RTLD_DEFAULT, "clprof_shim_mark_v1");
    if (!clprof_marker_table_.push) {
      /* Loaded by the OpenCL loader as a layer (OPENCL_LAYERS): not in the global scope.
         The reference is kept (the shim is never unloaded anyway). */
      void* layer = dlopen("libclprof.so", RTLD_LAZY | RTLD_NOLOAD);
      if (layer) {
        clprof_marker_table_.push =
            (clprof_shim_name_fn_v1)dlsym(layer, "clprof_shim_range_push_v1");
        clprof_marker_table_.pop = (clprof_shim_void_fn_v1)dlsym(layer, "clprof_shim_range_pop_v1");
        clprof_marker_table_.mark = (clprof_shim_name_fn_v1)dlsym(layer, "clprof_shim_mark_v1");
      }
    }
    __atomic_store_n(&clprof_marker_table_.resolved, 1, __ATOMIC_RELEASE);
  }
  return &clprof_marker_table_;
}

/* Opens a range named `name` on the calling thread. */
static inline void clprof_range_push(const char* name) {
  const struct clprof_marker_table_v1* t = clprof_markers_();
  if (t->push && name) t->push(name);
}

/* Closes the calling thread's innermost open range. */
static inline void clprof_range_pop(void) {
  const struct clprof_marker_table_v1* t = clprof_markers_();
  if (t->pop) t->pop();
}

/* Records an instant event named `name` on the calling thread. */
static inline void clprof_mark(const char* name) {
  const struct clprof_marker_table_v1* t = clprof_markers_();
  if (t->mark && name) t->mark(name);
}

#ifdef __cplusplus
} /* extern "C" */

namespace clprof {
/* RAII range: pushes on construction, pops on destruction. Not copyable. */
class ScopedRange {
 public:
  explicit ScopedRange(const char* name) { clprof_range_push(name); }
  ~ScopedRange() { clprof_range_pop(); }
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;
};
}  // namespace clprof
#endif

#endif /* CLPROF_CLPROF_H */
