#include "entry/layer.hpp"

#include <CL/cl_layer.h>
#include <dlfcn.h>

#include <atomic>
#include <cstddef>
#include <cstring>

#include "base/entry_points.hpp"
#include "base/log.hpp"
#include "base/real_opencl.hpp"
#include "entry/plt_redirect.hpp"
#include "runtime/lifecycle.hpp"

namespace clprof::shim {
namespace {

constexpr char kLayerName[] = "clprof";
constexpr cl_uint kDispatchEntries = sizeof(cl_icd_dispatch) / sizeof(void*);

std::atomic<LayerRole> g_role{LayerRole::NotLoaded};
cl_icd_dispatch g_hooks_table{};  // what the loader calls while recording
cl_icd_dispatch g_empty_table{};  // all null: the loader fills it from the next layer

// The slot of dispatch member `offset` exists in a table of `entries` entries.
constexpr bool has_slot(std::size_t offset, cl_uint entries) {
  return offset / sizeof(void*) < entries;
}

// libclprof.so's own definition of `name`. Not &::name: in a library loaded with
// RTLD_LOCAL, that address resolves through the process's global scope first, which
// finds libOpenCL's entry point of the same name, and the loader would call itself.
void* own_symbol(void* self, const char* name) {
  return self ? real_dlsym(self, name) : nullptr;
}

// This library, as a dlopen handle (one more reference, kept: the tables point into it).
void* self_handle() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<const void*>(&g_hooks_table), &info) || !info.dli_fname)
    return nullptr;
  return dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

// Whether a clprof shim (this copy or another) is preloaded: its hooks, not the loader's
// entry points, are what the process's global lookup finds, so the app's calls reach it
// before the loader, and it records them.
// (The program's own handle, not RTLD_DEFAULT: from inside a library loaded with
// RTLD_LOCAL, RTLD_DEFAULT also searches that library, and would find this one.)
bool preloaded_shim_records() {
  void* global = dlopen(nullptr, RTLD_LAZY);
  if (!global) return false;
  void* marker = real_dlsym(global, "clprof_shim_range_push_v1");
  void* launch = real_dlsym(global, "clEnqueueNDRangeKernel");
  if (!marker || !launch) return false;
  Dl_info a{}, b{};
  return dladdr(marker, &a) && dladdr(launch, &b) && a.dli_fbase == b.dli_fbase;
}

// Fills `real` from the next layer's table, for the entry points it has.
void real_table_from(const cl_icd_dispatch& next, cl_uint entries, RealTable& real) {
#define CLPROF_FROM_NEXT(name)                                         \
  if (has_slot(offsetof(cl_icd_dispatch, name), entries) && next.name) \
    real.name = reinterpret_cast<decltype(&::name)>(reinterpret_cast<void*>(next.name));
  CLPROF_HOOKED_FUNCTIONS(CLPROF_FROM_NEXT)
  CLPROF_FORWARDED_FUNCTIONS(CLPROF_FROM_NEXT)
#undef CLPROF_FROM_NEXT
}

// The hooks into g_hooks_table; false if one cannot be found (then nothing is hooked).
bool fill_hooks_table(void* self) {
  cl_icd_dispatch t{};
#define CLPROF_OWN_HOOK(name)                          \
  if (void* hook = own_symbol(self, #name)) {          \
    t.name = reinterpret_cast<decltype(t.name)>(hook); \
  } else {                                             \
    return false;                                      \
  }
  CLPROF_HOOKED_FUNCTIONS(CLPROF_OWN_HOOK)
#undef CLPROF_OWN_HOOK
  g_hooks_table = t;
  return true;
}

// The libc functions preload mode interposes and a layer cannot (it comes after libc in
// the process's symbol lookup): _exit and _Exit, which run no exit handler, and the calls
// that set a signal's disposition, which keep the shim's fatal-signal handler in place
// (entry/ending_hooks.cpp); exec*, which replaces the image (entry/exec_hooks.cpp); the
// calls that close or replace descriptors, after which the trace must write nothing to a
// file the app opens at its number (entry/descriptor_hooks.cpp).
// Without them such an ending loses the trace's end and what the harvester had not written
// yet. The calls the objects loaded by now make to them are pointed at the shim's own
// definitions (entry/plt_redirect.hpp). Returns the number of call slots rewritten.
std::size_t redirect_libc_interposers(void* self) {
  static constexpr const char* kInterposed[] = {
      "_exit", "_Exit",  "sigaction", "signal",      "bsd_signal", "sysv_signal", "execve",
      "execv", "execvp", "execvpe",   "fexecve",     "execl",      "execlp",      "execle",
      "close", "dup2",   "dup3",      "close_range", "closefrom"};
  PltRedirect redirects[sizeof kInterposed / sizeof kInterposed[0]];
  std::size_t n = 0;
  for (const char* name : kInterposed) {
    if (void* own = own_symbol(self, name)) redirects[n++] = {name, own};
  }
  return redirect_plt_calls(redirects, n);
}

cl_int init_layer(cl_uint num_entries, const cl_icd_dispatch* target_dispatch,
                  cl_uint* num_entries_ret, const cl_icd_dispatch** layer_dispatch_ret) {
  if (!target_dispatch || !num_entries_ret || !layer_dispatch_ret) return CL_INVALID_VALUE;
  *num_entries_ret = kDispatchEntries;
  *layer_dispatch_ret = &g_empty_table;
  LayerRole expected = LayerRole::NotLoaded;
  if (settings().disable || preloaded_shim_records()) {
    g_role.compare_exchange_strong(expected, LayerRole::PassThrough);
    log_message(LogLevel::Debug, "loader layer: passing through (%s)",
                settings().disable ? "disabled" : "the preloaded shim records");
    return CL_SUCCESS;
  }
  // A second loader in the process: the first one's calls are recorded already.
  if (!g_role.compare_exchange_strong(expected, LayerRole::Recording)) return CL_SUCCESS;
  RealTable real;
  real_table_from(*target_dispatch, num_entries, real);
  void* const self = self_handle();
  if (!real.clGetPlatformIDs || !fill_hooks_table(self)) {
    g_role.store(LayerRole::PassThrough);
    log_once_warn("loader layer: %s; running untouched",
                  real.clGetPlatformIDs ? "cannot find its own hooks"
                                        : "the loader's table has no clGetPlatformIDs");
    return CL_SUCCESS;
  }
  install_real_table(real);
  *layer_dispatch_ret = &g_hooks_table;
  const std::size_t redirected = redirect_libc_interposers(self);
  log_message(LogLevel::Debug,
              "loader layer: recording (%u entries from the loader; %zu calls "
              "of _exit, _Exit, exec* and signal set-up pointed at the shim)",
              num_entries, redirected);
  return CL_SUCCESS;
}

}  // namespace

LayerRole layer_role() {
  return g_role.load();
}

}  // namespace clprof::shim

using namespace clprof::shim;

CLPROF_EXPORT cl_int CL_API_CALL clGetLayerInfo(cl_layer_info param_name, size_t param_value_size,
                                                void* param_value, size_t* param_value_size_ret) {
  const void* src = nullptr;
  size_t size = 0;
  static const cl_layer_api_version kVersion = CL_LAYER_API_VERSION_100;
  switch (param_name) {
    case CL_LAYER_API_VERSION:
      src = &kVersion;
      size = sizeof kVersion;
      break;
    case CL_LAYER_NAME:
      src = kLayerName;
      size = sizeof kLayerName;
      break;
    default:
      return CL_INVALID_VALUE;
  }
  if (param_value) {
    if (param_value_size < size) return CL_INVALID_VALUE;
    std::memcpy(param_value, src, size);
  }
  if (param_value_size_ret) *param_value_size_ret = size;
  return CL_SUCCESS;
}

CLPROF_EXPORT cl_int CL_API_CALL clInitLayer(cl_uint num_entries,
                                             const cl_icd_dispatch* target_dispatch,
                                             cl_uint* num_entries_ret,
                                             const cl_icd_dispatch** layer_dispatch_ret) {
  return init_layer(num_entries, target_dispatch, num_entries_ret, layer_dispatch_ret);
}

// cl_layer_properties is cl_properties in the headers that declare this entry point
// (Debian 12's do not yet). No property is defined: the list is not read.
CLPROF_EXPORT cl_int CL_API_CALL clInitLayerWithProperties(
    cl_uint num_entries, const cl_icd_dispatch* target_dispatch, cl_uint* num_entries_ret,
    const cl_icd_dispatch** layer_dispatch_ret, const cl_properties* /*properties*/) {
  return init_layer(num_entries, target_dispatch, num_entries_ret, layer_dispatch_ret);
}

// The Khronos loader's ending (its destructor, after the atexit handlers that normally
// end the trace): the drivers are still there, so the trace can still be completed.
// A layer that only passed through leaves the trace to the preloaded shim.
CLPROF_EXPORT cl_int CL_API_CALL clDeinitLayer(void) {
  if (layer_role() == LayerRole::Recording) finalize_trace();
  return CL_SUCCESS;
}
