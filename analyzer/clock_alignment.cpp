#include "clock_alignment.hpp"

#include <algorithm>

namespace clprof::model {

namespace {

std::optional<int64_t> shifted(int64_t device_ns, int64_t offset_ns) {
  if (device_ns == model::kNoTime) return std::nullopt;
  int64_t host_ns = 0;
  // A garbage offset or timestamp must give "unknown", not a wrapped time.
  if (__builtin_add_overflow(device_ns, offset_ns, &host_ns) || host_ns == model::kNoTime)
    return std::nullopt;
  return host_ns;
}

}  // namespace

std::optional<int64_t> device_to_host_ns(const model::Device& device, int64_t device_ns) {
  if (!device.has_clock_offset) return std::nullopt;
  return shifted(device_ns, device.device_to_host_offset_ns);
}

ClockAlignment::ClockAlignment(const model::Run& run) {
  by_id_.resize(run.devices.size());
  for (const auto& d : run.devices) {
    if (d.id == 0 || d.id > by_id_.size() || !d.has_clock_offset) continue;
    const uint64_t u = std::min<uint64_t>(d.clock_uncertainty_ns, INT64_MAX);
    by_id_[d.id - 1] = Sync{true, d.device_to_host_offset_ns, static_cast<int64_t>(u)};
  }
}

bool ClockAlignment::synced(uint32_t device) const {
  return device != 0 && device <= by_id_.size() && by_id_[device - 1].known;
}

std::optional<int64_t> ClockAlignment::uncertainty_ns(uint32_t device) const {
  if (!synced(device)) return std::nullopt;
  return by_id_[device - 1].uncertainty_ns;
}

std::optional<int64_t> ClockAlignment::to_host(uint32_t device, int64_t device_ns) const {
  if (!synced(device)) return std::nullopt;
  return shifted(device_ns, by_id_[device - 1].offset_ns);
}

AlignedTimes ClockAlignment::times(const model::Launch& l) const {
  return {to_host(l.device, l.queued_ns), to_host(l.device, l.submit_ns),
          to_host(l.device, l.start_ns), to_host(l.device, l.end_ns)};
}

AlignedTimes ClockAlignment::times(const model::Transfer& t) const {
  return {to_host(t.device, t.queued_ns), to_host(t.device, t.submit_ns),
          to_host(t.device, t.start_ns), to_host(t.device, t.end_ns)};
}

bool estimate_clock(model::Device& d, const clprof::BracketEstimator& e) {
  if (d.has_clock_offset || !e.valid()) return false;
  d.has_clock_offset = true;
  d.device_to_host_offset_ns = e.offset_ns();
  d.clock_uncertainty_ns = static_cast<uint64_t>(e.uncertainty_ns());
  d.clock_method = "estimated_from_commands";
  return true;
}

std::string estimated_clock_warning(const model::Run& run, const model::Device& d) {
  if (!d.has_clock_offset || d.clock_method != "estimated_from_commands") return "";
  const bool cut = d.process < run.processes.size() && run.processes[d.process].truncated;
  return "device " + std::to_string(d.id) + (d.name.empty() ? "" : " (" + d.name + ")") + ": " +
         (cut ? "its trace ends (cut short) before its clock_sync"
              : "the input records no clock relation") +
         "; its clock is estimated from its commands' enqueue calls: host = device + offset, "
         "offset " +
         std::to_string(d.device_to_host_offset_ns) + " ns +/- " +
         std::to_string(d.clock_uncertainty_ns) + " ns";
}

clprof::BracketEstimator commands_bracket(const model::Run& run, uint32_t id, size_t first_launch,
                                          size_t first_transfer) {
  clprof::BracketEstimator e;
  const auto add = [&](uint32_t device, int64_t begin, int64_t end, int64_t queued) {
    if (device != id || begin == kNoTime || end == kNoTime || queued == kNoTime || queued < 0)
      return;
    e.add(begin, end, static_cast<uint64_t>(queued));
  };
  for (size_t i = first_launch; i < run.launches.size(); ++i) {
    const auto& l = run.launches[i];
    add(l.device, l.host_begin_ns, l.host_end_ns, l.queued_ns);
  }
  for (size_t i = first_transfer; i < run.transfers.size(); ++i) {
    const auto& t = run.transfers[i];
    add(t.device, t.host_begin_ns, t.host_end_ns, t.queued_ns);
  }
  return e;
}

std::vector<std::string> unsynced_device_warnings(const model::Run& run,
                                                  const std::set<uint32_t>& used) {
  std::vector<std::string> out;
  for (uint32_t id : used) {
    if (id == 0) {
      out.push_back(
          "commands on an unknown device (no device record): their host-aligned times are unknown");
      continue;
    }
    if (id > run.devices.size()) continue;
    const model::Device& d = run.devices[id - 1];
    if (const std::string e = estimated_clock_warning(run, d); !e.empty()) out.push_back(e);
    if (d.has_clock_offset) continue;
    out.push_back("device " + std::to_string(id) + (d.name.empty() ? "" : " (" + d.name + ")") +
                  ": no clock_sync relates its clock to the host's, so its commands' host-aligned "
                  "times are unknown");
  }
  return out;
}

}  // namespace clprof::model
