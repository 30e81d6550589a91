#include "entry/blas_call.hpp"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "base/log.hpp"
#include "base/process_settings.hpp"
#include "base/real_opencl.hpp"
#include "clprof/trace_schema.hpp"
#include "entry/markers.hpp"
#include "output/record_format.hpp"
#include "recording/hook_scope.hpp"
#include "recording/objects.hpp"
#include "recording/record_sink.hpp"

namespace clprof::shim {

// The hook of each function (blas_hooks.cpp), by BlasId.
void* blas_hook_address(BlasId id);

namespace {

namespace tf = clprof::trace;

enum class Library : std::uint8_t { Clblast, Clblas };
enum class Routine : std::uint8_t { Gemm, GemmBatched, GemmStridedBatched };

struct Function {
  const char* symbol;
  const char* display;
  Library library;
  Routine routine;
  const char* precision;
};

constexpr Function kFunctions[] = {
#define CLPROF_BLAS_FUNCTION_ROW(ident, symbol, shape, T, library, routine, precision, display) \
  Function{symbol, display, Library::library, Routine::routine, #precision},
    CLPROF_BLAS_FUNCTIONS(CLPROF_BLAS_FUNCTION_ROW)
#undef CLPROF_BLAS_FUNCTION_ROW
};
static_assert(sizeof kFunctions / sizeof kFunctions[0] == kBlasCount, "one row per function");

const Function& function(BlasId id) {
  return kFunctions[static_cast<unsigned>(id)];
}

// The library's function per BlasId (nullptr: not looked up yet, or not found).
std::atomic<void*> g_real[kBlasCount];
std::atomic<bool> g_missing_logged[kBlasCount];

// Names of the loaded objects (the main program and vdso have none).
int collect_object(struct dl_phdr_info* info, size_t, void* out) {
  if (info->dlpi_name && info->dlpi_name[0])
    static_cast<std::vector<std::string>*>(out)->emplace_back(info->dlpi_name);
  return 0;
}

void* find_real(const char* symbol, const void* self) {
  void* f = real_dlsym(RTLD_NEXT, symbol);
  if (f && f != self) return f;
  // Not in the global scope after the shim (a library dlopen'ed with RTLD_LOCAL, whose own
  // C functions still reach our C++ hooks through their PLT): ask each loaded object. The
  // names are collected first: dlopen must not run inside dl_iterate_phdr's callback.
  std::vector<std::string> objects;
  dl_iterate_phdr(collect_object, &objects);
  for (const std::string& name : objects) {
    void* handle = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!handle) continue;
    f = real_dlsym(handle, symbol);
    dlclose(handle);
    if (f && f != self) return f;
  }
  return nullptr;
}

const char* layout_name(Library lib, int v) {
  if (lib == Library::Clblast) return v == 101 ? "row" : v == 102 ? "col" : "";
  return v == 0 ? "row" : v == 1 ? "col" : "";
}

const char* trans_name(Library lib, int v) {
  if (lib == Library::Clblast) v -= 111;
  return v == 0 ? "n" : v == 1 ? "t" : v == 2 ? "c" : "";
}

const char* routine_name(Routine r) {
  switch (r) {
    case Routine::Gemm:
      return "gemm";
    case Routine::GemmBatched:
      return "gemm_batched";
    case Routine::GemmStridedBatched:
      return "gemm_strided_batched";
  }
  return "";
}

std::uint64_t mem_id(cl_mem m) {
  if (!m) return 0;
  const MemInfo* info = mems().find(m);
  return info ? info->id : 0;
}

}  // namespace

void* real_blas(BlasId id) {
  const unsigned i = static_cast<unsigned>(id);
  if (void* f = g_real[i].load(std::memory_order_acquire)) return f;
  void* f = find_real(function(id).symbol, blas_hook_address(id));
  if (f) {
    void* expected = nullptr;
    // A racing thread (or blas_dlsym) may have stored one first: use that one.
    if (!g_real[i].compare_exchange_strong(expected, f, std::memory_order_acq_rel)) f = expected;
    return f;
  }
  if (!g_missing_logged[i].exchange(true))
    log_message(LogLevel::Warn, "clprof: %s called, but no loaded library defines it: returning %d",
                function(id).display, kBlasNotImplemented);
  return nullptr;
}

bool blas_dlsym(const char* name, void*& found) {
  // Cheap test first: dlsym is called for many names.
  if (!name || (name[0] != 'C' && name[0] != 'c' && name[0] != '_')) return false;
  for (unsigned i = 0; i < kBlasCount; ++i) {
    if (std::strcmp(name, kFunctions[i].symbol) != 0) continue;
    const auto id = static_cast<BlasId>(i);
    void* const self = blas_hook_address(id);
    if (!found) return true;
    if (found == self) {
      if (!real_blas(id)) found = nullptr;  // the hook alone: the library is not there
      return true;
    }
    void* expected = nullptr;
    g_real[i].compare_exchange_strong(expected, found, std::memory_order_acq_rel);
    found = self;
    return true;
  }
  return false;
}

BlasCallScope::BlasCallScope(BlasId id) : id_(id) {
  if (!recording_active()) return;
  state_ = &thread_state();
  outermost_ = state_->blas_depth++ == 0 && settings().hook_blas;
}

BlasCallScope::~BlasCallScope() {
  if (!state_) return;
  --state_->blas_depth;
  if (call_) state_->blas_call = 0;  // end() not reached (an exception went through)
}

void BlasCallScope::begin(const BlasCallFacts& f) {
  // A short HookScope: the record's clock, and none when the call comes from inside a
  // hook (nothing the shim calls does that). Not held across the real call.
  HookScope scope(HookScope::Timing::Timed);
  if (!scope.active()) return;
  const Function& fn = function(id_);
  ThreadState& t = scope.thread();
  call_ = next_range_id();
  JsonLine line(tf::range_begin::kTypeName);
  line.unum(tf::range_begin::id, call_)
      .unum(tf::range_begin::parent, t.ranges.top())
      .str(tf::range_begin::name, fn.display)
      .num(tf::range_begin::tid, t.tid)
      .num(tf::range_begin::host_ns, to_trace_ns(scope.begin_ns()))
      .begin_object(tf::range_begin::blas)
      .str(tf::blas::library, fn.library == Library::Clblast ? "clblast" : "clblas")
      .str(tf::blas::api, fn.display)
      .str(tf::blas::routine, routine_name(fn.routine))
      .str(tf::blas::precision, fn.precision)
      .str(tf::blas::layout, layout_name(fn.library, f.layout))
      .str(tf::blas::trans_a, trans_name(fn.library, f.trans_a))
      .str(tf::blas::trans_b, trans_name(fn.library, f.trans_b))
      .unum(tf::blas::m, f.m)
      .unum(tf::blas::n, f.n)
      .unum(tf::blas::k, f.k)
      .unum(tf::blas::batch, f.batch);
  if (f.has_alpha_beta) {
    line.real(tf::blas::alpha, f.alpha);
    if (f.complex) line.real(tf::blas::alpha_im, f.alpha_im);
    line.real(tf::blas::beta, f.beta);
    if (f.complex) line.real(tf::blas::beta_im, f.beta_im);
  }
  // Per matrix: mem, offset, ld, stride (the schema's order).
  const struct {
    std::string_view mem, offset, ld, stride;
    cl_mem buffer;
    std::uint64_t off, ld_value, stride_value;
  } matrices[] = {
      {tf::blas::a_mem, tf::blas::a_offset, tf::blas::a_ld, tf::blas::a_stride, f.a, f.a_offset,
       f.a_ld, f.a_stride},
      {tf::blas::b_mem, tf::blas::b_offset, tf::blas::b_ld, tf::blas::b_stride, f.b, f.b_offset,
       f.b_ld, f.b_stride},
      {tf::blas::c_mem, tf::blas::c_offset, tf::blas::c_ld, tf::blas::c_stride, f.c, f.c_offset,
       f.c_ld, f.c_stride},
  };
  for (const auto& x : matrices) {
    line.unum(x.mem, mem_id(x.buffer));
    if (f.has_offsets) line.unum(x.offset, x.off);
    line.unum(x.ld, x.ld_value);
    if (f.strided) line.unum(x.stride, x.stride_value);
  }
  if (f.temp) line.unum(tf::blas::temp_mem, mem_id(f.temp));
  std::vector<std::uint64_t> queues;
  for (unsigned i = 0; f.queues && i < f.n_queues; ++i) {
    const QueueInfo* q = f.queues[i] ? queue_info(f.queues[i]) : nullptr;
    queues.push_back(q ? q->id : 0);
  }
  line.unums(tf::blas::queue_ids, queues).end_object();
  emit_line(LineKind::RangeBegin, line.finish());
  state_->blas_call = call_;
}

void BlasCallScope::end(int status) {
  if (!call_) return;
  state_->blas_call = 0;
  const std::uint32_t id = call_;
  call_ = 0;
  HookScope scope(HookScope::Timing::Timed);
  if (!scope.active()) return;
  emit_line(LineKind::RangeEnd, JsonLine(tf::range_end::kTypeName)
                                    .unum(tf::range_end::id, id)
                                    .num(tf::range_end::tid, scope.thread().tid)
                                    .num(tf::range_end::host_ns, to_trace_ns(scope.begin_ns()))
                                    .num(tf::range_end::status, status)
                                    .finish());
}

}  // namespace clprof::shim
