// Internal to the clprof trace reader (analyzer/readers/clprof_trace*.cpp): the kinds of
// record a trace holds, the parsed-but-not-applied form of the metadata records
// (MetaBatch) and applying them, in file order, to the model::Run (TraceBuilder).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model.hpp"

namespace clprof::readers::detail {

// Range ids are made Run-wide by putting the process index above the trace-local id;
// trace-local range ids must be below 2^kRangeIdBits.
constexpr unsigned kRangeIdBits = 40;

// The "type" of a record. Launch and Transfer are the bulk records (fed to analyses);
// the others are metadata (applied to the Run); Ignored = unknown or not needed.
enum class RecordKind : uint8_t {
  Launch,
  Transfer,
  Device,
  ClockSync,
  Program,
  Build,
  Sync,
  RangeBegin,
  RangeEnd,
  Mark,
  Warning,
  End,
  Ignored
};

// True for Launch and Transfer.
inline bool is_bulk(RecordKind k) {
  return k == RecordKind::Launch || k == RecordKind::Transfer;
}

// The kind of a record from its "type" value; unknown types (those of later versions
// included) are Ignored. Pure, thread-safe.
RecordKind classify(std::string_view type);

// The Run-wide id of trace-local range id `local` (< 2^kRangeIdBits) of process index
// `process`; 0 (no range) stays 0. Pure.
inline uint64_t run_range_id(uint32_t process, uint64_t local) {
  return local == 0 ? 0 : ((uint64_t{process} + 1) << kRangeIdBits) | local;
}

// Metadata records as parsed, before trace-local ids are mapped (see TraceBuilder).
struct ClockSyncRecord {
  uint64_t device = 0;  // trace id
  int64_t offset_ns = 0;
  bool has_offset = false;
  std::string method;
};
struct BuildRecord {
  model::Build build;
  std::vector<uint64_t> devices;  // trace ids, mapped when applied
};
struct RangeEndRecord {
  uint64_t id = 0;  // Run-wide
  int64_t end_ns = model::kNoTime;
  bool open = false;
};
struct EndRecord {
  uint64_t incomplete = 0, dropped = 0;
};

// Metadata records parsed but not yet applied, in file order. Streaming threads fill one
// each (parsing in parallel); the calling thread applies them in order afterwards.
// Not thread-safe; owns its records.
struct MetaBatch {
  std::vector<std::pair<RecordKind, uint32_t>> order;       // kind, index in its vector
  std::vector<std::pair<uint64_t, model::Device>> devices;  // trace id, device
  std::vector<ClockSyncRecord> clock_syncs;
  std::vector<model::Program> programs;
  std::vector<BuildRecord> builds;
  std::vector<model::Sync> syncs;
  std::vector<model::Range> range_begins;
  std::vector<RangeEndRecord> range_ends;
  std::vector<model::Run::Mark> marks;
  std::vector<std::string> warnings;
  std::vector<EndRecord> ends;

  // Appends a default record of `kind` to `v` (the vector of that kind) and returns it;
  // the reference is valid until the next add to `v`.
  template <class V>
  typename V::value_type& add(RecordKind kind, V& v) {
    order.emplace_back(kind, static_cast<uint32_t>(v.size()));
    return v.emplace_back();
  }
  // Empties the batch, keeping capacity (the sequential reader reuses one per record).
  void clear() {
    order.clear();
    devices.clear();
    clock_syncs.clear();
    programs.clear();
    builds.clear();
    syncs.clear();
    range_begins.clear();
    range_ends.clear();
    marks.clear();
    warnings.clear();
    ends.clear();
  }
  // Removes the last record added (one whose parsing failed).
  void drop_last();
};

// Per-file state of the metadata: trace-local ids -> Run-wide objects. Used by one thread
// at a time (the calling thread); references `run`, which must outlive it. The device map
// may be read concurrently by parsing threads while nothing is applied.
struct TraceBuilder {
  TraceBuilder(model::Run& r, uint32_t p) : run(r), process(p) {}
  model::Run& run;
  uint32_t process;
  std::unordered_map<uint64_t, uint32_t> devices;  // trace device id -> Device::id
  std::unordered_map<uint64_t, size_t> ranges;     // open range: Run range id -> index
  std::unordered_map<uint64_t, size_t> programs;   // trace program id -> index
  bool end_seen = false;
  uint64_t records = 0;
  // Launches/transfers read before the device record they name: (index, trace id).
  std::vector<std::pair<size_t, uint64_t>> launch_fixups, transfer_fixups;

  // The Process of this file.
  model::Process& proc() { return run.processes[process]; }
  // Device::id of trace device id `local`, 0 if unknown.
  uint32_t device_or_zero(uint64_t local) const {
    auto it = devices.find(local);
    return it == devices.end() ? 0 : it->second;
  }
  // Applies `batch` in its order and empties it.
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
