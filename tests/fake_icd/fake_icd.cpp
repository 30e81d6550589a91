// The fake OpenCL driver: an ICD that ocl-icd loads like any vendor library. Deterministic
// device timestamps and injectable failures; see README.md for the contract.
#include <CL/cl_icd.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "fake_config.hpp"
#include "fake_objects.hpp"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace clprof::fake {
namespace {

// ---- injection ------------------------------------------------------------------------
// One lookup per call site (a function-local static), so an entry point without an
// injection costs a predictable branch.
#define FAKE_INJECT(api)                                                              \
  do {                                                                                \
    static ::clprof::fake::Injection* const inj_ = ::clprof::fake::find_injection(api); \
    if (inj_) {                                                                       \
      const cl_int rc_ = inj_->hit();                                                 \
      if (rc_ != CL_SUCCESS) return rc_;                                              \
    }                                                                                 \
  } while (0)

#define FAKE_INJECT_OBJ(api, errcode_ret)                                             \
  do {                                                                                \
    static ::clprof::fake::Injection* const inj_ = ::clprof::fake::find_injection(api); \
    if (inj_) {                                                                       \
      const cl_int rc_ = inj_->hit();                                                 \
      if (rc_ != CL_SUCCESS) {                                                        \
        if (errcode_ret) *(errcode_ret) = rc_;                                        \
        return nullptr;                                                               \
      }                                                                               \
    }                                                                                 \
  } while (0)

template <typename T>
T* fail(cl_int* errcode_ret, cl_int code) {
  if (errcode_ret) *errcode_ret = code;
  return nullptr;
}

template <typename T>
T* succeed(cl_int* errcode_ret, T* obj) {
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return obj;
}

// ---- the singletons ---------------------------------------------------------------------
cl_icd_dispatch g_dispatch;  // filled once by init_dispatch() before any object escapes
_cl_platform_id g_platform{&g_dispatch};
_cl_device_id g_device{&g_dispatch};

// Number of commands enqueued so far in this process; command n is stamped from n.
std::atomic<std::uint64_t> g_commands{0};

// Event objects created and not yet destroyed, whoever holds them (the app, a queue's
// pending list, or a layer such as libclprof.so between the two): what tests read through
// clprof_fake_live_events() to prove that a layer leaks or holds no event.
std::atomic<std::uint64_t> g_live_events{0};
// Of those, the ones someone still holds an app-visible reference to (the app, or a layer
// between app and driver): what clprof_fake_referenced_events() returns. Unlike the live
// count, it does not include events only the driver still holds (a queue's pending list).
std::atomic<std::uint64_t> g_referenced_events{0};

constexpr std::uint64_t kQueuedStep = 1000;
constexpr std::uint64_t kSubmitDelay = 10;
constexpr std::uint64_t kStartDelay = 100;
constexpr std::uint64_t kKernelBase = 1000;
constexpr std::uint64_t kTransferBase = 500;

std::uint64_t host_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

// ---- info helpers ------------------------------------------------------------------------
cl_int info_bytes(const void* src, std::size_t n, std::size_t size, void* out,
                  std::size_t* size_ret) {
  if (out) {
    if (size < n) return CL_INVALID_VALUE;
    if (n) std::memcpy(out, src, n);
  }
  if (size_ret) *size_ret = n;
  return CL_SUCCESS;
}

template <typename T>
cl_int info_value(const T& v, std::size_t size, void* out, std::size_t* size_ret) {
  return info_bytes(&v, sizeof(T), size, out, size_ret);
}

cl_int info_string(std::string_view s, std::size_t size, void* out, std::size_t* size_ret) {
  std::string z(s);
  return info_bytes(z.c_str(), z.size() + 1, size, out, size_ret);
}

template <typename T>
cl_int info_vector(const std::vector<T>& v, std::size_t size, void* out, std::size_t* size_ret) {
  return info_bytes(v.data(), v.size() * sizeof(T), size, out, size_ret);
}

cl_name_version name_version(cl_version v, const char* name) {
  cl_name_version nv{};
  nv.version = v;
  std::strncpy(nv.name, name, CL_NAME_VERSION_MAX_NAME_SIZE - 1);
  return nv;
}

// A slow driver's query: spins, so the caller's thread stays busy (no sleep).
void spin_for_ns(std::uint64_t ns) {
  if (ns == 0) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (std::chrono::steady_clock::now() < until) {
  }
}

// ---- lifetime of objects --------------------------------------------------------------------
void drop_context(cl_context c, std::uint64_t remaining) {
  if (remaining != 0) return;
  std::vector<std::pair<void(CL_CALLBACK*)(cl_context, void*), void*>> cbs;
  {
    std::lock_guard<std::mutex> lock(c->mutex);
    cbs.swap(c->destructors);
  }
  // Spec: destructor callbacks run in reverse order of registration.
  for (auto it = cbs.rbegin(); it != cbs.rend(); ++it) it->first(c, it->second);
  delete c;
}

void drop_event(cl_event e, std::uint64_t remaining);

void set_status(cl_event e, cl_int status) {
  cl_int cur = e->status.load(std::memory_order_acquire);
  while (cur > status) {
    if (e->status.compare_exchange_weak(cur, status, std::memory_order_acq_rel)) {
      std::vector<_cl_event::Callback> fire;
      {
        std::lock_guard<std::mutex> lock(e->mutex);
        auto keep = std::partition(e->callbacks.begin(), e->callbacks.end(),
                                   [&](const _cl_event::Callback& cb) { return cb.type < status; });
        fire.assign(keep, e->callbacks.end());
        e->callbacks.erase(keep, e->callbacks.end());
      }
      // Called without our locks: a callback may call back into the driver.
      for (const auto& cb : fire) cb.fn(e, status, cb.user_data);
      return;
    }
  }
}

// Completes the queue's pending events (in-order: everything enqueued so far). Events in
// "never" mode stay pending unless `drop_all` (queue destroyed), which just lets go of them.
void flush_queue(cl_command_queue q, bool drop_all) {
  std::vector<cl_event> list;
  {
    std::lock_guard<std::mutex> lock(q->mutex);
    if (q->pending.empty()) return;
    list.swap(q->pending);
  }
  std::vector<cl_event> still;
  for (cl_event e : list) {
    if (!e->never) set_status(e, CL_COMPLETE);
    if (e->never && !drop_all) {
      still.push_back(e);
    } else {
      drop_event(e, e->refs.release_internal());
    }
  }
  if (!still.empty()) {
    std::lock_guard<std::mutex> lock(q->mutex);
    q->pending.insert(q->pending.begin(), still.begin(), still.end());
  }
}

void drop_queue(cl_command_queue q, std::uint64_t remaining) {
  if (remaining != 0) return;
  cl_context c = q->context;
  delete q;
  drop_context(c, c->refs.release_internal());
}

// Every event is made here, so that g_live_events counts each one.
cl_event new_event() {
  auto* e = new _cl_event();
  e->dispatch = &g_dispatch;
  g_live_events.fetch_add(1, std::memory_order_relaxed);
  g_referenced_events.fetch_add(1, std::memory_order_relaxed);
  return e;
}

void drop_event(cl_event e, std::uint64_t remaining) {
  if (remaining != 0) return;
  cl_command_queue q = e->queue;
  cl_context c = q ? nullptr : e->context;
  delete e;
  g_live_events.fetch_sub(1, std::memory_order_relaxed);
  if (q) drop_queue(q, q->refs.release_internal());
  if (c) drop_context(c, c->refs.release_internal());
}

void drop_mem(cl_mem m, std::uint64_t remaining) {
  if (remaining != 0) return;
  std::vector<std::pair<void(CL_CALLBACK*)(cl_mem, void*), void*>> cbs;
  {
    std::lock_guard<std::mutex> lock(m->mutex);
    cbs.swap(m->destructors);
  }
  for (auto it = cbs.rbegin(); it != cbs.rend(); ++it) it->first(m, it->second);
  cl_mem parent = m->parent;
  cl_context c = m->context;
  if (m->owns_data) std::free(m->data);
  delete m;
  if (parent) drop_mem(parent, parent->refs.release_internal());
  drop_context(c, c->refs.release_internal());
}

void drop_program(cl_program p, std::uint64_t remaining) {
  if (remaining != 0) return;
  cl_context c = p->context;
  delete p;
  drop_context(c, c->refs.release_internal());
}

void drop_kernel(cl_kernel k, std::uint64_t remaining) {
  if (remaining != 0) return;
  cl_program p = k->program;
  delete k;
  drop_program(p, p->refs.release_internal());
}

void drop_sampler(cl_sampler s, std::uint64_t remaining) {
  if (remaining != 0) return;
  cl_context c = s->context;
  delete s;
  drop_context(c, c->refs.release_internal());
}

// ---- commands ---------------------------------------------------------------------------------
cl_int check_wait_list(cl_uint n, const cl_event* list) {
  if ((n == 0) != (list == nullptr)) return CL_INVALID_EVENT_WAIT_LIST;
  for (cl_uint i = 0; i < n; ++i)
    if (!list[i]) return CL_INVALID_EVENT_WAIT_LIST;
  return CL_SUCCESS;
}

// Numbers a successfully validated command, stamps its times and hands out its event.
cl_int finish_command(cl_command_queue q, cl_command_type type, std::uint64_t duration_ns,
                      bool blocking, const KernelInfo* kernel, cl_event* event_out) {
  const std::uint64_t n = g_commands.fetch_add(1, std::memory_order_relaxed) + 1;
  const Config& cfg = config();
  EventMode mode = cfg.event_mode;
  if (mode != EventMode::kImmediate && !cfg.event_mode_kernel.empty() &&
      !(kernel && kernel->name == cfg.event_mode_kernel))
    mode = EventMode::kImmediate;
  if (blocking) {
    // In-order queue: a blocking command returns after everything before it is done.
    flush_queue(q, false);
    mode = EventMode::kImmediate;
  }
  if (!event_out) return CL_SUCCESS;
  cl_event e = new_event();
  e->queue = q;
  e->context = q->context;
  e->command_type = type;
  const std::uint64_t queued = kQueuedStep * n;
  e->times_ns[0] = queued;
  e->times_ns[1] = queued + kSubmitDelay;
  e->times_ns[2] = queued + kStartDelay;
  e->times_ns[3] = queued + kStartDelay + duration_ns;
  q->refs.retain_internal();
  if (kernel && !cfg.exec_error_kernel.empty() && kernel->name == cfg.exec_error_kernel) {
    // Failed on the device at once: no profiling times (status is not CL_COMPLETE).
    e->status.store(cfg.exec_error_code, std::memory_order_relaxed);
  } else if (mode == EventMode::kImmediate) {
    e->status.store(CL_COMPLETE, std::memory_order_relaxed);
  } else {
    e->status.store(CL_SUBMITTED, std::memory_order_relaxed);
    e->never = mode == EventMode::kNever;
    e->polls_left.store(mode == EventMode::kPolls ? cfg.event_polls : 0,
                        std::memory_order_relaxed);
    e->refs.retain_internal();  // the queue's pending list
    std::lock_guard<std::mutex> lock(q->mutex);
    q->pending.push_back(e);
  }
  *event_out = e;
  return CL_SUCCESS;
}

// ---- OpenCL C source scanning -----------------------------------------------------------------
bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string strip_comments(const std::string& src) {
  std::string out;
  out.reserve(src.size());
  for (std::size_t i = 0; i < src.size();) {
    if (src.compare(i, 2, "//") == 0) {
      while (i < src.size() && src[i] != '\n') ++i;
    } else if (src.compare(i, 2, "/*") == 0) {
      const std::size_t end = src.find("*/", i + 2);
      i = end == std::string::npos ? src.size() : end + 2;
      out += ' ';
    } else {
      out += src[i++];
    }
  }
  return out;
}

void skip_space(const std::string& s, std::size_t& i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
}

// Skips `__attribute__((...))` groups, which may sit between `kernel`, `void` and the name.
void skip_attributes(const std::string& s, std::size_t& i) {
  for (;;) {
    skip_space(s, i);
    if (s.compare(i, 13, "__attribute__") != 0) return;
    i += 13;
    skip_space(s, i);
    if (i >= s.size() || s[i] != '(') return;
    int depth = 0;
    for (; i < s.size(); ++i) {
      if (s[i] == '(') ++depth;
      if (s[i] == ')' && --depth == 0) {
        ++i;
        break;
      }
    }
  }
}

std::string read_ident(const std::string& s, std::size_t& i) {
  const std::size_t b = i;
  while (i < s.size() && is_ident(s[i])) ++i;
  return s.substr(b, i - b);
}

ArgInfo parse_param(const std::string& text) {
  ArgInfo arg;
  std::vector<std::string> words;
  std::string cur;
  for (char c : text) {
    if (is_ident(c)) {
      cur += c;
    } else {
      if (!cur.empty()) words.push_back(cur);
      cur.clear();
      if (c == '*') {
        arg.is_pointer = true;
        words.push_back("*");
      }
    }
  }
  if (!cur.empty()) words.push_back(cur);
  if (!words.empty() && words.back() != "*") {
    arg.name = words.back();
    words.pop_back();
  }
  for (const std::string& w : words) {
    if (w == "__global" || w == "global") {
      arg.address = CL_KERNEL_ARG_ADDRESS_GLOBAL;
    } else if (w == "__local" || w == "local") {
      arg.address = CL_KERNEL_ARG_ADDRESS_LOCAL;
    } else if (w == "__constant" || w == "constant") {
      arg.address = CL_KERNEL_ARG_ADDRESS_CONSTANT;
    } else if (w == "__private" || w == "private" || w == "const" || w == "restrict" ||
               w == "volatile" || w == "__read_only" || w == "read_only" ||
               w == "__write_only" || w == "write_only" || w == "__read_write" ||
               w == "read_write") {
      // qualifiers: not part of the type name
    } else if (w == "*") {
      arg.type_name += '*';
    } else {
      if (!arg.type_name.empty() && arg.type_name.back() != '*') arg.type_name += ' ';
      arg.type_name += w;
    }
  }
  // Images and pipes are memory objects although they are not written as pointers.
  if (arg.type_name.find("image") != std::string::npos ||
      arg.type_name.find("pipe") != std::string::npos) {
    arg.is_pointer = true;
    arg.address = CL_KERNEL_ARG_ADDRESS_GLOBAL;
  }
  return arg;
}

// Finds every `__kernel void NAME(params)` / `kernel void NAME(params)`.
std::vector<KernelInfo> scan_kernels(const std::string& source) {
  const std::string s = strip_comments(source);
  std::vector<KernelInfo> out;
  for (std::size_t i = 0; i < s.size();) {
    if (!is_ident(s[i])) {
      ++i;
      continue;
    }
    const bool at_word_start = i == 0 || !is_ident(s[i - 1]);
    std::string word = read_ident(s, i);
    if (!at_word_start || (word != "__kernel" && word != "kernel")) continue;
    std::size_t j = i;
    skip_attributes(s, j);
    if (read_ident(s, j) != "void") continue;
    skip_attributes(s, j);
    std::string name = read_ident(s, j);
    skip_space(s, j);
    if (name.empty() || j >= s.size() || s[j] != '(') continue;
    int depth = 0;
    std::size_t k = j;
    std::vector<std::string> params(1);
    for (; k < s.size(); ++k) {
      const char c = s[k];
      if (c == '(') {
        if (depth++ == 0) continue;
      } else if (c == ')') {
        if (--depth == 0) break;
      } else if (c == ',' && depth == 1) {
        params.emplace_back();
        continue;
      }
      params.back() += c;
    }
    KernelInfo info;
    info.name = name;
    for (const std::string& p : params) {
      const bool blank = std::all_of(p.begin(), p.end(),
                                     [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
      std::string trimmed = p;
      trimmed.erase(std::remove_if(trimmed.begin(), trimmed.end(),
                                   [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
                    trimmed.end());
      if (blank || (params.size() == 1 && trimmed == "void")) continue;
      info.args.push_back(parse_param(p));
    }
    out.push_back(std::move(info));
    i = k;
  }
  return out;
}

// ---- platform and device ----------------------------------------------------------------------
constexpr const char* kPlatformName = "clprof fake platform";
constexpr const char* kVendor = "clprof";
constexpr const char* kVersion = "OpenCL 3.0 clprof-fake";
constexpr const char* kDeviceName = "clprof fake device";

cl_int CL_API_CALL GetPlatformIDs(cl_uint num_entries, cl_platform_id* platforms,
                                  cl_uint* num_platforms) {
  FAKE_INJECT("clGetPlatformIDs");
  if ((num_entries == 0 && platforms) || (!platforms && !num_platforms)) return CL_INVALID_VALUE;
  if (platforms) platforms[0] = &g_platform;
  if (num_platforms) *num_platforms = 1;
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetPlatformInfo(cl_platform_id platform, cl_platform_info param,
                                   size_t size, void* out, size_t* size_ret) {
  FAKE_INJECT("clGetPlatformInfo");
  if (platform && platform != &g_platform) return CL_INVALID_PLATFORM;
  switch (param) {
    case CL_PLATFORM_PROFILE: return info_string("FULL_PROFILE", size, out, size_ret);
    case CL_PLATFORM_VERSION: return info_string(kVersion, size, out, size_ret);
    case CL_PLATFORM_NAME: return info_string(kPlatformName, size, out, size_ret);
    case CL_PLATFORM_VENDOR: return info_string(kVendor, size, out, size_ret);
    case CL_PLATFORM_EXTENSIONS: return info_string("cl_khr_icd", size, out, size_ret);
    case CL_PLATFORM_ICD_SUFFIX_KHR: return info_string("FAKE", size, out, size_ret);
    case CL_PLATFORM_NUMERIC_VERSION:
      return info_value<cl_version>(CL_MAKE_VERSION(3, 0, 0), size, out, size_ret);
    case CL_PLATFORM_EXTENSIONS_WITH_VERSION:
      return info_value(name_version(CL_MAKE_VERSION(1, 0, 0), "cl_khr_icd"), size, out,
                        size_ret);
    case CL_PLATFORM_HOST_TIMER_RESOLUTION:
      return info_value<cl_ulong>(config().host_timer ? 1 : 0, size, out, size_ret);
    default: return CL_INVALID_VALUE;
  }
}

bool device_type_matches(cl_device_type t) {
  return t == CL_DEVICE_TYPE_ALL || (t & (CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_GPU)) != 0;
}

cl_int CL_API_CALL GetDeviceIDs(cl_platform_id platform, cl_device_type type,
                                cl_uint num_entries, cl_device_id* devices, cl_uint* num_devices) {
  FAKE_INJECT("clGetDeviceIDs");
  if (platform && platform != &g_platform) return CL_INVALID_PLATFORM;
  if ((num_entries == 0 && devices) || (!devices && !num_devices)) return CL_INVALID_VALUE;
  if (!device_type_matches(type)) {
    if (num_devices) *num_devices = 0;
    return CL_DEVICE_NOT_FOUND;
  }
  if (devices) devices[0] = &g_device;
  if (num_devices) *num_devices = 1;
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetDeviceInfo(cl_device_id device, cl_device_info param, size_t size,
                                 void* out, size_t* size_ret) {
  FAKE_INJECT("clGetDeviceInfo");
  if (device != &g_device) return CL_INVALID_DEVICE;
  auto u = [&](cl_uint v) { return info_value(v, size, out, size_ret); };
  auto ul = [&](cl_ulong v) { return info_value(v, size, out, size_ret); };
  auto sz = [&](size_t v) { return info_value(v, size, out, size_ret); };
  auto b = [&](cl_bool v) { return info_value(v, size, out, size_ret); };
  auto str = [&](const char* v) { return info_string(v, size, out, size_ret); };
  auto none = [&]() { return info_bytes(nullptr, 0, size, out, size_ret); };
  switch (param) {
    case CL_DEVICE_TYPE: return info_value<cl_device_type>(CL_DEVICE_TYPE_GPU, size, out, size_ret);
    case CL_DEVICE_VENDOR_ID: return u(0xC1F0);
    case CL_DEVICE_MAX_COMPUTE_UNITS: return u(4);
    case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS: return u(3);
    case CL_DEVICE_MAX_WORK_ITEM_SIZES: {
      const size_t v[3] = {1024, 1024, 64};
      return info_bytes(v, sizeof v, size, out, size_ret);
    }
    case CL_DEVICE_MAX_WORK_GROUP_SIZE: return sz(1024);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE: return u(1);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF: return u(0);
    case CL_DEVICE_MAX_CLOCK_FREQUENCY: return u(1000);
    case CL_DEVICE_ADDRESS_BITS: return u(64);
    case CL_DEVICE_MAX_READ_IMAGE_ARGS: return u(128);
    case CL_DEVICE_MAX_WRITE_IMAGE_ARGS:
    case CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS: return u(64);
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE: return ul(256ull << 20);
    case CL_DEVICE_IMAGE2D_MAX_WIDTH:
    case CL_DEVICE_IMAGE2D_MAX_HEIGHT: return sz(16384);
    case CL_DEVICE_IMAGE3D_MAX_WIDTH:
    case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
    case CL_DEVICE_IMAGE3D_MAX_DEPTH:
    case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE: return sz(2048);
    case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE: return sz(65536);
    case CL_DEVICE_IMAGE_SUPPORT: return b(CL_TRUE);
    case CL_DEVICE_MAX_PARAMETER_SIZE: return sz(1024);
    case CL_DEVICE_MAX_SAMPLERS: return u(16);
    case CL_DEVICE_MEM_BASE_ADDR_ALIGN: return u(1024);
    case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE: return u(128);
    case CL_DEVICE_SINGLE_FP_CONFIG:
    case CL_DEVICE_DOUBLE_FP_CONFIG:
      return info_value<cl_device_fp_config>(
          CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
              CL_FP_ROUND_TO_INF | CL_FP_FMA,
          size, out, size_ret);
    case CL_DEVICE_HALF_FP_CONFIG: return info_value<cl_device_fp_config>(0, size, out, size_ret);
    case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE:
      return info_value<cl_device_mem_cache_type>(CL_READ_WRITE_CACHE, size, out, size_ret);
    case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE: return u(64);
    case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: return ul(1ull << 20);
    case CL_DEVICE_GLOBAL_MEM_SIZE: return ul(1ull << 30);
    case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE: return ul(64ull << 10);
    case CL_DEVICE_MAX_CONSTANT_ARGS: return u(8);
    case CL_DEVICE_LOCAL_MEM_TYPE:
      return info_value<cl_device_local_mem_type>(CL_LOCAL, size, out, size_ret);
    case CL_DEVICE_LOCAL_MEM_SIZE: return ul(64ull << 10);
    case CL_DEVICE_ERROR_CORRECTION_SUPPORT: return b(CL_FALSE);
    case CL_DEVICE_PROFILING_TIMER_RESOLUTION: return sz(1);
    case CL_DEVICE_ENDIAN_LITTLE:
    case CL_DEVICE_AVAILABLE:
    case CL_DEVICE_COMPILER_AVAILABLE:
    case CL_DEVICE_LINKER_AVAILABLE:
    case CL_DEVICE_HOST_UNIFIED_MEMORY:
    case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC:
    case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT: return b(CL_TRUE);
    case CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT:
    case CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT:
    case CL_DEVICE_PIPE_SUPPORT:
    case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS: return b(CL_FALSE);
    case CL_DEVICE_EXECUTION_CAPABILITIES:
      return info_value<cl_device_exec_capabilities>(CL_EXEC_KERNEL, size, out, size_ret);
    case CL_DEVICE_QUEUE_ON_HOST_PROPERTIES:
      return info_value<cl_command_queue_properties>(
          CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE, size, out,
          size_ret);
    case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES:
      return info_value<cl_command_queue_properties>(0, size, out, size_ret);
    case CL_DEVICE_PLATFORM: return info_value<cl_platform_id>(&g_platform, size, out, size_ret);
    case CL_DEVICE_NAME: return str(kDeviceName);
    case CL_DEVICE_VENDOR: return str(kVendor);
    case CL_DRIVER_VERSION: return str("1.0");
    case CL_DEVICE_PROFILE: return str("FULL_PROFILE");
    case CL_DEVICE_VERSION: return str(kVersion);
    case CL_DEVICE_OPENCL_C_VERSION: return str("OpenCL C 1.2 clprof-fake");
    case CL_DEVICE_EXTENSIONS:
    case CL_DEVICE_BUILT_IN_KERNELS:
    case CL_DEVICE_IL_VERSION: return str("");
    case CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED: return str("v0000-01-01-00");
    case CL_DEVICE_PRINTF_BUFFER_SIZE: return sz(1 << 20);
    case CL_DEVICE_PARENT_DEVICE: return info_value<cl_device_id>(nullptr, size, out, size_ret);
    case CL_DEVICE_PARTITION_MAX_SUB_DEVICES: return u(0);
    case CL_DEVICE_PARTITION_PROPERTIES:
      return info_value<cl_device_partition_property>(0, size, out, size_ret);
    case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
      return info_value<cl_device_affinity_domain>(0, size, out, size_ret);
    case CL_DEVICE_PARTITION_TYPE: return none();
    case CL_DEVICE_REFERENCE_COUNT: return u(1);
    case CL_DEVICE_NUMERIC_VERSION: return info_value<cl_version>(CL_MAKE_VERSION(3, 0, 0), size, out, size_ret);
    case CL_DEVICE_EXTENSIONS_WITH_VERSION:
    case CL_DEVICE_ILS_WITH_VERSION:
    case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION:
    case CL_DEVICE_OPENCL_C_FEATURES: return none();
    case CL_DEVICE_OPENCL_C_ALL_VERSIONS: {
      const cl_name_version v[3] = {name_version(CL_MAKE_VERSION(1, 0, 0), "OpenCL C"),
                                    name_version(CL_MAKE_VERSION(1, 1, 0), "OpenCL C"),
                                    name_version(CL_MAKE_VERSION(1, 2, 0), "OpenCL C")};
      return info_bytes(v, sizeof v, size, out, size_ret);
    }
    case CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES:
    case CL_DEVICE_ATOMIC_FENCE_CAPABILITIES:
      return info_value<cl_device_atomic_capabilities>(
          CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP, size, out, size_ret);
    case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES:
      return info_value<cl_device_device_enqueue_capabilities>(0, size, out, size_ret);
    case CL_DEVICE_SVM_CAPABILITIES:
      return info_value<cl_device_svm_capabilities>(CL_DEVICE_SVM_COARSE_GRAIN_BUFFER, size, out,
                                                    size_ret);
    case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: return sz(32);
    case CL_DEVICE_MAX_NUM_SUB_GROUPS:
    case CL_DEVICE_MAX_PIPE_ARGS:
    case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
    case CL_DEVICE_PIPE_MAX_PACKET_SIZE:
    case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
    case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
    case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
    case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
    case CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT:
    case CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT:
    case CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT:
    case CL_DEVICE_IMAGE_PITCH_ALIGNMENT:
    case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT: return u(0);
    case CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE:
    case CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE: return sz(0);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL RetainDevice(cl_device_id d) {
  return d == &g_device ? CL_SUCCESS : CL_INVALID_DEVICE;
}
cl_int CL_API_CALL ReleaseDevice(cl_device_id d) {
  return d == &g_device ? CL_SUCCESS : CL_INVALID_DEVICE;
}

cl_int CL_API_CALL GetDeviceAndHostTimer(cl_device_id d, cl_ulong* device_ns, cl_ulong* host_ns) {
  FAKE_INJECT("clGetDeviceAndHostTimer");
  if (d != &g_device) return CL_INVALID_DEVICE;
  if (!config().host_timer) return CL_INVALID_OPERATION;
  if (!device_ns || !host_ns) return CL_INVALID_VALUE;
  // Half-way between the last command's queued time and the next one's: never 0, and
  // ordered consistently with the synthetic command stamps.
  *device_ns = kQueuedStep * g_commands.load(std::memory_order_relaxed) + kQueuedStep / 2;
  *host_ns = host_now_ns();
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetHostTimer(cl_device_id d, cl_ulong* host_ns) {
  FAKE_INJECT("clGetHostTimer");
  if (d != &g_device) return CL_INVALID_DEVICE;
  if (!config().host_timer) return CL_INVALID_OPERATION;
  if (!host_ns) return CL_INVALID_VALUE;
  *host_ns = host_now_ns();
  return CL_SUCCESS;
}

// ---- contexts ---------------------------------------------------------------------------------
cl_context make_context(const cl_context_properties* props, cl_int* errcode_ret) {
  auto* c = new _cl_context();
  c->dispatch = &g_dispatch;
  if (props) {
    std::size_t n = 0;
    while (props[n]) n += 2;
    c->properties.assign(props, props + n + 1);
  }
  return succeed(errcode_ret, c);
}

cl_int check_context_properties(const cl_context_properties* props) {
  for (std::size_t i = 0; props && props[i]; i += 2) {
    if (props[i] == CL_CONTEXT_PLATFORM &&
        reinterpret_cast<cl_platform_id>(props[i + 1]) != &g_platform)
      return CL_INVALID_PLATFORM;
  }
  return CL_SUCCESS;
}

cl_context CL_API_CALL CreateContext(const cl_context_properties* props, cl_uint num_devices,
                                     const cl_device_id* devices,
                                     void(CL_CALLBACK*)(const char*, const void*, size_t, void*),
                                     void*, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateContext", errcode_ret);
  if (num_devices == 0 || !devices) return fail<_cl_context>(errcode_ret, CL_INVALID_VALUE);
  for (cl_uint i = 0; i < num_devices; ++i)
    if (devices[i] != &g_device) return fail<_cl_context>(errcode_ret, CL_INVALID_DEVICE);
  if (cl_int rc = check_context_properties(props)) return fail<_cl_context>(errcode_ret, rc);
  return make_context(props, errcode_ret);
}

cl_context CL_API_CALL CreateContextFromType(const cl_context_properties* props,
                                             cl_device_type type,
                                             void(CL_CALLBACK*)(const char*, const void*, size_t,
                                                                void*),
                                             void*, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateContextFromType", errcode_ret);
  if (cl_int rc = check_context_properties(props)) return fail<_cl_context>(errcode_ret, rc);
  if (!device_type_matches(type)) return fail<_cl_context>(errcode_ret, CL_DEVICE_NOT_FOUND);
  return make_context(props, errcode_ret);
}

cl_int CL_API_CALL RetainContext(cl_context c) {
  if (!c || c->refs.api() == 0) return CL_INVALID_CONTEXT;
  c->refs.retain_api();
  return CL_SUCCESS;
}

cl_int CL_API_CALL ReleaseContext(cl_context c) {
  FAKE_INJECT("clReleaseContext");
  if (!c || c->refs.api() == 0) return CL_INVALID_CONTEXT;
  drop_context(c, c->refs.release_api());
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetContextInfo(cl_context c, cl_context_info param, size_t size, void* out,
                                  size_t* size_ret) {
  FAKE_INJECT("clGetContextInfo");
  if (!c) return CL_INVALID_CONTEXT;
  switch (param) {
    case CL_CONTEXT_REFERENCE_COUNT: return info_value<cl_uint>(c->refs.api(), size, out, size_ret);
    case CL_CONTEXT_NUM_DEVICES: return info_value<cl_uint>(1, size, out, size_ret);
    case CL_CONTEXT_DEVICES: return info_value<cl_device_id>(&g_device, size, out, size_ret);
    case CL_CONTEXT_PROPERTIES: return info_vector(c->properties, size, out, size_ret);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL SetContextDestructorCallback(cl_context c,
                                                void(CL_CALLBACK* fn)(cl_context, void*),
                                                void* user_data) {
  if (!c) return CL_INVALID_CONTEXT;
  if (!fn) return CL_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(c->mutex);
  c->destructors.emplace_back(fn, user_data);
  return CL_SUCCESS;
}

// ---- command queues ---------------------------------------------------------------------------
cl_command_queue make_queue(cl_context c, cl_device_id d, cl_command_queue_properties props,
                            cl_int* errcode_ret) {
  if (!c || c->refs.api() == 0) return fail<_cl_command_queue>(errcode_ret, CL_INVALID_CONTEXT);
  if (d != &g_device) return fail<_cl_command_queue>(errcode_ret, CL_INVALID_DEVICE);
  const cl_command_queue_properties known =
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
  if (props & ~known) return fail<_cl_command_queue>(errcode_ret, CL_INVALID_QUEUE_PROPERTIES);
  auto* q = new _cl_command_queue();
  q->dispatch = &g_dispatch;
  q->context = c;
  q->device = d;
  q->properties = props;
  c->refs.retain_internal();
  return succeed(errcode_ret, q);
}

cl_command_queue CL_API_CALL CreateCommandQueue(cl_context c, cl_device_id d,
                                                cl_command_queue_properties props,
                                                cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateCommandQueue", errcode_ret);
  return make_queue(c, d, props, errcode_ret);
}

cl_command_queue CL_API_CALL CreateCommandQueueWithProperties(cl_context c, cl_device_id d,
                                                              const cl_queue_properties* props,
                                                              cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateCommandQueueWithProperties", errcode_ret);
  cl_command_queue_properties bits = 0;
  std::size_t n = 0;
  for (; props && props[n]; n += 2) {
    if (props[n] == CL_QUEUE_PROPERTIES) {
      bits = static_cast<cl_command_queue_properties>(props[n + 1]);
    } else if (props[n] != CL_QUEUE_SIZE) {
      return fail<_cl_command_queue>(errcode_ret, CL_INVALID_VALUE);
    }
  }
  cl_command_queue q = make_queue(c, d, bits, errcode_ret);
  if (q && props) q->properties_array.assign(props, props + n + 1);
  return q;
}

cl_int CL_API_CALL RetainCommandQueue(cl_command_queue q) {
  if (!q || q->refs.api() == 0) return CL_INVALID_COMMAND_QUEUE;
  q->refs.retain_api();
  return CL_SUCCESS;
}

cl_int CL_API_CALL ReleaseCommandQueue(cl_command_queue q) {
  FAKE_INJECT("clReleaseCommandQueue");
  if (!q || q->refs.api() == 0) return CL_INVALID_COMMAND_QUEUE;
  if (q->refs.api() == 1) {
    // Last app reference: implicit flush; commands still run to completion (spec).
    flush_queue(q, true);
  }
  drop_queue(q, q->refs.release_api());
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetCommandQueueInfo(cl_command_queue q, cl_command_queue_info param,
                                       size_t size, void* out, size_t* size_ret) {
  FAKE_INJECT("clGetCommandQueueInfo");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  switch (param) {
    case CL_QUEUE_CONTEXT: return info_value(q->context, size, out, size_ret);
    case CL_QUEUE_DEVICE: return info_value(q->device, size, out, size_ret);
    case CL_QUEUE_REFERENCE_COUNT: return info_value<cl_uint>(q->refs.api(), size, out, size_ret);
    case CL_QUEUE_PROPERTIES: return info_value(q->properties, size, out, size_ret);
    case CL_QUEUE_PROPERTIES_ARRAY: return info_vector(q->properties_array, size, out, size_ret);
    case CL_QUEUE_DEVICE_DEFAULT:
      return info_value<cl_command_queue>(nullptr, size, out, size_ret);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL Flush(cl_command_queue q) {
  FAKE_INJECT("clFlush");
  return q ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
}

cl_int CL_API_CALL Finish(cl_command_queue q) {
  FAKE_INJECT("clFinish");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  flush_queue(q, false);
  return CL_SUCCESS;
}

// ---- events -----------------------------------------------------------------------------------
cl_int CL_API_CALL WaitForEvents(cl_uint n, const cl_event* list) {
  FAKE_INJECT("clWaitForEvents");
  if (n == 0 || !list) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < n; ++i)
    if (!list[i]) return CL_INVALID_EVENT;
  bool failed = false;
  for (cl_uint i = 0; i < n; ++i) {
    if (!list[i]->never && list[i]->queue) set_status(list[i], CL_COMPLETE);
    if (list[i]->status.load() < 0) failed = true;
  }
  return failed ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS;
}

cl_int CL_API_CALL GetEventInfo(cl_event e, cl_event_info param, size_t size, void* out,
                                size_t* size_ret) {
  FAKE_INJECT("clGetEventInfo");
  if (!e) return CL_INVALID_EVENT;
  switch (param) {
    case CL_EVENT_COMMAND_QUEUE: return info_value(e->queue, size, out, size_ret);
    case CL_EVENT_CONTEXT: return info_value(e->context, size, out, size_ret);
    case CL_EVENT_COMMAND_TYPE: return info_value(e->command_type, size, out, size_ret);
    case CL_EVENT_REFERENCE_COUNT: {
      const cl_uint count = e->refs.api();
      // A slow answer: the count may be stale by the time the caller gets it.
      spin_for_ns(config().refcount_delay_ns);
      return info_value<cl_uint>(count, size, out, size_ret);
    }
    case CL_EVENT_COMMAND_EXECUTION_STATUS: {
      cl_int st = e->status.load(std::memory_order_acquire);
      if (st > CL_COMPLETE && !e->never && e->queue && config().event_mode == EventMode::kPolls) {
        // The K+1-th status query is the first to see the command done.
        if (e->polls_left.fetch_sub(1, std::memory_order_acq_rel) <= 0) {
          set_status(e, CL_COMPLETE);
          st = e->status.load(std::memory_order_acquire);
        }
      }
      return info_value(st, size, out, size_ret);
    }
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL RetainEvent(cl_event e) {
  if (!e || e->refs.api() == 0) return CL_INVALID_EVENT;
  e->refs.retain_api();
  return CL_SUCCESS;
}

cl_int CL_API_CALL ReleaseEvent(cl_event e) {
  FAKE_INJECT("clReleaseEvent");
  if (!e || e->refs.api() == 0) return CL_INVALID_EVENT;
  const std::uint64_t left = e->refs.release_api();
  if (RefCount::no_api(left)) g_referenced_events.fetch_sub(1, std::memory_order_relaxed);
  drop_event(e, left);
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetEventProfilingInfo(cl_event e, cl_profiling_info param, size_t size,
                                         void* out, size_t* size_ret) {
  FAKE_INJECT("clGetEventProfilingInfo");
  static const std::uint64_t delay_ns = config().query_delay_ns;  // read once: a hot call
  spin_for_ns(delay_ns);
  if (!e) return CL_INVALID_EVENT;
  if (!e->queue || !(e->queue->properties & CL_QUEUE_PROFILING_ENABLE) ||
      e->status.load(std::memory_order_acquire) != CL_COMPLETE)
    return CL_PROFILING_INFO_NOT_AVAILABLE;
  switch (param) {
    case CL_PROFILING_COMMAND_QUEUED: return info_value(e->times_ns[0], size, out, size_ret);
    case CL_PROFILING_COMMAND_SUBMIT: return info_value(e->times_ns[1], size, out, size_ret);
    case CL_PROFILING_COMMAND_START: return info_value(e->times_ns[2], size, out, size_ret);
    case CL_PROFILING_COMMAND_END:
    case CL_PROFILING_COMMAND_COMPLETE: return info_value(e->times_ns[3], size, out, size_ret);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL SetEventCallback(cl_event e, cl_int type,
                                    void(CL_CALLBACK* fn)(cl_event, cl_int, void*),
                                    void* user_data) {
  FAKE_INJECT("clSetEventCallback");
  if (!e) return CL_INVALID_EVENT;
  if (!fn || (type != CL_COMPLETE && type != CL_SUBMITTED && type != CL_RUNNING))
    return CL_INVALID_VALUE;
  cl_int now = 0;
  {
    std::lock_guard<std::mutex> lock(e->mutex);
    now = e->status.load(std::memory_order_acquire);
    if (now > type) {
      e->callbacks.push_back({type, fn, user_data});
      return CL_SUCCESS;
    }
  }
  fn(e, now, user_data);
  return CL_SUCCESS;
}

cl_event CL_API_CALL CreateUserEvent(cl_context c, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateUserEvent", errcode_ret);
  if (!c) return fail<_cl_event>(errcode_ret, CL_INVALID_CONTEXT);
  cl_event e = new_event();
  e->context = c;
  e->command_type = CL_COMMAND_USER;
  e->status.store(CL_SUBMITTED);
  c->refs.retain_internal();
  return succeed(errcode_ret, e);
}

cl_int CL_API_CALL SetUserEventStatus(cl_event e, cl_int status) {
  if (!e || e->command_type != CL_COMMAND_USER) return CL_INVALID_EVENT;
  if (status > CL_COMPLETE) return CL_INVALID_VALUE;
  if (e->status.load() <= CL_COMPLETE) return CL_INVALID_OPERATION;
  set_status(e, status);
  return CL_SUCCESS;
}

// ---- memory objects ---------------------------------------------------------------------------
cl_int check_mem_flags(cl_mem_flags flags, const void* host_ptr) {
  const bool needs_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  if (needs_ptr != (host_ptr != nullptr)) return CL_INVALID_HOST_PTR;
  if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

cl_mem make_mem(cl_context c, cl_mem_flags flags, std::size_t bytes, void* host_ptr,
                cl_int* errcode_ret) {
  auto* m = new _cl_mem();
  m->dispatch = &g_dispatch;
  m->context = c;
  m->flags = flags ? flags : CL_MEM_READ_WRITE;
  m->size = bytes;
  if (flags & CL_MEM_USE_HOST_PTR) {
    m->data = static_cast<unsigned char*>(host_ptr);
    m->host_ptr = host_ptr;
  } else {
    m->data = static_cast<unsigned char*>(std::calloc(bytes ? bytes : 1, 1));
    if (!m->data) {
      delete m;
      return fail<_cl_mem>(errcode_ret, CL_MEM_OBJECT_ALLOCATION_FAILURE);
    }
    m->owns_data = true;
    if (flags & CL_MEM_COPY_HOST_PTR) std::memcpy(m->data, host_ptr, bytes);
  }
  c->refs.retain_internal();
  return succeed(errcode_ret, m);
}

cl_mem CL_API_CALL CreateBuffer(cl_context c, cl_mem_flags flags, size_t bytes, void* host_ptr,
                                cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateBuffer", errcode_ret);
  if (!c) return fail<_cl_mem>(errcode_ret, CL_INVALID_CONTEXT);
  if (bytes == 0 || bytes > (256ull << 20)) return fail<_cl_mem>(errcode_ret, CL_INVALID_BUFFER_SIZE);
  if (cl_int rc = check_mem_flags(flags, host_ptr)) return fail<_cl_mem>(errcode_ret, rc);
  return make_mem(c, flags, bytes, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL CreateBufferWithProperties(cl_context c, const cl_mem_properties*,
                                              cl_mem_flags flags, size_t bytes, void* host_ptr,
                                              cl_int* errcode_ret) {
  return CreateBuffer(c, flags, bytes, host_ptr, errcode_ret);
}

// cl_arm_import_memory (host memory only): a buffer over the app's memory, like
// CL_MEM_USE_HOST_PTR. Found only through clGetExtensionFunctionAddress(ForPlatform).
cl_mem CL_API_CALL ImportMemoryARM(cl_context c, cl_mem_flags flags, const intptr_t*, void* memory,
                                   size_t bytes, cl_int* errcode_ret) {
  if (!memory) return fail<_cl_mem>(errcode_ret, CL_INVALID_VALUE);
  return CreateBuffer(c, (flags ? flags : CL_MEM_READ_WRITE) | CL_MEM_USE_HOST_PTR, bytes, memory,
                      errcode_ret);
}

cl_mem CL_API_CALL CreateSubBuffer(cl_mem parent, cl_mem_flags flags,
                                   cl_buffer_create_type type, const void* info,
                                   cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateSubBuffer", errcode_ret);
  if (!parent || parent->type != CL_MEM_OBJECT_BUFFER || parent->parent)
    return fail<_cl_mem>(errcode_ret, CL_INVALID_MEM_OBJECT);
  if (type != CL_BUFFER_CREATE_TYPE_REGION || !info)
    return fail<_cl_mem>(errcode_ret, CL_INVALID_VALUE);
  const auto* region = static_cast<const cl_buffer_region*>(info);
  if (region->size == 0) return fail<_cl_mem>(errcode_ret, CL_INVALID_BUFFER_SIZE);
  if (region->origin + region->size > parent->size)
    return fail<_cl_mem>(errcode_ret, CL_INVALID_VALUE);
  auto* m = new _cl_mem();
  m->dispatch = &g_dispatch;
  m->context = parent->context;
  m->flags = flags ? flags : parent->flags;
  m->size = region->size;
  m->data = parent->data + region->origin;
  m->parent = parent;
  m->offset = region->origin;
  if (parent->host_ptr) m->host_ptr = static_cast<unsigned char*>(parent->host_ptr) + region->origin;
  parent->refs.retain_internal();
  m->context->refs.retain_internal();
  return succeed(errcode_ret, m);
}

std::size_t image_element_size(const cl_image_format& f) {
  std::size_t channels = 0;
  switch (f.image_channel_order) {
    case CL_R: case CL_A: case CL_INTENSITY: case CL_LUMINANCE: case CL_DEPTH: channels = 1; break;
    case CL_RG: case CL_RA: channels = 2; break;
    case CL_RGB: channels = 3; break;
    case CL_RGBA: case CL_BGRA: case CL_ARGB: channels = 4; break;
    default: return 0;
  }
  switch (f.image_channel_data_type) {
    case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8:
      return channels;
    case CL_SNORM_INT16: case CL_UNORM_INT16: case CL_SIGNED_INT16: case CL_UNSIGNED_INT16:
    case CL_HALF_FLOAT:
      return 2 * channels;
    case CL_SIGNED_INT32: case CL_UNSIGNED_INT32: case CL_FLOAT: return 4 * channels;
    default: return 0;
  }
}

cl_mem CL_API_CALL CreateImage(cl_context c, cl_mem_flags flags, const cl_image_format* format,
                               const cl_image_desc* desc, void* host_ptr, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateImage", errcode_ret);
  if (!c) return fail<_cl_mem>(errcode_ret, CL_INVALID_CONTEXT);
  if (!format || image_element_size(*format) == 0)
    return fail<_cl_mem>(errcode_ret, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  if (!desc || desc->image_width == 0) return fail<_cl_mem>(errcode_ret, CL_INVALID_IMAGE_DESCRIPTOR);
  if (desc->image_type != CL_MEM_OBJECT_IMAGE1D && desc->image_type != CL_MEM_OBJECT_IMAGE2D &&
      desc->image_type != CL_MEM_OBJECT_IMAGE3D && desc->image_type != CL_MEM_OBJECT_IMAGE1D_ARRAY &&
      desc->image_type != CL_MEM_OBJECT_IMAGE2D_ARRAY)
    return fail<_cl_mem>(errcode_ret, CL_INVALID_IMAGE_DESCRIPTOR);
  if (cl_int rc = check_mem_flags(flags, host_ptr)) return fail<_cl_mem>(errcode_ret, rc);
  const std::size_t elem = image_element_size(*format);
  cl_image_desc d = *desc;
  d.image_height = std::max<std::size_t>(d.image_height, 1);
  d.image_depth = std::max<std::size_t>(d.image_depth, 1);
  d.image_array_size = std::max<std::size_t>(d.image_array_size, 1);
  if (d.image_row_pitch == 0) d.image_row_pitch = d.image_width * elem;
  if (d.image_slice_pitch == 0) d.image_slice_pitch = d.image_row_pitch * d.image_height;
  const std::size_t layers = desc->image_type == CL_MEM_OBJECT_IMAGE3D ? d.image_depth
                                                                       : d.image_array_size;
  cl_mem m = make_mem(c, flags, d.image_slice_pitch * layers, host_ptr, errcode_ret);
  if (!m) return m;
  m->type = desc->image_type;
  m->format = *format;
  m->desc = d;
  m->element_size = elem;
  return m;
}

cl_mem CL_API_CALL CreateImage2D(cl_context c, cl_mem_flags flags, const cl_image_format* format,
                                 size_t w, size_t h, size_t pitch, void* host_ptr,
                                 cl_int* errcode_ret) {
  cl_image_desc d{};
  d.image_type = CL_MEM_OBJECT_IMAGE2D;
  d.image_width = w;
  d.image_height = h;
  d.image_row_pitch = pitch;
  return CreateImage(c, flags, format, &d, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL CreateImage3D(cl_context c, cl_mem_flags flags, const cl_image_format* format,
                                 size_t w, size_t h, size_t depth, size_t row_pitch,
                                 size_t slice_pitch, void* host_ptr, cl_int* errcode_ret) {
  cl_image_desc d{};
  d.image_type = CL_MEM_OBJECT_IMAGE3D;
  d.image_width = w;
  d.image_height = h;
  d.image_depth = depth;
  d.image_row_pitch = row_pitch;
  d.image_slice_pitch = slice_pitch;
  return CreateImage(c, flags, format, &d, host_ptr, errcode_ret);
}

cl_int CL_API_CALL GetSupportedImageFormats(cl_context c, cl_mem_flags, cl_mem_object_type,
                                            cl_uint num_entries, cl_image_format* formats,
                                            cl_uint* num_formats) {
  if (!c) return CL_INVALID_CONTEXT;
  const cl_image_format all[] = {{CL_RGBA, CL_UNORM_INT8}, {CL_RGBA, CL_FLOAT}, {CL_R, CL_FLOAT}};
  const cl_uint n = sizeof all / sizeof all[0];
  if (formats)
    for (cl_uint i = 0; i < std::min(n, num_entries); ++i) formats[i] = all[i];
  if (num_formats) *num_formats = n;
  return CL_SUCCESS;
}

cl_int CL_API_CALL RetainMemObject(cl_mem m) {
  if (!m || m->refs.api() == 0) return CL_INVALID_MEM_OBJECT;
  m->refs.retain_api();
  return CL_SUCCESS;
}

cl_int CL_API_CALL ReleaseMemObject(cl_mem m) {
  FAKE_INJECT("clReleaseMemObject");
  if (!m || m->refs.api() == 0) return CL_INVALID_MEM_OBJECT;
  drop_mem(m, m->refs.release_api());
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetMemObjectInfo(cl_mem m, cl_mem_info param, size_t size, void* out,
                                    size_t* size_ret) {
  FAKE_INJECT("clGetMemObjectInfo");
  if (!m) return CL_INVALID_MEM_OBJECT;
  switch (param) {
    case CL_MEM_TYPE: return info_value(m->type, size, out, size_ret);
    case CL_MEM_FLAGS: return info_value(m->flags, size, out, size_ret);
    case CL_MEM_SIZE: return info_value<size_t>(m->size, size, out, size_ret);
    case CL_MEM_HOST_PTR: return info_value(m->host_ptr, size, out, size_ret);
    case CL_MEM_MAP_COUNT: return info_value<cl_uint>(m->map_count.load(), size, out, size_ret);
    case CL_MEM_REFERENCE_COUNT: return info_value<cl_uint>(m->refs.api(), size, out, size_ret);
    case CL_MEM_CONTEXT: return info_value(m->context, size, out, size_ret);
    case CL_MEM_ASSOCIATED_MEMOBJECT: return info_value(m->parent, size, out, size_ret);
    case CL_MEM_OFFSET: return info_value<size_t>(m->offset, size, out, size_ret);
    case CL_MEM_USES_SVM_POINTER: return info_value<cl_bool>(CL_FALSE, size, out, size_ret);
    case CL_MEM_PROPERTIES: return info_bytes(nullptr, 0, size, out, size_ret);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL GetImageInfo(cl_mem m, cl_image_info param, size_t size, void* out,
                                size_t* size_ret) {
  if (!m || m->type == CL_MEM_OBJECT_BUFFER) return CL_INVALID_MEM_OBJECT;
  switch (param) {
    case CL_IMAGE_FORMAT: return info_value(m->format, size, out, size_ret);
    case CL_IMAGE_ELEMENT_SIZE: return info_value<size_t>(m->element_size, size, out, size_ret);
    case CL_IMAGE_ROW_PITCH: return info_value<size_t>(m->desc.image_row_pitch, size, out, size_ret);
    case CL_IMAGE_SLICE_PITCH:
      return info_value<size_t>(m->desc.image_slice_pitch, size, out, size_ret);
    case CL_IMAGE_WIDTH: return info_value<size_t>(m->desc.image_width, size, out, size_ret);
    case CL_IMAGE_HEIGHT:
      return info_value<size_t>(m->type == CL_MEM_OBJECT_IMAGE1D ? 0 : m->desc.image_height, size,
                                out, size_ret);
    case CL_IMAGE_DEPTH:
      return info_value<size_t>(m->type == CL_MEM_OBJECT_IMAGE3D ? m->desc.image_depth : 0, size,
                                out, size_ret);
    case CL_IMAGE_ARRAY_SIZE:
      return info_value<size_t>(m->desc.image_array_size, size, out, size_ret);
    case CL_IMAGE_NUM_MIP_LEVELS:
    case CL_IMAGE_NUM_SAMPLES: return info_value<cl_uint>(0, size, out, size_ret);
    case CL_IMAGE_BUFFER: return info_value<cl_mem>(nullptr, size, out, size_ret);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL SetMemObjectDestructorCallback(cl_mem m, void(CL_CALLBACK* fn)(cl_mem, void*),
                                                  void* user_data) {
  if (!m) return CL_INVALID_MEM_OBJECT;
  if (!fn) return CL_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(m->mutex);
  m->destructors.emplace_back(fn, user_data);
  return CL_SUCCESS;
}

void* CL_API_CALL SVMAlloc(cl_context c, cl_svm_mem_flags, size_t bytes, cl_uint alignment) {
  if (!c || bytes == 0) return nullptr;
  const std::size_t align = alignment ? alignment : 128;
  return std::aligned_alloc(align, (bytes + align - 1) / align * align);
}

void CL_API_CALL SVMFree(cl_context, void* p) { std::free(p); }

// ---- samplers ---------------------------------------------------------------------------------
cl_sampler CL_API_CALL CreateSampler(cl_context c, cl_bool normalized, cl_addressing_mode am,
                                     cl_filter_mode fm, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateSampler", errcode_ret);
  if (!c) return fail<_cl_sampler>(errcode_ret, CL_INVALID_CONTEXT);
  auto* s = new _cl_sampler();
  s->dispatch = &g_dispatch;
  s->context = c;
  s->normalized = normalized;
  s->addressing = am;
  s->filter = fm;
  c->refs.retain_internal();
  return succeed(errcode_ret, s);
}

cl_sampler CL_API_CALL CreateSamplerWithProperties(cl_context c, const cl_sampler_properties* props,
                                                   cl_int* errcode_ret) {
  cl_bool normalized = CL_TRUE;
  cl_addressing_mode am = CL_ADDRESS_CLAMP;
  cl_filter_mode fm = CL_FILTER_NEAREST;
  for (std::size_t i = 0; props && props[i]; i += 2) {
    if (props[i] == CL_SAMPLER_NORMALIZED_COORDS) normalized = static_cast<cl_bool>(props[i + 1]);
    if (props[i] == CL_SAMPLER_ADDRESSING_MODE) am = static_cast<cl_addressing_mode>(props[i + 1]);
    if (props[i] == CL_SAMPLER_FILTER_MODE) fm = static_cast<cl_filter_mode>(props[i + 1]);
  }
  return CreateSampler(c, normalized, am, fm, errcode_ret);
}

cl_int CL_API_CALL RetainSampler(cl_sampler s) {
  if (!s || s->refs.api() == 0) return CL_INVALID_SAMPLER;
  s->refs.retain_api();
  return CL_SUCCESS;
}

cl_int CL_API_CALL ReleaseSampler(cl_sampler s) {
  if (!s || s->refs.api() == 0) return CL_INVALID_SAMPLER;
  drop_sampler(s, s->refs.release_api());
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetSamplerInfo(cl_sampler s, cl_sampler_info param, size_t size, void* out,
                                  size_t* size_ret) {
  if (!s) return CL_INVALID_SAMPLER;
  switch (param) {
    case CL_SAMPLER_REFERENCE_COUNT: return info_value<cl_uint>(s->refs.api(), size, out, size_ret);
    case CL_SAMPLER_CONTEXT: return info_value(s->context, size, out, size_ret);
    case CL_SAMPLER_NORMALIZED_COORDS: return info_value(s->normalized, size, out, size_ret);
    case CL_SAMPLER_ADDRESSING_MODE: return info_value(s->addressing, size, out, size_ret);
    case CL_SAMPLER_FILTER_MODE: return info_value(s->filter, size, out, size_ret);
    default: return CL_INVALID_VALUE;
  }
}

// ---- programs ---------------------------------------------------------------------------------
cl_program make_program(cl_context c, std::string source, cl_int* errcode_ret) {
  auto* p = new _cl_program();
  p->dispatch = &g_dispatch;
  p->context = c;
  p->kernels = scan_kernels(source);
  p->source = std::move(source);
  c->refs.retain_internal();
  return succeed(errcode_ret, p);
}

cl_program CL_API_CALL CreateProgramWithSource(cl_context c, cl_uint count, const char** strings,
                                               const size_t* lengths, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateProgramWithSource", errcode_ret);
  if (!c) return fail<_cl_program>(errcode_ret, CL_INVALID_CONTEXT);
  if (count == 0 || !strings) return fail<_cl_program>(errcode_ret, CL_INVALID_VALUE);
  std::string src;
  for (cl_uint i = 0; i < count; ++i) {
    if (!strings[i]) return fail<_cl_program>(errcode_ret, CL_INVALID_VALUE);
    if (lengths && lengths[i]) {
      src.append(strings[i], lengths[i]);
    } else {
      src.append(strings[i]);
    }
  }
  return make_program(c, std::move(src), errcode_ret);
}

// A "binary" of the fake is the program's source text (what clGetProgramInfo returns).
cl_program CL_API_CALL CreateProgramWithBinary(cl_context c, cl_uint num_devices,
                                               const cl_device_id* devices, const size_t* lengths,
                                               const unsigned char** binaries,
                                               cl_int* binary_status, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateProgramWithBinary", errcode_ret);
  if (!c) return fail<_cl_program>(errcode_ret, CL_INVALID_CONTEXT);
  if (num_devices != 1 || !devices || !lengths || !binaries || !binaries[0] || !lengths[0])
    return fail<_cl_program>(errcode_ret, CL_INVALID_VALUE);
  if (devices[0] != &g_device) return fail<_cl_program>(errcode_ret, CL_INVALID_DEVICE);
  if (binary_status) binary_status[0] = CL_SUCCESS;
  cl_program p = make_program(
      c, std::string(reinterpret_cast<const char*>(binaries[0]), lengths[0]), errcode_ret);
  p->binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
  return p;
}

cl_int CL_API_CALL RetainProgram(cl_program p) {
  if (!p || p->refs.api() == 0) return CL_INVALID_PROGRAM;
  p->refs.retain_api();
  return CL_SUCCESS;
}

cl_int CL_API_CALL ReleaseProgram(cl_program p) {
  FAKE_INJECT("clReleaseProgram");
  if (!p || p->refs.api() == 0) return CL_INVALID_PROGRAM;
  drop_program(p, p->refs.release_api());
  return CL_SUCCESS;
}

cl_int build_like(cl_program p, cl_uint num_devices, const cl_device_id* devices,
                  const char* options, void(CL_CALLBACK* notify)(cl_program, void*),
                  void* user_data, cl_program_binary_type success_type) {
  if (!p) return CL_INVALID_PROGRAM;
  if ((num_devices == 0) != (devices == nullptr)) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < num_devices; ++i)
    if (devices[i] != &g_device) return CL_INVALID_DEVICE;
  const std::string opts = options ? options : "";
  const std::string& token = config().build_fail_token;
  const bool fails = opts.find(token) != std::string::npos;
  {
    std::lock_guard<std::mutex> lock(p->mutex);
    p->options = opts;
    if (fails) {
      p->build_status = CL_BUILD_ERROR;
      p->binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
      p->log = "clprof fake ICD: build failure injected by option " + token + "\n";
    } else {
      p->build_status = CL_BUILD_SUCCESS;
      p->binary_type = success_type;
      p->log = "";
    }
  }
  if (notify) notify(p, user_data);
  if (!fails) return CL_SUCCESS;
  return success_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE ? CL_BUILD_PROGRAM_FAILURE
                                                          : CL_COMPILE_PROGRAM_FAILURE;
}

cl_int CL_API_CALL BuildProgram(cl_program p, cl_uint num_devices, const cl_device_id* devices,
                                const char* options, void(CL_CALLBACK* notify)(cl_program, void*),
                                void* user_data) {
  FAKE_INJECT("clBuildProgram");
  return build_like(p, num_devices, devices, options, notify, user_data,
                    CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
}

cl_int CL_API_CALL CompileProgram(cl_program p, cl_uint num_devices, const cl_device_id* devices,
                                  const char* options, cl_uint, const cl_program*, const char**,
                                  void(CL_CALLBACK* notify)(cl_program, void*), void* user_data) {
  FAKE_INJECT("clCompileProgram");
  return build_like(p, num_devices, devices, options, notify, user_data,
                    CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
}

cl_program CL_API_CALL LinkProgram(cl_context c, cl_uint num_devices, const cl_device_id* devices,
                                   const char* options, cl_uint num_programs,
                                   const cl_program* programs,
                                   void(CL_CALLBACK* notify)(cl_program, void*), void* user_data,
                                   cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clLinkProgram", errcode_ret);
  if (!c) return fail<_cl_program>(errcode_ret, CL_INVALID_CONTEXT);
  if (num_programs == 0 || !programs) return fail<_cl_program>(errcode_ret, CL_INVALID_VALUE);
  std::string src;
  for (cl_uint i = 0; i < num_programs; ++i) {
    if (!programs[i]) return fail<_cl_program>(errcode_ret, CL_INVALID_PROGRAM);
    src += programs[i]->source;
    src += '\n';
  }
  cl_program p = make_program(c, std::move(src), errcode_ret);
  const cl_int rc = build_like(p, num_devices, devices, options, notify, user_data,
                               CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
  if (rc != CL_SUCCESS) {
    if (errcode_ret) *errcode_ret = rc == CL_BUILD_PROGRAM_FAILURE ? CL_LINK_PROGRAM_FAILURE : rc;
    if (rc != CL_BUILD_PROGRAM_FAILURE) {
      ReleaseProgram(p);
      return nullptr;
    }
  }
  return p;
}

cl_int CL_API_CALL UnloadCompiler() { return CL_SUCCESS; }
cl_int CL_API_CALL UnloadPlatformCompiler(cl_platform_id) { return CL_SUCCESS; }

std::string kernel_names(cl_program p) {
  std::string names;
  for (const KernelInfo& k : p->kernels) {
    if (!names.empty()) names += ';';
    names += k.name;
  }
  return names;
}

bool is_built(cl_program p) {
  std::lock_guard<std::mutex> lock(p->mutex);
  return p->build_status == CL_BUILD_SUCCESS &&
         p->binary_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
}

cl_int CL_API_CALL GetProgramInfo(cl_program p, cl_program_info param, size_t size, void* out,
                                  size_t* size_ret) {
  FAKE_INJECT("clGetProgramInfo");
  if (!p) return CL_INVALID_PROGRAM;
  switch (param) {
    case CL_PROGRAM_REFERENCE_COUNT: return info_value<cl_uint>(p->refs.api(), size, out, size_ret);
    case CL_PROGRAM_CONTEXT: return info_value(p->context, size, out, size_ret);
    case CL_PROGRAM_NUM_DEVICES: return info_value<cl_uint>(1, size, out, size_ret);
    case CL_PROGRAM_DEVICES: return info_value<cl_device_id>(&g_device, size, out, size_ret);
    case CL_PROGRAM_SOURCE: return info_string(p->source, size, out, size_ret);
    case CL_PROGRAM_IL: return info_bytes(nullptr, 0, size, out, size_ret);
    case CL_PROGRAM_BINARY_SIZES: return info_value<size_t>(p->source.size(), size, out, size_ret);
    case CL_PROGRAM_BINARIES: {
      if (!out) {
        if (size_ret) *size_ret = sizeof(unsigned char*);
        return CL_SUCCESS;
      }
      if (size < sizeof(unsigned char*)) return CL_INVALID_VALUE;
      unsigned char* dst = static_cast<unsigned char**>(out)[0];
      if (dst) std::memcpy(dst, p->source.data(), p->source.size());
      if (size_ret) *size_ret = sizeof(unsigned char*);
      return CL_SUCCESS;
    }
    case CL_PROGRAM_NUM_KERNELS:
      if (!is_built(p)) return CL_INVALID_PROGRAM_EXECUTABLE;
      return info_value<size_t>(p->kernels.size(), size, out, size_ret);
    case CL_PROGRAM_KERNEL_NAMES:
      if (!is_built(p)) return CL_INVALID_PROGRAM_EXECUTABLE;
      return info_string(kernel_names(p), size, out, size_ret);
    case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
    case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT:
      return info_value<cl_bool>(CL_FALSE, size, out, size_ret);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL GetProgramBuildInfo(cl_program p, cl_device_id d, cl_program_build_info param,
                                       size_t size, void* out, size_t* size_ret) {
  FAKE_INJECT("clGetProgramBuildInfo");
  if (!p) return CL_INVALID_PROGRAM;
  if (d != &g_device) return CL_INVALID_DEVICE;
  std::lock_guard<std::mutex> lock(p->mutex);
  switch (param) {
    case CL_PROGRAM_BUILD_STATUS: return info_value(p->build_status, size, out, size_ret);
    case CL_PROGRAM_BUILD_OPTIONS: return info_string(p->options, size, out, size_ret);
    case CL_PROGRAM_BUILD_LOG: return info_string(p->log, size, out, size_ret);
    case CL_PROGRAM_BINARY_TYPE: return info_value(p->binary_type, size, out, size_ret);
    case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE: return info_value<size_t>(0, size, out, size_ret);
    default: return CL_INVALID_VALUE;
  }
}

// ---- kernels ----------------------------------------------------------------------------------
cl_kernel make_kernel(cl_program p, const KernelInfo* info) {
  auto* k = new _cl_kernel();
  k->dispatch = &g_dispatch;
  k->program = p;
  k->info = info;
  p->refs.retain_internal();
  return k;
}

cl_kernel CL_API_CALL CreateKernel(cl_program p, const char* name, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateKernel", errcode_ret);
  if (!p) return fail<_cl_kernel>(errcode_ret, CL_INVALID_PROGRAM);
  if (!name) return fail<_cl_kernel>(errcode_ret, CL_INVALID_VALUE);
  if (!is_built(p)) return fail<_cl_kernel>(errcode_ret, CL_INVALID_PROGRAM_EXECUTABLE);
  for (const KernelInfo& k : p->kernels)
    if (k.name == name) return succeed(errcode_ret, make_kernel(p, &k));
  return fail<_cl_kernel>(errcode_ret, CL_INVALID_KERNEL_NAME);
}

cl_int CL_API_CALL CreateKernelsInProgram(cl_program p, cl_uint num, cl_kernel* kernels,
                                          cl_uint* num_ret) {
  FAKE_INJECT("clCreateKernelsInProgram");
  if (!p) return CL_INVALID_PROGRAM;
  if (!is_built(p)) return CL_INVALID_PROGRAM_EXECUTABLE;
  const cl_uint n = static_cast<cl_uint>(p->kernels.size());
  if (kernels && num < n) return CL_INVALID_VALUE;
  if (kernels)
    for (cl_uint i = 0; i < n; ++i) kernels[i] = make_kernel(p, &p->kernels[i]);
  if (num_ret) *num_ret = n;
  return CL_SUCCESS;
}

cl_kernel CL_API_CALL CloneKernel(cl_kernel k, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCloneKernel", errcode_ret);
  if (!k) return fail<_cl_kernel>(errcode_ret, CL_INVALID_KERNEL);
  cl_kernel c = make_kernel(k->program, k->info);
  c->args_set.store(k->args_set.load());
  return succeed(errcode_ret, c);
}

cl_int CL_API_CALL RetainKernel(cl_kernel k) {
  if (!k || k->refs.api() == 0) return CL_INVALID_KERNEL;
  k->refs.retain_api();
  return CL_SUCCESS;
}

cl_int CL_API_CALL ReleaseKernel(cl_kernel k) {
  FAKE_INJECT("clReleaseKernel");
  if (!k || k->refs.api() == 0) return CL_INVALID_KERNEL;
  drop_kernel(k, k->refs.release_api());
  return CL_SUCCESS;
}

void mark_arg_set(cl_kernel k, cl_uint index) {
  if (index < 64) k->args_set.fetch_or(std::uint64_t{1} << index, std::memory_order_relaxed);
}

cl_int CL_API_CALL SetKernelArg(cl_kernel k, cl_uint index, size_t size, const void* value) {
  FAKE_INJECT("clSetKernelArg");
  if (!k) return CL_INVALID_KERNEL;
  if (index >= k->info->args.size()) return CL_INVALID_ARG_INDEX;
  const ArgInfo& a = k->info->args[index];
  if (a.address == CL_KERNEL_ARG_ADDRESS_LOCAL) {
    if (value) return CL_INVALID_ARG_VALUE;
    if (size == 0) return CL_INVALID_ARG_SIZE;
  } else if (a.is_pointer) {
    if (size != sizeof(cl_mem)) return CL_INVALID_ARG_SIZE;
  } else {
    if (size == 0) return CL_INVALID_ARG_SIZE;
    if (!value) return CL_INVALID_ARG_VALUE;
  }
  mark_arg_set(k, index);
  return CL_SUCCESS;
}

cl_int CL_API_CALL SetKernelArgSVMPointer(cl_kernel k, cl_uint index, const void*) {
  FAKE_INJECT("clSetKernelArgSVMPointer");
  if (!k) return CL_INVALID_KERNEL;
  if (index >= k->info->args.size()) return CL_INVALID_ARG_INDEX;
  if (!k->info->args[index].is_pointer) return CL_INVALID_ARG_VALUE;
  mark_arg_set(k, index);
  return CL_SUCCESS;
}

cl_int CL_API_CALL SetKernelExecInfo(cl_kernel k, cl_kernel_exec_info, size_t, const void*) {
  return k ? CL_SUCCESS : CL_INVALID_KERNEL;
}

cl_int CL_API_CALL GetKernelInfo(cl_kernel k, cl_kernel_info param, size_t size, void* out,
                                 size_t* size_ret) {
  FAKE_INJECT("clGetKernelInfo");
  if (!k) return CL_INVALID_KERNEL;
  switch (param) {
    case CL_KERNEL_FUNCTION_NAME: return info_string(k->info->name, size, out, size_ret);
    case CL_KERNEL_NUM_ARGS:
      return info_value<cl_uint>(static_cast<cl_uint>(k->info->args.size()), size, out, size_ret);
    case CL_KERNEL_REFERENCE_COUNT: return info_value<cl_uint>(k->refs.api(), size, out, size_ret);
    case CL_KERNEL_CONTEXT: return info_value(k->program->context, size, out, size_ret);
    case CL_KERNEL_PROGRAM: return info_value(k->program, size, out, size_ret);
    case CL_KERNEL_ATTRIBUTES: return info_string("", size, out, size_ret);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL GetKernelArgInfo(cl_kernel k, cl_uint index, cl_kernel_arg_info param,
                                    size_t size, void* out, size_t* size_ret) {
  FAKE_INJECT("clGetKernelArgInfo");
  if (!k) return CL_INVALID_KERNEL;
  if (index >= k->info->args.size()) return CL_INVALID_ARG_INDEX;
  const ArgInfo& a = k->info->args[index];
  switch (param) {
    case CL_KERNEL_ARG_ADDRESS_QUALIFIER: return info_value(a.address, size, out, size_ret);
    case CL_KERNEL_ARG_ACCESS_QUALIFIER:
      return info_value<cl_kernel_arg_access_qualifier>(CL_KERNEL_ARG_ACCESS_NONE, size, out,
                                                        size_ret);
    case CL_KERNEL_ARG_TYPE_NAME: return info_string(a.type_name, size, out, size_ret);
    case CL_KERNEL_ARG_TYPE_QUALIFIER:
      return info_value<cl_kernel_arg_type_qualifier>(CL_KERNEL_ARG_TYPE_NONE, size, out, size_ret);
    case CL_KERNEL_ARG_NAME: return info_string(a.name, size, out, size_ret);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL GetKernelWorkGroupInfo(cl_kernel k, cl_device_id d,
                                          cl_kernel_work_group_info param, size_t size, void* out,
                                          size_t* size_ret) {
  FAKE_INJECT("clGetKernelWorkGroupInfo");
  if (!k) return CL_INVALID_KERNEL;
  if (d && d != &g_device) return CL_INVALID_DEVICE;
  switch (param) {
    case CL_KERNEL_WORK_GROUP_SIZE: return info_value<size_t>(1024, size, out, size_ret);
    case CL_KERNEL_COMPILE_WORK_GROUP_SIZE: {
      const size_t v[3] = {0, 0, 0};
      return info_bytes(v, sizeof v, size, out, size_ret);
    }
    case CL_KERNEL_LOCAL_MEM_SIZE:
    case CL_KERNEL_PRIVATE_MEM_SIZE: return info_value<cl_ulong>(0, size, out, size_ret);
    case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
      return info_value<size_t>(32, size, out, size_ret);
    default: return CL_INVALID_VALUE;
  }
}

// ---- enqueue: kernels -------------------------------------------------------------------------
cl_int CL_API_CALL EnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint work_dim,
                                        const size_t* gwo, const size_t* gws, const size_t* lws,
                                        cl_uint num_wait, const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueNDRangeKernel");
  (void)gwo;
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (!k) return CL_INVALID_KERNEL;
  if (k->program->context != q->context) return CL_INVALID_CONTEXT;
  if (work_dim < 1 || work_dim > 3) return CL_INVALID_WORK_DIMENSION;
  if (!gws) return CL_INVALID_GLOBAL_WORK_SIZE;
  std::uint64_t items = 1;
  std::size_t group = 1;
  for (cl_uint d = 0; d < work_dim; ++d) {
    if (gws[d] == 0) return CL_INVALID_GLOBAL_WORK_SIZE;
    items *= gws[d];
    if (lws) {
      if (lws[d] == 0) return CL_INVALID_WORK_GROUP_SIZE;
      group *= lws[d];
    }
  }
  if (group > 1024) return CL_INVALID_WORK_GROUP_SIZE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  const std::size_t n = k->info->args.size();
  const std::uint64_t need = n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
  if ((k->args_set.load(std::memory_order_relaxed) & need) != need) return CL_INVALID_KERNEL_ARGS;
  return finish_command(q, CL_COMMAND_NDRANGE_KERNEL, kKernelBase + items, false, k->info, event);
}

cl_int CL_API_CALL EnqueueTask(cl_command_queue q, cl_kernel k, cl_uint num_wait,
                               const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueTask");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (!k) return CL_INVALID_KERNEL;
  if (k->program->context != q->context) return CL_INVALID_CONTEXT;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  const std::size_t n = k->info->args.size();
  const std::uint64_t need = n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
  if ((k->args_set.load(std::memory_order_relaxed) & need) != need) return CL_INVALID_KERNEL_ARGS;
  return finish_command(q, CL_COMMAND_TASK, kKernelBase + 1, false, k->info, event);
}

// ---- enqueue: transfers -----------------------------------------------------------------------
cl_int check_range(cl_mem m, std::size_t offset, std::size_t bytes) {
  if (!m) return CL_INVALID_MEM_OBJECT;
  if (offset > m->size || bytes > m->size - offset) return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

cl_int CL_API_CALL EnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool blocking,
                                     size_t offset, size_t bytes, void* ptr, cl_uint num_wait,
                                     const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueReadBuffer");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int rc = check_range(m, offset, bytes)) return rc;
  if (!ptr || bytes == 0) return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  std::memcpy(ptr, m->data + offset, bytes);
  return finish_command(q, CL_COMMAND_READ_BUFFER, kTransferBase + bytes, blocking, nullptr, event);
}

cl_int CL_API_CALL EnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool blocking,
                                      size_t offset, size_t bytes, const void* ptr,
                                      cl_uint num_wait, const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueWriteBuffer");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int rc = check_range(m, offset, bytes)) return rc;
  if (!ptr || bytes == 0) return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  std::memcpy(m->data + offset, ptr, bytes);
  return finish_command(q, CL_COMMAND_WRITE_BUFFER, kTransferBase + bytes, blocking, nullptr,
                        event);
}

cl_int CL_API_CALL EnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst,
                                     size_t src_offset, size_t dst_offset, size_t bytes,
                                     cl_uint num_wait, const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueCopyBuffer");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int rc = check_range(src, src_offset, bytes)) return rc;
  if (cl_int rc = check_range(dst, dst_offset, bytes)) return rc;
  if (bytes == 0) return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  std::memmove(dst->data + dst_offset, src->data + src_offset, bytes);
  return finish_command(q, CL_COMMAND_COPY_BUFFER, kTransferBase + bytes, false, nullptr, event);
}

cl_int CL_API_CALL EnqueueFillBuffer(cl_command_queue q, cl_mem m, const void* pattern,
                                     size_t pattern_size, size_t offset, size_t bytes,
                                     cl_uint num_wait, const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueFillBuffer");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int rc = check_range(m, offset, bytes)) return rc;
  if (!pattern || pattern_size == 0 || offset % pattern_size || bytes % pattern_size)
    return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  for (std::size_t i = 0; i < bytes; i += pattern_size)
    std::memcpy(m->data + offset + i, pattern, pattern_size);
  return finish_command(q, CL_COMMAND_FILL_BUFFER, kTransferBase + bytes, false, nullptr, event);
}

// Copies a 3-D region between two pitched byte layouts (the *Rect and image transfers).
void copy_rect(unsigned char* dst, const std::size_t dst_origin[3], std::size_t dst_row,
               std::size_t dst_slice, const unsigned char* src, const std::size_t src_origin[3],
               std::size_t src_row, std::size_t src_slice, const std::size_t region[3]) {
  for (std::size_t z = 0; z < region[2]; ++z)
    for (std::size_t y = 0; y < region[1]; ++y)
      std::memmove(dst + dst_origin[0] + (dst_origin[1] + y) * dst_row + (dst_origin[2] + z) * dst_slice,
                   src + src_origin[0] + (src_origin[1] + y) * src_row + (src_origin[2] + z) * src_slice,
                   region[0]);
}

bool rect_fits(cl_mem m, const std::size_t origin[3], const std::size_t region[3],
               std::size_t row, std::size_t slice) {
  if (region[0] == 0 || region[1] == 0 || region[2] == 0) return false;
  const std::size_t last = origin[0] + region[0] - 1 + (origin[1] + region[1] - 1) * row +
                           (origin[2] + region[2] - 1) * slice;
  return last < m->size;
}

cl_int CL_API_CALL EnqueueReadBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                         const size_t* buf_origin, const size_t* host_origin,
                                         const size_t* region, size_t buf_row, size_t buf_slice,
                                         size_t host_row, size_t host_slice, void* ptr,
                                         cl_uint num_wait, const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueReadBufferRect");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (!m) return CL_INVALID_MEM_OBJECT;
  if (!ptr || !buf_origin || !host_origin || !region) return CL_INVALID_VALUE;
  if (!buf_row) buf_row = region[0];
  if (!buf_slice) buf_slice = region[1] * buf_row;
  if (!host_row) host_row = region[0];
  if (!host_slice) host_slice = region[1] * host_row;
  if (!rect_fits(m, buf_origin, region, buf_row, buf_slice)) return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  copy_rect(static_cast<unsigned char*>(ptr), host_origin, host_row, host_slice, m->data,
            buf_origin, buf_row, buf_slice, region);
  return finish_command(q, CL_COMMAND_READ_BUFFER_RECT,
                        kTransferBase + region[0] * region[1] * region[2], blocking, nullptr, event);
}

cl_int CL_API_CALL EnqueueWriteBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                          const size_t* buf_origin, const size_t* host_origin,
                                          const size_t* region, size_t buf_row, size_t buf_slice,
                                          size_t host_row, size_t host_slice, const void* ptr,
                                          cl_uint num_wait, const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueWriteBufferRect");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (!m) return CL_INVALID_MEM_OBJECT;
  if (!ptr || !buf_origin || !host_origin || !region) return CL_INVALID_VALUE;
  if (!buf_row) buf_row = region[0];
  if (!buf_slice) buf_slice = region[1] * buf_row;
  if (!host_row) host_row = region[0];
  if (!host_slice) host_slice = region[1] * host_row;
  if (!rect_fits(m, buf_origin, region, buf_row, buf_slice)) return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  copy_rect(m->data, buf_origin, buf_row, buf_slice, static_cast<const unsigned char*>(ptr),
            host_origin, host_row, host_slice, region);
  return finish_command(q, CL_COMMAND_WRITE_BUFFER_RECT,
                        kTransferBase + region[0] * region[1] * region[2], blocking, nullptr, event);
}

cl_int CL_API_CALL EnqueueCopyBufferRect(cl_command_queue q, cl_mem src, cl_mem dst,
                                         const size_t* src_origin, const size_t* dst_origin,
                                         const size_t* region, size_t src_row, size_t src_slice,
                                         size_t dst_row, size_t dst_slice, cl_uint num_wait,
                                         const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueCopyBufferRect");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (!src || !dst) return CL_INVALID_MEM_OBJECT;
  if (!src_origin || !dst_origin || !region) return CL_INVALID_VALUE;
  if (!src_row) src_row = region[0];
  if (!src_slice) src_slice = region[1] * src_row;
  if (!dst_row) dst_row = region[0];
  if (!dst_slice) dst_slice = region[1] * dst_row;
  if (!rect_fits(src, src_origin, region, src_row, src_slice) ||
      !rect_fits(dst, dst_origin, region, dst_row, dst_slice))
    return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  copy_rect(dst->data, dst_origin, dst_row, dst_slice, src->data, src_origin, src_row, src_slice,
            region);
  return finish_command(q, CL_COMMAND_COPY_BUFFER_RECT,
                        kTransferBase + region[0] * region[1] * region[2], false, nullptr, event);
}

void* CL_API_CALL EnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, cl_map_flags,
                                   size_t offset, size_t bytes, cl_uint num_wait,
                                   const cl_event* wait, cl_event* event, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clEnqueueMapBuffer", errcode_ret);
  if (!q) return fail<void>(errcode_ret, CL_INVALID_COMMAND_QUEUE);
  if (cl_int rc = check_range(m, offset, bytes)) return fail<void>(errcode_ret, rc);
  if (cl_int rc = check_wait_list(num_wait, wait)) return fail<void>(errcode_ret, rc);
  m->map_count.fetch_add(1);
  const cl_int rc = finish_command(q, CL_COMMAND_MAP_BUFFER, kTransferBase + bytes, blocking,
                                   nullptr, event);
  if (errcode_ret) *errcode_ret = rc;
  return m->data + offset;
}

cl_int CL_API_CALL EnqueueUnmapMemObject(cl_command_queue q, cl_mem m, void* ptr,
                                         cl_uint num_wait, const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueUnmapMemObject");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (!m) return CL_INVALID_MEM_OBJECT;
  if (!ptr) return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  cl_uint cur = m->map_count.load();
  while (cur > 0 && !m->map_count.compare_exchange_weak(cur, cur - 1)) {
  }
  return finish_command(q, CL_COMMAND_UNMAP_MEM_OBJECT, kTransferBase, false, nullptr, event);
}

cl_int CL_API_CALL EnqueueMigrateMemObjects(cl_command_queue q, cl_uint num_mems,
                                            const cl_mem* mems, cl_mem_migration_flags,
                                            cl_uint num_wait, const cl_event* wait,
                                            cl_event* event) {
  FAKE_INJECT("clEnqueueMigrateMemObjects");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (num_mems == 0 || !mems) return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  return finish_command(q, CL_COMMAND_MIGRATE_MEM_OBJECTS, 0, false, nullptr, event);
}

// Images: origin/region in pixels; the host side is pitched like the image unless given.
cl_int image_transfer(cl_command_queue q, cl_mem m, bool to_host, cl_bool blocking,
                      const size_t* origin, const size_t* region, size_t row, size_t slice,
                      void* ptr, cl_uint num_wait, const cl_event* wait, cl_event* event,
                      cl_command_type type) {
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (!m || m->type == CL_MEM_OBJECT_BUFFER) return CL_INVALID_MEM_OBJECT;
  if (!ptr || !origin || !region) return CL_INVALID_VALUE;
  const std::size_t e = m->element_size;
  const std::size_t o[3] = {origin[0] * e, origin[1], origin[2]};
  const std::size_t r[3] = {region[0] * e, region[1], region[2]};
  if (!row) row = r[0];
  if (!slice) slice = row * r[1];
  if (!rect_fits(m, o, r, m->desc.image_row_pitch, m->desc.image_slice_pitch))
    return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  const std::size_t zero[3] = {0, 0, 0};
  if (to_host) {
    copy_rect(static_cast<unsigned char*>(ptr), zero, row, slice, m->data, o,
              m->desc.image_row_pitch, m->desc.image_slice_pitch, r);
  } else {
    copy_rect(m->data, o, m->desc.image_row_pitch, m->desc.image_slice_pitch,
              static_cast<const unsigned char*>(ptr), zero, row, slice, r);
  }
  return finish_command(q, type, kTransferBase + r[0] * r[1] * r[2], blocking, nullptr, event);
}

cl_int CL_API_CALL EnqueueReadImage(cl_command_queue q, cl_mem m, cl_bool blocking,
                                    const size_t* origin, const size_t* region, size_t row,
                                    size_t slice, void* ptr, cl_uint num_wait,
                                    const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueReadImage");
  return image_transfer(q, m, true, blocking, origin, region, row, slice, ptr, num_wait, wait,
                        event, CL_COMMAND_READ_IMAGE);
}

cl_int CL_API_CALL EnqueueWriteImage(cl_command_queue q, cl_mem m, cl_bool blocking,
                                     const size_t* origin, const size_t* region, size_t row,
                                     size_t slice, const void* ptr, cl_uint num_wait,
                                     const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueWriteImage");
  return image_transfer(q, m, false, blocking, origin, region, row, slice, const_cast<void*>(ptr),
                        num_wait, wait, event, CL_COMMAND_WRITE_IMAGE);
}

// ---- enqueue: synchronisation commands ----------------------------------------------------------
cl_int CL_API_CALL EnqueueMarkerWithWaitList(cl_command_queue q, cl_uint num_wait,
                                             const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueMarkerWithWaitList");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  return finish_command(q, CL_COMMAND_MARKER, 0, false, nullptr, event);
}

cl_int CL_API_CALL EnqueueBarrierWithWaitList(cl_command_queue q, cl_uint num_wait,
                                              const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueBarrierWithWaitList");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  return finish_command(q, CL_COMMAND_BARRIER, 0, false, nullptr, event);
}

cl_int CL_API_CALL EnqueueMarker(cl_command_queue q, cl_event* event) {
  FAKE_INJECT("clEnqueueMarker");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (!event) return CL_INVALID_VALUE;
  return finish_command(q, CL_COMMAND_MARKER, 0, false, nullptr, event);
}

cl_int CL_API_CALL EnqueueBarrier(cl_command_queue q) {
  FAKE_INJECT("clEnqueueBarrier");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  return finish_command(q, CL_COMMAND_BARRIER, 0, false, nullptr, nullptr);
}

cl_int CL_API_CALL EnqueueWaitForEvents(cl_command_queue q, cl_uint num, const cl_event* list) {
  FAKE_INJECT("clEnqueueWaitForEvents");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (num == 0 || !list) return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

// ---- extension lookup and the dispatch table ------------------------------------------------------
cl_int CL_API_CALL IcdGetPlatformIDs(cl_uint num_entries, cl_platform_id* platforms,
                                     cl_uint* num_platforms) {
  return GetPlatformIDs(num_entries, platforms, num_platforms);
}

// ocl-icd looks up clIcdGetPlatformIDsKHR and clGetPlatformInfo through here (our cl*
// symbols are not exported, so its dlsym fallback finds nothing).
void* extension_address(const char* name) {
  if (!name) return nullptr;
  if (std::strcmp(name, "clIcdGetPlatformIDsKHR") == 0)
    return reinterpret_cast<void*>(&IcdGetPlatformIDs);
  if (std::strcmp(name, "clGetPlatformInfo") == 0)
    return reinterpret_cast<void*>(&GetPlatformInfo);
  if (std::strcmp(name, "clImportMemoryARM") == 0) return reinterpret_cast<void*>(&ImportMemoryARM);
  // cl_intel_unified_shared_memory's argument setter (a USM pointer, like an SVM one).
  if (std::strcmp(name, "clSetKernelArgMemPointerINTEL") == 0)
    return reinterpret_cast<void*>(&SetKernelArgSVMPointer);
  return nullptr;
}

void* CL_API_CALL GetExtensionFunctionAddressForPlatform(cl_platform_id, const char* name) {
  return extension_address(name);
}

void* CL_API_CALL GetExtensionFunctionAddress(const char* name) { return extension_address(name); }

// A typed "not supported" answer for every slot we do not implement, so that an app calling
// an exotic entry point gets an error code instead of a jump to address 0.
template <typename F>
struct Unsupported {
  static F get() { return nullptr; }  // the slot's typedef is void* (API level disabled)
};

template <typename R, typename... A>
struct Unsupported<R(CL_API_CALL*)(A...)> {
  static R CL_API_CALL fn(A... args) {
    if constexpr (std::is_pointer_v<R>) {
      // Object-returning entry points take `cl_int* errcode_ret` last.
      set_errcode(args...);
      return nullptr;
    } else if constexpr (std::is_void_v<R>) {
      return;
    } else {
      return CL_INVALID_OPERATION;
    }
  }
  static void set_errcode() {}
  template <typename Last>
  static void set_errcode(Last last) {
    if constexpr (std::is_same_v<Last, cl_int*>) {
      if (last) *last = CL_INVALID_OPERATION;
    }
  }
  template <typename First, typename Second, typename... Rest>
  static void set_errcode(First, Second second, Rest... rest) {
    set_errcode(second, rest...);
  }
  static R(CL_API_CALL* get())(A...) { return &fn; }
};

void init_dispatch(cl_icd_dispatch& d) {
// The table has slots for deprecated entry points too; filling them is the point.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define X(name) d.name = Unsupported<decltype(d.name)>::get();
#include "dispatch_members.inc"
#undef X
#pragma GCC diagnostic pop
  d.clGetPlatformIDs = GetPlatformIDs;
  d.clGetPlatformInfo = GetPlatformInfo;
  d.clGetDeviceIDs = GetDeviceIDs;
  d.clGetDeviceInfo = GetDeviceInfo;
  d.clCreateContext = CreateContext;
  d.clCreateContextFromType = CreateContextFromType;
  d.clRetainContext = RetainContext;
  d.clReleaseContext = ReleaseContext;
  d.clGetContextInfo = GetContextInfo;
  d.clCreateCommandQueue = CreateCommandQueue;
  d.clRetainCommandQueue = RetainCommandQueue;
  d.clReleaseCommandQueue = ReleaseCommandQueue;
  d.clGetCommandQueueInfo = GetCommandQueueInfo;
  d.clCreateBuffer = CreateBuffer;
  d.clCreateImage2D = CreateImage2D;
  d.clCreateImage3D = CreateImage3D;
  d.clRetainMemObject = RetainMemObject;
  d.clReleaseMemObject = ReleaseMemObject;
  d.clGetSupportedImageFormats = GetSupportedImageFormats;
  d.clGetMemObjectInfo = GetMemObjectInfo;
  d.clGetImageInfo = GetImageInfo;
  d.clCreateSampler = CreateSampler;
  d.clRetainSampler = RetainSampler;
  d.clReleaseSampler = ReleaseSampler;
  d.clGetSamplerInfo = GetSamplerInfo;
  d.clCreateProgramWithSource = CreateProgramWithSource;
  d.clCreateProgramWithBinary = CreateProgramWithBinary;
  d.clRetainProgram = RetainProgram;
  d.clReleaseProgram = ReleaseProgram;
  d.clBuildProgram = BuildProgram;
  d.clUnloadCompiler = UnloadCompiler;
  d.clGetProgramInfo = GetProgramInfo;
  d.clGetProgramBuildInfo = GetProgramBuildInfo;
  d.clCreateKernel = CreateKernel;
  d.clCreateKernelsInProgram = CreateKernelsInProgram;
  d.clRetainKernel = RetainKernel;
  d.clReleaseKernel = ReleaseKernel;
  d.clSetKernelArg = SetKernelArg;
  d.clGetKernelInfo = GetKernelInfo;
  d.clGetKernelWorkGroupInfo = GetKernelWorkGroupInfo;
  d.clWaitForEvents = WaitForEvents;
  d.clGetEventInfo = GetEventInfo;
  d.clRetainEvent = RetainEvent;
  d.clReleaseEvent = ReleaseEvent;
  d.clGetEventProfilingInfo = GetEventProfilingInfo;
  d.clFlush = Flush;
  d.clFinish = Finish;
  d.clEnqueueReadBuffer = EnqueueReadBuffer;
  d.clEnqueueWriteBuffer = EnqueueWriteBuffer;
  d.clEnqueueCopyBuffer = EnqueueCopyBuffer;
  d.clEnqueueReadImage = EnqueueReadImage;
  d.clEnqueueWriteImage = EnqueueWriteImage;
  d.clEnqueueMapBuffer = EnqueueMapBuffer;
  d.clEnqueueUnmapMemObject = EnqueueUnmapMemObject;
  d.clEnqueueNDRangeKernel = EnqueueNDRangeKernel;
  d.clEnqueueTask = EnqueueTask;
  d.clEnqueueMarker = EnqueueMarker;
  d.clEnqueueWaitForEvents = EnqueueWaitForEvents;
  d.clEnqueueBarrier = EnqueueBarrier;
  d.clGetExtensionFunctionAddress = GetExtensionFunctionAddress;
  d.clSetEventCallback = SetEventCallback;
  d.clCreateSubBuffer = CreateSubBuffer;
  d.clSetMemObjectDestructorCallback = SetMemObjectDestructorCallback;
  d.clCreateUserEvent = CreateUserEvent;
  d.clSetUserEventStatus = SetUserEventStatus;
  d.clEnqueueReadBufferRect = EnqueueReadBufferRect;
  d.clEnqueueWriteBufferRect = EnqueueWriteBufferRect;
  d.clEnqueueCopyBufferRect = EnqueueCopyBufferRect;
  d.clRetainDevice = RetainDevice;
  d.clReleaseDevice = ReleaseDevice;
  d.clCreateImage = CreateImage;
  d.clCompileProgram = CompileProgram;
  d.clLinkProgram = LinkProgram;
  d.clUnloadPlatformCompiler = UnloadPlatformCompiler;
  d.clGetKernelArgInfo = GetKernelArgInfo;
  d.clEnqueueFillBuffer = EnqueueFillBuffer;
  d.clEnqueueMigrateMemObjects = EnqueueMigrateMemObjects;
  d.clEnqueueMarkerWithWaitList = EnqueueMarkerWithWaitList;
  d.clEnqueueBarrierWithWaitList = EnqueueBarrierWithWaitList;
  d.clGetExtensionFunctionAddressForPlatform = GetExtensionFunctionAddressForPlatform;
  d.clCreateCommandQueueWithProperties = CreateCommandQueueWithProperties;
  d.clSVMAlloc = SVMAlloc;
  d.clSVMFree = SVMFree;
  d.clCreateSamplerWithProperties = CreateSamplerWithProperties;
  d.clSetKernelArgSVMPointer = SetKernelArgSVMPointer;
  d.clSetKernelExecInfo = SetKernelExecInfo;
  d.clCloneKernel = CloneKernel;
  d.clGetDeviceAndHostTimer = GetDeviceAndHostTimer;
  d.clGetHostTimer = GetHostTimer;
  d.clCreateBufferWithProperties = CreateBufferWithProperties;
  d.clSetContextDestructorCallback = SetContextDestructorCallback;
}

// The loader's first call into us is one of the two exported functions; both make sure the
// table is filled first. A static initialiser would also do, but the loader may dlopen us
// from inside another library's constructor, so we do not rely on initialisation order.
void ensure_dispatch() {
  static const bool done = [] {
    init_dispatch(g_dispatch);
    return true;
  }();
  (void)done;
}

// FAKE_CL_REPORT: what is still alive when the library is unloaded. As a destructor of
// this library it runs after the process's atexit handlers (ld.so's own exit handler,
// which runs the library destructors, was registered before main), so it sees what an
// exit handler of a layer above (libclprof.so's) left behind. The configuration is
// leaked on purpose, so it is still there.
__attribute__((destructor)) void write_report() {
  const std::string& path = config().report_path;
  if (path.empty()) return;
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "clprof fake ICD: cannot write FAKE_CL_REPORT=\"%s\"\n", path.c_str());
    return;
  }
  std::fprintf(f, "live_events %llu\n",
               static_cast<unsigned long long>(g_live_events.load(std::memory_order_relaxed)));
  std::fclose(f);
}

}  // namespace
}  // namespace clprof::fake

// Event objects created and not yet destroyed, for tests (README.md, "Live event objects").
// Not an OpenCL entry point: tests find it with dlopen(RTLD_NOLOAD) + dlsym.
FAKE_EXPORT unsigned long long clprof_fake_live_events(void) {
  return clprof::fake::g_live_events.load(std::memory_order_relaxed);
}

FAKE_EXPORT unsigned long long clprof_fake_referenced_events(void) {
  return clprof::fake::g_referenced_events.load(std::memory_order_relaxed);
}

FAKE_EXPORT CL_API_ENTRY cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries,
                                                                    cl_platform_id* platforms,
                                                                    cl_uint* num_platforms) {
  clprof::fake::ensure_dispatch();
  return clprof::fake::IcdGetPlatformIDs(num_entries, platforms, num_platforms);
}

FAKE_EXPORT CL_API_ENTRY void* CL_API_CALL clGetExtensionFunctionAddress(const char* name) {
  clprof::fake::ensure_dispatch();
  return clprof::fake::extension_address(name);
}

// Exported as a vendor's own libOpenCL exports it (Mali's does), for apps that dlsym it
// from the library (Arm Compute Library does).
FAKE_EXPORT CL_API_ENTRY cl_mem CL_API_CALL clImportMemoryARM(cl_context c, cl_mem_flags flags,
                                                              const intptr_t* properties,
                                                              void* memory, size_t bytes,
                                                              cl_int* errcode_ret) {
  return clprof::fake::ImportMemoryARM(c, flags, properties, memory, bytes, errcode_ret);
}
