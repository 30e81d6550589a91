// The app-side range marker ABI (include/clprof/clprof.h looks these up with dlsym).
// A marker counts as activity: the first marker, like the first OpenCL call, starts
// the trace file.
#include <atomic>

#include "clprof/trace_format.hpp"
#include "hooks/hook_scope.hpp"
#include "output/record_format.hpp"
#include "runtime/handoff.hpp"

namespace clprof::shim {
namespace {
namespace tf = clprof::trace;
std::atomic<std::uint32_t> g_next_range_id{0};
}  // namespace
}  // namespace clprof::shim

using namespace clprof::shim;

CLPROF_EXPORT void clprof_shim_range_push_v1(const char* name) {
  HookScope scope(HookScope::Timing::Timed);
  if (!scope.active() || !name) return;
  ThreadState& t = scope.thread();
  const std::uint32_t id = g_next_range_id.fetch_add(1, std::memory_order_relaxed) + 1;
  const std::uint32_t parent = t.ranges.top();
  t.ranges.push(id);
  emit_line(LineKind::RangeBegin, JsonLine(tf::kind::kRangeBegin)
                                      .unum(tf::field::kId, id)
                                      .unum(tf::field::kParent, parent)
                                      .str(tf::field::kName, name)
                                      .num(tf::field::kTid, t.tid)
                                      .num(tf::field::kHostNs, to_trace_ns(scope.begin_ns()))
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
              JsonLine(tf::kind::kWarning)
                  .str(tf::field::kMessage,
                       "clprof_range_pop with no open range (tid " + std::to_string(t.tid) + ")")
                  .num(tf::field::kHostNs, now_ns)
                  .finish());
    return;
  }
  if (id == 0) return;  // nested deeper than the stack keeps: its begin had an id too
  emit_line(LineKind::RangeEnd, JsonLine(tf::kind::kRangeEnd)
                                    .unum(tf::field::kId, id)
                                    .num(tf::field::kTid, t.tid)
                                    .num(tf::field::kHostNs, now_ns)
                                    .finish());
}

CLPROF_EXPORT void clprof_shim_mark_v1(const char* name) {
  HookScope scope(HookScope::Timing::Timed);
  if (!scope.active() || !name) return;
  emit_line(LineKind::Mark, JsonLine(tf::kind::kMark)
                                .str(tf::field::kName, name)
                                .num(tf::field::kTid, scope.thread().tid)
                                .num(tf::field::kHostNs, to_trace_ns(scope.begin_ns()))
                                .finish());
}
