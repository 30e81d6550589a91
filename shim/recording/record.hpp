// The fixed-size records that hooks fill on the app's threads and the background
// thread formats. Plain data: no OpenCL types, no allocation, no JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "clprof/trace_schema.hpp"

namespace clprof::shim {

inline constexpr unsigned kMaxRecordedArgs = 32;    // arguments beyond are summarised
inline constexpr unsigned kMaxRecordedRanges = 16;  // outermost ranges kept beyond

// The value enums of the trace schema (include/clprof/trace_schema.hpp).
using ArgKind = trace::ArgKind;
using TransferOp = trace::TransferOp;
using OpStatus = trace::Status;

// One kernel argument as set by clSetKernelArg(SVMPointer). 72 bytes, trivially copyable.
struct ArgSnapshot {
  ArgKind kind;
  std::uint32_t size;  // arg_size as passed (scalars: bytes kept = min(size, 64))
  union {
    std::uint8_t bytes[trace::kMaxScalarBytes];  // Scalar
    struct {
      std::uint64_t id;         // clprof id of the mem object / sampler (0 = NULL)
      std::uint64_t mem_bytes;  // size of the mem object
    } object;                   // Buffer, Image, Pipe, Sampler
    std::uint64_t svm_pointer;  // Svm
  };
};

enum class RecordKind : std::uint8_t { Launch, Transfer, Sync, Line };

// What a Line record is (for the "counts" of the end record).
enum class LineKind : std::uint8_t {
  Device,
  ClockSync,
  Queue,
  Program,
  Build,
  Kernel,
  RangeBegin,
  RangeEnd,
  Mark,
  Warning,
  Capture,  // CLPROF_CAPTURE (entry/capture_launch.cpp); counted in the end record when any
  Count
};

// A launch, transfer or sync (fixed fields), or a pre-formatted Line. Filled in place
// in a ring slot by the enqueuing thread; completed (device times, status) and
// formatted by the harvester thread, which owns it after publication.
struct OpRecord {
  RecordKind kind;
  LineKind line_kind;  // Line only
  TransferOp op;       // Transfer only
  OpStatus status;
  bool blocking;             // Transfer only
  bool has_gwo, has_lws;     // Launch only
  bool app_event;            // event is the app's (retained by us), not a private one
  bool in_order_queue;       // the queue runs commands in order (harvester polls less)
  std::uint8_t work_dim;     // Launch only (0..3)
  std::uint8_t n_ranges;     // entries used in ranges
  std::uint16_t n_args;      // entries used in args
  std::uint16_t total_args;  // kernel's argument count (may exceed kMaxRecordedArgs)
  std::int32_t tid;
  std::int32_t rc;
  std::int32_t exec_status;  // status == Error only
  std::uint32_t call;        // the BLAS call (range id) the command was made in, 0 = none
  std::uint64_t seq;         // set by the harvester, in ring order
  const char* api;           // static string, or nullptr for the kind's default
  const char* kernel_name;   // JSON string literal (record_sink_kernel_name), interned for
                             // the process; nullptr: the empty name
  std::uint64_t kernel_id, program_id, queue_id, context_id, device_id;
  std::uint64_t gwo[3], gws[3], lws[3];
  union {
    std::uint64_t bytes;    // Transfer only
    std::uint64_t capture;  // Launch only: its capture record's id (CLPROF_CAPTURE), 0 = none
  };
  // Host ticks (host_ticks_now) while in the ring; the harvester converts them to the
  // host clock relative to header.host_start_ns when it drains the record.
  std::int64_t host_begin_ns;
  std::int64_t host_end_ns;
  void* event;  // cl_event we hold one reference to, or nullptr
  char* line;   // Line only: malloc'd JSON object text, owned by the record
  std::uint32_t ranges[kMaxRecordedRanges];  // the first n_ranges are used
  // The harvester's (in the slot it drained, or in its copy of a command still running):
  // never set by a producer.
  bool has_device_ns;
  std::uint64_t device_ns[4];  // device clock: queued, submit, start, end
  // Last, so an enqueue writes few cache lines: the used part of args.
  ArgSnapshot args[kMaxRecordedArgs];
};

// Copies the used part of `from` into `to` (args beyond n_args are left as they are).
inline void copy_record(OpRecord& to, const OpRecord& from) {
  std::memcpy(static_cast<void*>(&to), &from, offsetof(OpRecord, ranges));
  std::memcpy(static_cast<void*>(to.ranges), from.ranges, sizeof(std::uint32_t) * from.n_ranges);
  std::memcpy(static_cast<void*>(to.args), from.args, sizeof(ArgSnapshot) * from.n_args);
}

// Copies of records whose command is still running (the harvester's, one owner). Each
// lives in storage for its used part only: the fixed fields and room for its n_args
// arguments rounded up to 4, 8, 16 or 32. A 3-argument launch takes ~600 bytes instead of
// sizeof(OpRecord) (~2.6 KB), and the harvester holds one per command the app has in
// flight (thousands on a busy queue). args[i] for i >= the room is never touched: every
// reader stops at n_args, which a copy keeps. Freed copies are kept per size for reuse
// (never given back to the allocator: their number is the most ever in flight).
class PendingCopies {
 public:
  // A copy of `from` (as copy_record), or nullptr when out of memory.
  OpRecord* copy(const OpRecord& from) {
    const unsigned c = size_class(from.n_args);
    OpRecord* r;
    if (!free_[c].empty()) {
      r = free_[c].back();
      free_[c].pop_back();
    } else {
      r = static_cast<OpRecord*>(std::malloc(bytes_for_args(kRoom[c])));
      if (!r) return nullptr;
    }
    copy_record(*r, from);
    return r;
  }
  // Takes back a copy made by copy() whose n_args has not changed.
  void recycle(OpRecord* r) { free_[size_class(r->n_args)].push_back(r); }
  // Storage for a record with room for n arguments (n <= kMaxRecordedArgs).
  static constexpr std::size_t bytes_for_args(unsigned n) {
    return offsetof(OpRecord, args) + n * sizeof(ArgSnapshot);
  }
  // The room a record with n_args arguments gets.
  static unsigned room_for(unsigned n_args) { return kRoom[size_class(n_args)]; }

  PendingCopies() = default;
  ~PendingCopies() {
    for (auto& list : free_)
      for (OpRecord* r : list) std::free(r);
  }
  PendingCopies(const PendingCopies&) = delete;
  PendingCopies& operator=(const PendingCopies&) = delete;

 private:
  static constexpr unsigned kRoom[4] = {4, 8, 16, kMaxRecordedArgs};
  static unsigned size_class(unsigned n_args) {
    return n_args <= 4 ? 0 : n_args <= 8 ? 1 : n_args <= 16 ? 2 : 3;
  }
  std::vector<OpRecord*> free_[4];
};

}  // namespace clprof::shim
