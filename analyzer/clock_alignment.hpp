// Device times on the host clock. A trace records, per device, a `clock_sync`: the offset
// with host_ns = device_ns + offset_ns (docs/trace-format.md), where host_ns is on the
// timeline of the device's process (ns since that process's trace start, as every
// model `host_*` field). This room is the one place that applies it; every output that
// puts device times beside host times (launches, timeline, export, --layers-from) asks here.
//
// A device without a sync has no aligned times: they are unknown (nullopt), never the raw
// device values. Importers' devices have no sync (their device clocks, if any, stay apart).
//
// Units: ns. Threads: a ClockAlignment is immutable once built; read it from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "clprof/clock_bracket.hpp"
#include "model.hpp"

namespace clprof::model {

// `device_ns` of `device` on its process's host timeline: device_ns + offset. nullopt when
// the device has no sync, the time is unknown (kNoTime) or the sum leaves int64.
std::optional<int64_t> device_to_host_ns(const model::Device& device, int64_t device_ns);

// The four device phases of a command, aligned (each nullopt when unknown).
struct AlignedTimes {
  std::optional<int64_t> queued_ns, submit_ns, start_ns, end_ns;
};

// The sync of every device of a run, by Device::id (copied: the run may go).
class ClockAlignment {
 public:
  explicit ClockAlignment(const model::Run& run);

  // True when `device` (a Device::id) has a clock sync.
  bool synced(uint32_t device) const;
  // The offset's uncertainty (+/- ns) of a synced device, nullopt otherwise.
  std::optional<int64_t> uncertainty_ns(uint32_t device) const;
  std::optional<int64_t> to_host(uint32_t device, int64_t device_ns) const;
  AlignedTimes times(const model::Launch& launch) const;
  AlignedTimes times(const model::Transfer& transfer) const;

 private:
  struct Sync {
    bool known = false;
    int64_t offset_ns = 0, uncertainty_ns = 0;
  };
  std::vector<Sync> by_id_;  // index Device::id - 1
};

// A device whose trace has no clock_sync (cut short before it: a killed app; an importer's
// input with device times): its offset estimated from its commands' enqueue calls (`bracket`,
// the enqueue_bracket estimate, include/clprof/clock_bracket.hpp), clock_method
// "estimated_from_commands". False (nothing set) when the device has an offset already or
// `bracket` saw no command. The views that put device times on the host clock say so, once
// per device they use (unsynced_device_warnings).
bool estimate_clock(model::Device& device, const clprof::BracketEstimator& bracket);
// The warning of unsynced_device_warnings for a device whose offset was estimated (clock_method
// "estimated_from_commands"), with why and the bound; "" for any other device.
std::string estimated_clock_warning(const model::Run& run, const model::Device& device);
// The enqueue_bracket of the commands of `run` (from index `first_launch`, `first_transfer`)
// on device `id` with a host enqueue call and a device queued time.
clprof::BracketEstimator commands_bracket(const model::Run& run, uint32_t id, size_t first_launch,
                                          size_t first_transfer);

// One warning per device in `used` (Device ids of commands with device times) that has no
// clock sync, or an importer's estimated one (estimated_clock_warning), ("device 1 (TestDev): no
// clock_sync relates its clock to the host's, ..."). Device 0 (unknown) is named as such.
std::vector<std::string> unsynced_device_warnings(const model::Run& run,
                                                  const std::set<uint32_t>& used);

// Collects the devices of commands with device times (one instance per thread, merged).
class DeviceUse {
 public:
  void note(uint32_t device, bool has_device_times) {
    if (has_device_times) used_.insert(device);
  }
  void merge(const DeviceUse& other) { used_.insert(other.used_.begin(), other.used_.end()); }
  const std::set<uint32_t>& used() const { return used_; }

 private:
  std::set<uint32_t> used_;
};

}  // namespace clprof::model
