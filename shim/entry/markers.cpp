// The app-side range marker ABI (include/clprof/clprof.h looks these up with dlsym).
// A marker counts as activity: the first marker, like the first OpenCL call, starts
// the trace file.
#include <atomic>

#include "clprof/trace_schema.hpp"
#include "entry/markers.hpp"
#include "output/record_format.hpp"
#include "recording/hook_scope.hpp"
#include "recording/record_sink.hpp"

namespace clprof::shim {
namespace {
namespace tf = clprof::trace;
std::atomic<std::uint32_t> g_next_range_id{0};
}  // namespace

std::uint32_t next_range_id() {
  return g_next_range_id.fetch_add(1, std::memory_order_relaxed) + 1;
}
}  // namespace clprof::shim

using namespace clprof::shim;

CLPROF_EXPORT void clprof_shim_range_push_v1(const char* name) {
  HookScope scope(HookScope::Timing::Timed);
  if (!scope.active() || !name) return;
  ThreadState& t = scope.thread();
  const std::uint32_t id = next_range_id();
  const std::uint32_t parent = t.ranges.top();
  t.ranges.push(id);
  emit_line(LineKind::RangeBegin, JsonLine(tf::range_begin::kTypeName)
                                      .unum(tf::range_begin::id, id)
                                      .unum(tf::range_begin::parent, parent)
                                      .str(tf::range_begin::name, name)
                                      .num(tf::range_begin::tid, t.tid)
                                      .num(tf::range_begin::host_ns, to_trace_ns(scope.begin_ns()))
                                      .finish());
}

CLPROF_EXPORT void clprof_shim_range_pop_v1(void) {
  HookScope scope(HookScope::Timing::Timed);
  if (!scope.active()) return;
  ThreadState& t = scope.thread();
  bool was_open = false;
  const std::uint32_t id = t.ranges.pop(was_open);
  const std::int64_t now_ns = to_trace_ns(scope.begin_ns());
  if (!was_open) {
    emit_line(LineKind::Warning,
              JsonLine(tf::warning::kTypeName)
                  .str(tf::warning::message,
                       "clprof_range_pop with no open range (tid " + std::to_string(t.tid) + ")")
                  .num(tf::warning::host_ns, now_ns)
                  .finish());
    return;
  }
  if (id == 0) return;  // nested deeper than the stack keeps: its begin had an id too
  emit_line(LineKind::RangeEnd, JsonLine(tf::range_end::kTypeName)
                                    .unum(tf::range_end::id, id)
                                    .num(tf::range_end::tid, t.tid)
                                    .num(tf::range_end::host_ns, now_ns)
                                    .finish());
}

CLPROF_EXPORT void clprof_shim_mark_v1(const char* name) {
  HookScope scope(HookScope::Timing::Timed);
  if (!scope.active() || !name) return;
  emit_line(LineKind::Mark, JsonLine(tf::mark::kTypeName)
                                .str(tf::mark::name, name)
                                .num(tf::mark::tid, scope.thread().tid)
                                .num(tf::mark::host_ns, to_trace_ns(scope.begin_ns()))
                                .finish());
}
