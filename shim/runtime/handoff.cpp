#include "recording/record_sink.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "output/object_format.hpp"
#include "output/record_format.hpp"
#include "recording/kernels.hpp"
#include "runtime/handback.hpp"
#include "runtime/process_trace.hpp"

namespace clprof::shim {

MpscRing<OpRecord>::Slot claim_record() {
  ProcessTrace* t = g_process_trace.load(std::memory_order_acquire);
  auto slot = t->ring().try_claim();
  if (__builtin_expect(slot.value != nullptr, 1)) {
    // Keep the harvester ahead of bursts: a nudge every half ring (ProcessTrace says why
    // half; amortised ~free).
    if ((slot.pos & (ProcessTrace::kNudgeEvery - 1)) == 0) t->harvester.wake();
    return slot;
  }
  // Full: the harvester is behind. Wait rather than drop (every launch once): block
  // until it has freed a batch of slots (it may be sharing this core).
  for (;;) {
    slot = t->harvester.wait_for_space(std::chrono::microseconds(200));
    if (slot.value) return slot;
  }
}

void publish_record(const MpscRing<OpRecord>::Slot& slot) {
  g_process_trace.load(std::memory_order_relaxed)->ring().publish(slot);
  if (slot.handback) release_on_app_thread(slot.handback);
}

void prefetch_claim() {
  if (ProcessTrace* t = g_process_trace.load(std::memory_order_acquire)) t->ring().prefetch_claim();
}

void emit_line(LineKind kind, const std::string& json) {
  if (!g_process_trace.load(std::memory_order_acquire)) return;
  char* copy = static_cast<char*>(std::malloc(json.size() + 1));
  if (!copy) return;
  std::memcpy(copy, json.c_str(), json.size() + 1);
  auto slot = claim_record();
  slot.value->kind = RecordKind::Line;
  slot.value->line_kind = kind;
  slot.value->line = copy;
  publish_record(slot);
}

void emit_object(const DeviceFacts& facts) {
  emit_line(LineKind::Device, format_device_line(facts));
}

void emit_object(const ClockSyncFacts& facts) {
  emit_line(LineKind::ClockSync, format_clock_sync_line(facts));
}

void emit_object(const QueueFacts& facts) {
  emit_line(LineKind::Queue, format_queue_line(facts));
}

void emit_object(const KernelFacts& facts) {
  emit_line(LineKind::Kernel, format_kernel_line(facts));
}

void emit_object(const KernelDeviceFacts& facts) {
  emit_line(LineKind::KernelDevice, format_kernel_device_line(facts));
}

const char* record_sink_kernel_name(const std::string& name) {
  return intern(json_quote(name));
}

void app_sync_point(std::uint64_t now_ticks) {
  if (ProcessTrace* t = g_process_trace.load(std::memory_order_acquire)) {
    t->harvester.app_sync_point(now_ticks);
  }
}

}  // namespace clprof::shim
