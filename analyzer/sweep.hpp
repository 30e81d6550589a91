// A stored `clprof replay --sweep local` (TRACE.capture/ID/sweep.json, docs/replay.md): the
// local sizes one captured launch was timed with on a device, fastest first. The replay
// writes it (replay/replay.hpp store_sweep), readers/sweeps.hpp reads it back for
// `clprof advise` (rule local-size-sweep, analyses/advice). Plain data beside the model.
// Units: ns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clprof::model {

struct SweepCandidate {
  std::optional<std::vector<uint64_t>> lws;  // nullopt: NULL (the runtime's choice)
  int64_t median_ns = 0, min_ns = 0;         // over the sweep's `repeat` runs
  std::optional<bool> verified;              // nullopt: nothing to compare with
  bool app = false;                          // the app's own local size
};

struct LocalSweep {
  std::string file;      // where it was read from (for messages)
  uint32_t process = 0;  // index into Run::processes
  uint64_t capture = 0;  // the Capture::id it sweeps, in that process
  std::string kernel;
  std::string device;  // the replay's device, "NAME (PLATFORM, TYPE)"
  uint64_t repeat = 0;
  std::vector<SweepCandidate> candidates;  // fastest first
};

}  // namespace clprof::model
