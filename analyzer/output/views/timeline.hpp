// `clprof timeline`: a run as Chrome Trace Event JSON (the JSON Object Format that
// chrome://tracing and the Perfetto UI open), written as it is read.
//
// Layout (docs/cli.md "timeline"): one Chrome process per traced process; a track per host
// thread with its OpenCL calls (enqueues, waits, blocking transfers), range markers and marks,
// which nest as the thread made them; a track for the process's program builds; a track per
// device queue (--per-kernel: per kernel name and per transfer kind) with its kernels and
// transfers placed on the host clock (clock_alignment.hpp), with lanes where commands
// overlap (views/timeline_tracks.hpp); --stages adds each command's queued and submitted phases
// on tracks of their own. A flow arrow (bind_id, flow_out on the enqueue, flow_in on the
// execution) links each enqueue to its execution. Importers' inputs give what they hold:
// their host events and ranges; durations without timestamps go into their range's args, and
// Caffe's per-layer times are laid end to end on a track that says so.
//
// Time: "ts"/"dur" in microseconds with three decimals (ns precision), relative to the run's
// origin (the earliest process start, less the largest clock-sync uncertainty, so that no
// aligned time is negative); otherData.ts_origin_ns gives it on the processes' host clock.
// Every event object starts with "ph" and "ts" (Perfetto's JSON tokenizer reads keys in order
// and refuses an array before "ts"); tids are decimal and below 2^32.
//
// Memory: the run's metadata, one track table, a 1 MiB write buffer and a window of 16384 device
// slices (~8 MiB): events are written as records arrive, except device slices, which wait in
// the window to be given lanes in start order; nothing else is sorted (the viewers sort).
// Single-threaded: feed it from one reading thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analyses/gemm/gemm_launch.hpp"
#include "analyses/ranges.hpp"
#include "clock_alignment.hpp"
#include "model.hpp"
#include "output/views/out_file.hpp"
#include "output/views/timeline_tracks.hpp"

namespace clprof::output::views {

struct TimelineOptions {
  bool per_kernel = false;  // device tracks per kernel name (and per transfer kind), not per queue
  bool stages = false;      // also the queued and submitted phases, as slices of their own
  std::string generator;    // otherData.generator ("clprof 0.1.0")
};

struct TimelineCounts {
  uint64_t launches = 0, transfers = 0;
  uint64_t device_slices = 0;  // commands placed on a device track
  uint64_t flows = 0;
  uint64_t untimed = 0;  // commands with no time at all to place them by
  uint64_t ranges_without_end = 0;
  std::set<uint32_t> unaligned_devices;  // devices of commands with device times but no sync
  std::set<uint32_t> aligned_devices;    // devices of commands placed on the host clock
};

class TimelineWriter {
 public:
  // `run` holds the metadata (and, for in-memory inputs, the launches) and must outlive the
  // writer; `rules` too.
  TimelineWriter(const model::Run& run, const std::vector<gemm::Rule>& rules,
                 TimelineOptions options, OutFile& out);
  ~TimelineWriter();
  // The header and every event that comes from the run's metadata.
  void begin();
  void add_launch(const model::Launch& launch);
  void add_transfer(const model::Transfer& transfer);
  // The tracks' names and order, the footer. Flushes everything to `out` (not finish()).
  void end();
  const TimelineCounts& counts() const { return counts_; }

 private:
  struct Args;
  struct DeviceTrack {
    std::string key, name;  // per process
    int64_t order = 0;
  };
  // A device slice waiting for its lane: text without its tid (inserted at tid_at).
  struct Pending {
    uint32_t process = 0;
    std::string key, name;
    int64_t track_order = 0, begin = 0, end = 0;
    uint64_t order = 0;  // arrival: ties in begin keep it
    std::string text;
    size_t tid_at = 0;
    static bool later(const Pending& a, const Pending& b) {
      return a.begin != b.begin ? a.begin > b.begin : a.order > b.order;
    }
  };
  // Where a command goes: its enqueue call on its thread, its execution on a device track.
  struct Placement {
    int64_t host_begin = 0, host_end = 0;  // relative to the origin
    bool on_host = false;
    model::AlignedTimes at;
    bool on_device = false;
    uint64_t flow = 0;  // bind_id linking the two, 0: none
  };
  template <typename Command>
  Placement place(const Command& command, bool device_times);
  int64_t ts(uint32_t process, int64_t host_ns) const;  // relative to the origin; kNoTime: unknown
  std::string slice_text(uint32_t process, uint32_t tid, int64_t begin_ns, int64_t end_ns,
                         const std::string& name, std::string_view cat, const Args& args,
                         uint64_t flow_out, uint64_t flow_in, size_t* tid_at) const;
  void slice(uint32_t process, uint32_t tid, int64_t begin_ns, int64_t end_ns,
             const std::string& name, std::string_view cat, const Args& args, uint64_t flow_out,
             uint64_t flow_in);
  // Device slices go through a window of kWindow slices ordered by start, so that lanes are
  // given in start order (fewest lanes) however the trace's records are ordered.
  void device_slice(uint32_t process, const DeviceTrack& track, const char* stage, int64_t begin_ns,
                    int64_t end_ns, const std::string& name, std::string_view cat, const Args& args,
                    uint64_t flow_in);
  void stage_slices(uint32_t process, const DeviceTrack& track, const model::AlignedTimes& at,
                    uint64_t seq, const std::string& name);
  void release_one();
  void release_all();
  void event(const std::string& text);
  void flush();
  // Once per process, before its first launch or transfer: where its records begin. A second
  // delivery of that same first record means the reader reads the file's records again:
  // what was written since is dropped.
  void note_bulk(uint32_t process, bool launch, uint64_t seq);
  int64_t order_of(const std::string& key);
  std::string queue_name(uint32_t process, uint64_t queue, const std::string& device) const;
  void write_ranges();
  void write_host_metadata();
  void write_layer_timings();
  std::string layer(const std::vector<uint64_t>& ranges) const;

  const model::Run& run_;
  TimelineOptions options_;
  OutFile& out_;
  model::ClockAlignment clocks_;
  analyses::RangeIndex ranges_;
  gemm::LaunchDecoder gemm_;
  TimelineTracks tracks_;
  int64_t origin_ns_ = 0;
  std::map<std::pair<uint32_t, uint64_t>, const std::string*> program_options_;
  std::set<std::pair<uint32_t, uint64_t>> out_of_order_;   // (process, queue)
  std::unordered_map<std::string, int64_t> kernel_order_;  // --per-kernel tracks: first seen first
  // Launches an importer gives without any timestamp, by innermost range: listed in its args.
  std::unordered_map<uint64_t, std::vector<const model::Launch*>> untimed_by_range_;
  std::vector<Pending> pending_;  // a heap by start
  uint64_t order_ = 0;
  std::string buffer_;
  bool first_event_ = true;
  TimelineCounts counts_;
  struct Restart {
    bool launch = false;
    uint64_t seq = 0;
    uint64_t position = 0;
    bool first_event = true;
    TimelineCounts counts;
  };
  std::map<uint32_t, Restart> restarts_;  // per process
};

}  // namespace clprof::output::views
