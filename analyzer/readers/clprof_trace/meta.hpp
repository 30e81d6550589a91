// Internal to the clprof trace reader (analyzer/readers/clprof_trace/): the
// parsed-but-not-applied form of the metadata records (MetaBatch: everything but launches
// and transfers) and applying them, in file order, to the model::Run (TraceBuilder).
#pragma once

#include <functional>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clprof/clock_bracket.hpp"
#include "clprof/trace_schema.hpp"
#include "model.hpp"
#include "readers/clprof_trace/problems.hpp"

namespace clprof::readers::detail {

using trace::RecordType;

// Range ids are made Run-wide by putting the process index above the trace-local id;
// trace-local range ids are below 2^kRangeIdBits (the schema's RangeId type).
constexpr unsigned kRangeIdBits = trace::kRangeIdBits;

// Launch and Transfer are the bulk records (fed to analyses); the others are metadata
// (applied to the Run).
inline bool is_bulk(RecordType t) {
  return t == RecordType::Launch || t == RecordType::Transfer;
}

// The Run-wide id of trace-local range id `local` (< 2^kRangeIdBits) of process index
// `process`; 0 (no range) stays 0. Pure.
inline uint64_t run_range_id(uint32_t process, uint64_t local) {
  return local == 0 ? 0 : ((uint64_t{process} + 1) << kRangeIdBits) | local;
}

// The message of a range_begin whose id is open already (the record is skipped).
std::string range_open_already(uint64_t run_id);

// Metadata records as parsed, before trace-local ids are mapped (see TraceBuilder).
struct ClockSyncRecord {
  uint64_t device = 0;  // trace id
  int64_t offset_ns = 0;
  uint64_t uncertainty_ns = 0;
  std::string method;
};
struct QueueRecord {
  model::Queue queue;
  uint64_t device = 0;  // trace id, mapped when applied
};
struct BuildRecord {
  model::Build build;
  std::vector<uint64_t> devices;  // trace ids, mapped when applied
};
struct RangeEndRecord {
  uint64_t id = 0;  // Run-wide
  int64_t end_ns = model::kNoTime;
  bool open = false;
  std::optional<int32_t> status;  // a BLAS call's
};
struct KernelDeviceRecord {
  model::KernelDevice facts;
  uint64_t device = 0;  // trace id, mapped when applied
};
struct EndRecord {
  int64_t host_ns = model::kNoTime;
  std::vector<std::pair<std::string, uint64_t>> counts;
  std::optional<std::vector<std::pair<std::string, uint64_t>>> live;
  uint64_t incomplete = 0, dropped = 0;
};

// Metadata records parsed but not yet applied, in file order. Streaming threads fill one
// each (parsing in parallel); the calling thread applies them in order afterwards.
// Not thread-safe; owns its records.
struct MetaBatch {
  struct Entry {
    RecordType type;
    bool blas = false;    // a range_begin of a BLAS call: index is in blas_calls
    uint32_t index;       // in the vector of its type
    uint64_t offset;      // of the record in the file (for messages)
    bool folded = false;  // a range record folded by its reading thread: not applied
  };
  std::vector<Entry> order;
  std::vector<std::pair<uint64_t, model::Device>> devices;  // trace id, device
  std::vector<ClockSyncRecord> clock_syncs;
  std::vector<QueueRecord> queues;
  std::vector<model::Program> programs;
  std::vector<BuildRecord> builds;
  std::vector<model::Kernel> kernels;
  std::vector<KernelDeviceRecord> kernel_devices;
  std::vector<model::Sync> syncs;
  std::vector<model::Range> range_begins;
  std::vector<model::BlasCall> blas_calls;  // range_begin records with a "blas" object
  std::vector<RangeEndRecord> range_ends;
  std::vector<model::Run::Mark> marks;
  std::vector<model::ShimWarning> warnings;
  std::vector<model::Capture> captures;
  std::vector<EndRecord> ends;

  // Appends a default record of `type` to `v` (the vector of that type) and returns it;
  // the reference is valid until the next add to `v`. Its offset is set afterwards
  // (set_last_offset) by whoever knows where the record was.
  template <class V>
  typename V::value_type& add(RecordType type, V& v) {
    order.push_back(Entry{type, false, static_cast<uint32_t>(v.size()), 0, false});
    return v.emplace_back();
  }
  model::BlasCall& add_blas_call() {
    order.push_back(
        Entry{RecordType::RangeBegin, true, static_cast<uint32_t>(blas_calls.size()), 0, false});
    return blas_calls.emplace_back();
  }
  void set_last_offset(uint64_t offset) { order.back().offset = offset; }
  // Empties the batch, keeping capacity (the sequential reader reuses one per record).
  void clear();
  // Removes the last record added (one whose parsing failed, or that is skipped).
  void drop_last();
  // Removes the folded entries and the range records behind them, renumbering the rest;
  // `moved(old_order_index, new_order_index)` is called for every range_begin kept.
  void remove_folded(const std::function<void(size_t, size_t)>& moved);
};

// Per-file state of the metadata: trace-local ids -> Run-wide objects. Used by one thread
// at a time (the calling thread); references `run` and `problems`, which must outlive it.
// The device map may be read concurrently by parsing threads while nothing is applied.
using ClockBrackets = std::unordered_map<uint32_t, clprof::BracketEstimator>;

struct TraceBuilder {
  TraceBuilder(model::Run& r, uint32_t p, Problems& pr) : run(r), process(p), problems(pr) {}
  model::Run& run;
  uint32_t process;
  Problems& problems;  // a range_end of no open range is skipped and counted here
  std::unordered_map<uint64_t, uint32_t> devices;  // trace device id -> Device::id
  std::unordered_map<uint64_t, size_t> ranges;     // open range: Run range id -> index
  std::unordered_map<uint64_t, size_t> blas_open;  // open BLAS call: Run range id -> index
  std::unordered_map<uint64_t, size_t> programs;   // trace program id -> index
  bool end_seen = false;
  // Per Device::id: the enqueue_bracket estimate over the commands read (used when the trace
  // was cut short before its clock_sync records: warn_if_truncated).
  ClockBrackets clock_brackets;
  // Launches/transfers read before the device record they name: (index, trace id).
  std::vector<std::pair<size_t, uint64_t>> launch_fixups, transfer_fixups;

  // The Process of this file.
  model::Process& proc() { return run.processes[process]; }
  // Device::id of trace device id `local`, 0 if unknown (0: no device).
  uint32_t device_or_zero(uint64_t local) const {
    if (local == 0) return 0;
    auto it = devices.find(local);
    return it == devices.end() ? 0 : it->second;
  }
  // Applies `batch` in its order and empties it.
  void apply(MetaBatch& batch);

  // Room for `extra` more elements, growing geometrically (an exact reserve per small
  // batch would copy the vector every time).
  template <class V>
  static void reserve_more(V& v, size_t extra) {
    if (v.size() + extra > v.capacity()) v.reserve(std::max(v.size() + extra, 2 * v.capacity()));
  }

  // Adds device `d` under trace id `local`, or refreshes the known one of that id.
  void apply_device(uint64_t local, model::Device d);
  // Sets the device of the launches/transfers read before their device record (those
  // whose device stays unknown get 0), then forgets them.
  void finish();
};

}  // namespace clprof::readers::detail
