#include "runtime/completion.hpp"

#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "base/real_opencl.hpp"

namespace clprof::shim {
namespace {

// How much of the next ring cell drain_ring prefetches: the cell's header, the record's
// fixed fields and its first four arguments (offsetof(OpRecord, args) + 4 ArgSnapshots).
constexpr std::size_t kPrefetchBytes = 640;
static_assert(2 * sizeof(std::size_t) + offsetof(OpRecord, args) + 4 * sizeof(ArgSnapshot) <=
              kPrefetchBytes);

// The first lines of a driver's event, which its query calls read (the ICD dispatch
// pointer) and lock: for writing, since taking the event's lock writes it.
constexpr std::size_t kEventPrefetchBytes = 256;

inline void prefetch_event(const void* event) {
  if (!event) return;
  for (std::size_t off = 0; off < kEventPrefetchBytes; off += 64)
    __builtin_prefetch(static_cast<const char*>(event) + off, 1);
}

}  // namespace

std::size_t RecordCompletion::drain_ring(DrainListener& listener) {
  std::size_t n = 0;
  while (n < ring_.capacity()) {
    OpRecord* r = ring_.front();
    if (!r) break;
    // The producers wrote the coming records on another core, and the driver's threads
    // wrote their events last: the record after next (its fixed fields and first four
    // arguments) and the next one's event arrive while this one is taken. The next
    // record was fetched one turn ago, so reading its event pointer does not wait.
    // Measured side by side with the next record's lines alone (enqueue_bench, 2026-11-29,
    // interleaved, 21-25 rounds): on PoCL the harvester's CPU per launch fell by 8-38 ns
    // and the added wall time by 80-160 ns in three runs, on the fake driver by 35 ns; in
    // the 4x loop (9 rounds) the harvester's by 14 ns, wall and process CPU within noise.
    ring_.prefetch_ahead(2, kPrefetchBytes);
    if (const OpRecord* next = ring_.peek_ahead(1)) prefetch_event(next->event);
    take(*r);
    handback_.free_front_cell(ring_);
    ++n;
    // Another thread may keep the ring from ever running dry: fork() must not wait.
    if ((n & (kSpaceBatch - 1)) == 0 && !listener.cells_freed()) break;
  }
  if (n) listener.cells_freed();
  handback_.count_drained(n);
  return n;
}

// The harvester owns a drained slot until it frees the cell: a command that is done by
// now (the usual case) is finished and written straight from its slot, and only one
// still running is copied (the slot goes back to the producers right after). Measured
// side by side against finishing from a private copy: ~8 ns per launch less on the fake
// driver (the copy was the harvester's largest single item once the slot was prefetched).
// Inlined into drain_ring: as a call per record it cost the harvester ~18 instructions
// per launch more (callgrind, enqueue benchmark).
__attribute__((always_inline)) inline void RecordCompletion::take(OpRecord& slot) {
  if (slot.kind == RecordKind::Line) {
    if (slot.line) {
      output_.write_line(slot.line_kind, slot.line);
      std::free(slot.line);
    }
    return;
  }
  Probe probe;
  const cl_int exec = slot.event ? execution_status(slot, probe) : CL_COMPLETE;
  OpRecord* const copy = exec > CL_COMPLETE ? pending_copies_.copy(slot) : nullptr;
  OpRecord& r = copy ? *copy : slot;
  r.seq = ++op_seq_;
  r.has_device_ns = false;
  r.host_begin_ns = clocks_.trace_ns_of_ticks(static_cast<std::uint64_t>(slot.host_begin_ns));
  r.host_end_ns = clocks_.trace_ns_of_ticks(static_cast<std::uint64_t>(slot.host_end_ns));
  if (!r.event) {
    output_.write_op(r);
  } else if (copy) {
    pending_.push_back(copy);
  } else if (exec <= CL_COMPLETE) {
    complete(r, exec, probe);
  } else {
    // Out of memory for a pending copy: keep the record, lose the device times.
    handback_.let_go(r, /*from_pending=*/false);
    output_.write_op(r);
  }
}

// CL_COMPLETE, a running state or an error. Asks for the END time first: a driver gives
// profiling times only for a complete command (CL_PROFILING_INFO_NOT_AVAILABLE while it
// runs or after an error, per the spec), so one query both tells a finished command and
// yields a time complete() needs anyway: one driver call less per command (and some
// drivers' status query does more than read: Intel's flushes the queue). A zero END is
// not trusted (a driver that answers early would give one): the status is asked then,
// as it is for every command still running.
inline int RecordCompletion::execution_status(const OpRecord& r, Probe& probe) {
  cl_ulong end_ns = 0;
  if (real().clGetEventProfilingInfo(static_cast<cl_event>(r.event), CL_PROFILING_COMMAND_END,
                                     sizeof end_ns, &end_ns, nullptr) == CL_SUCCESS &&
      end_ns != 0) {
    probe.have_end = true;
    probe.end_ns = end_ns;
    return CL_COMPLETE;
  }
  cl_int exec = CL_QUEUED;
  if (real().clGetEventInfo(static_cast<cl_event>(r.event), CL_EVENT_COMMAND_EXECUTION_STATUS,
                            sizeof exec, &exec, nullptr) != CL_SUCCESS) {
    exec = CL_INVALID_EVENT;
  }
  return exec;
}

// On an in-order queue nothing completes before the command ahead of it, so one running
// command ends the queue's poll.
void RecordCompletion::poll_pending() {
  blocked_queues_.clear();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    OpRecord* r = pending_[i];
    const bool blocked = r->in_order_queue &&
                         std::find(blocked_queues_.begin(), blocked_queues_.end(), r->queue_id) !=
                             blocked_queues_.end();
    Probe probe;
    const cl_int exec = blocked ? CL_QUEUED : execution_status(*r, probe);
    if (exec > CL_COMPLETE) {
      if (r->in_order_queue && !blocked) blocked_queues_.push_back(r->queue_id);
      pending_[kept++] = r;
      continue;
    }
    complete(*r, exec, probe, /*from_pending=*/true);
    pending_copies_.recycle(r);
  }
  pending_.resize(kept);
}

void RecordCompletion::complete(OpRecord& r, int exec, const Probe& probe, bool from_pending) {
  const RealTable& cl = real();
  auto ev = static_cast<cl_event>(r.event);
  static constexpr cl_profiling_info kWhat[4] = {
      CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START,
      CL_PROFILING_COMMAND_END};
  r.has_device_ns = true;
  for (int k = 0; k < 4; ++k) {
    if (k == 3 && probe.have_end) {  // asked already (execution_status)
      r.device_ns[3] = probe.end_ns;
      break;
    }
    cl_ulong t = 0;
    if (cl.clGetEventProfilingInfo(ev, kWhat[k], sizeof t, &t, nullptr) != CL_SUCCESS) {
      r.has_device_ns = false;
      break;
    }
    r.device_ns[k] = t;
  }
  r.status = exec < 0 ? OpStatus::Error : OpStatus::Complete;
  r.exec_status = exec;
  handback_.let_go(r, from_pending);
  if (r.has_device_ns && r.status == OpStatus::Complete && r.device_id != 0) {
    clocks_.add_bracket(r.device_id, r.host_begin_ns, r.host_end_ns, r.device_ns[0]);
  }
  output_.write_op(r);
}

std::uint64_t RecordCompletion::finish(DrainListener& listener, std::int64_t wait_ns,
                                       bool release_events) {
  clocks_.recalibrate();
  while (drain_ring(listener) == ring_.capacity()) {
  }
  // At least one poll: a command drained while running may have completed since.
  const std::int64_t deadline_ns = monotonic_now_ns() + wait_ns;
  for (;;) {
    poll_pending();
    drain_ring(listener);
    if (pending_.empty() || monotonic_now_ns() >= deadline_ns) break;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  std::uint64_t incomplete = 0;
  for (OpRecord* r : pending_) {
    // Still running at exit: written, never dropped. The reference is left to the
    // process's end (the driver may already be shutting down).
    r->status = OpStatus::Incomplete;
    r->has_device_ns = false;
    output_.write_op(*r);
    ++incomplete;
    pending_copies_.recycle(r);
  }
  pending_.clear();
  if (release_events) handback_.release_all();
  return incomplete;
}

}  // namespace clprof::shim
