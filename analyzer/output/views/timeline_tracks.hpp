// The tracks of a timeline (Chrome Trace Event JSON): which (pid, tid) each one is, its
// name and place. One Chrome process per traced process; one thread per host thread (its
// real tid, decimal); then synthetic threads (tids from 2^30 up, above any Linux tid) for
// device tracks, a process's builds (the trace records no thread for them) and imported
// tracks without a thread.
//
// Device tracks have lanes: slices on one Chrome thread must nest, but commands of an
// out-of-order queue (or of one kernel name on several queues, --per-kernel) may overlap.
// A slice goes on the first lane whose slices all end at or before its start (each lane
// keeps the latest end it holds), so no lane ever holds two overlapping slices, whatever
// the order slices arrive in; in-order queues read in file order use one lane.
// Memory: per track a name and its lanes' ends (8 bytes each).
// Single-threaded.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model.hpp"

namespace clprof::output::views {

class TimelineTracks {
 public:
  // Sort order of a process's tracks: host threads, then these, in this order.
  enum class Group : int { HostThread = 0, Unknown = 1, Builds = 2, Imported = 3, Device = 10 };

  explicit TimelineTracks(const model::Run& run);

  // The Chrome pid of model process `process` (its pid when that is unique and fits).
  uint32_t pid(uint32_t process) const;
  // The Chrome tid of host thread `tid` of `process` (tid 0: "thread not recorded").
  uint32_t host_thread(uint32_t process, uint64_t tid);
  // A synthetic track named `name` (one per `key` and process).
  uint32_t named(uint32_t process, const std::string& key, const std::string& name, Group group);
  // A device track: the tid of the first lane of logical track `key` free over [begin, end],
  // which it marks busy up to `end`. `order` places it among the device tracks.
  uint32_t lane(uint32_t process, const std::string& key, const std::string& name, int64_t order,
                int64_t begin, int64_t end);
  // Forgets the lanes' contents of `process` (its slices were dropped), keeping the tids.
  void clear_lanes(uint32_t process);
  // Metadata events naming and ordering the processes and every track used, one JSON
  // object each.
  std::vector<std::string> metadata_events() const;
  size_t lanes_used() const;

 private:
  struct Track {
    std::string name;
    int group = 0;
    int64_t order = 0;
    std::vector<std::pair<uint32_t, int64_t>> lanes;  // tid, latest end (device tracks)
    uint32_t tid = 0;                                 // host and named tracks
  };
  uint32_t synthetic_tid() { return next_tid_++; }

  const model::Run& run_;
  std::vector<uint32_t> pids_;
  std::map<std::pair<uint32_t, std::string>, Track> tracks_;  // (process, key)
  uint32_t next_tid_ = 1u << 30;
};

}  // namespace clprof::output::views
