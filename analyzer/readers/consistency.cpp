#include "readers/consistency.hpp"

#include <string>
#include <unordered_set>

namespace clprof::readers {

namespace {

struct Count {
  uint64_t n = 0;
  std::string example;
  void note(const std::string& what) {
    if (n++ == 0) example = what;
  }
};

bool inverted(int64_t begin, int64_t end) {
  return begin != model::kNoTime && end != model::kNoTime && end < begin;
}

std::string in_process(const model::Run& run, uint32_t process) {
  if (process < run.processes.size() && !run.processes[process].source.empty())
    return " in " + printable(run.processes[process].source);
  return "";
}

}  // namespace

void check_consistency(const model::Run& run, size_t first_process, size_t first_launch,
                       size_t first_transfer, Diagnostics& diagnostics) {
  Count host, device, orphans;
  for (size_t i = first_launch; i < run.launches.size(); ++i) {
    const auto& l = run.launches[i];
    const std::string what = "kernel '" + printable(l.name) + "' (seq " + std::to_string(l.seq) +
                             ")" + in_process(run, l.process);
    if (inverted(l.host_begin_ns, l.host_end_ns)) host.note(what);
    if (inverted(l.start_ns, l.end_ns)) device.note(what);
  }
  for (size_t i = first_transfer; i < run.transfers.size(); ++i) {
    const auto& t = run.transfers[i];
    const std::string what = "transfer '" + printable(t.api) + "'" + in_process(run, t.process);
    if (inverted(t.host_begin_ns, t.host_end_ns)) host.note(what);
    if (inverted(t.start_ns, t.end_ns)) device.note(what);
  }
  std::unordered_set<uint64_t> ids;
  ids.reserve(run.ranges.size());
  for (const auto& r : run.ranges) ids.insert(r.id);
  for (const auto& r : run.ranges) {
    if (r.process < first_process) continue;
    if (inverted(r.host_begin_ns, r.host_end_ns))
      host.note("range '" + printable(r.name) + "'" + in_process(run, r.process));
    if (r.parent != 0 && !ids.count(r.parent) && !run.folded_ranges.contains(r.parent))
      orphans.note("'" + printable(r.name) + "'" + in_process(run, r.process));
  }
  // The folded ranges (LoadOptions::fold_ranges) were counted as they were folded; their
  // parents are looked up here, each process's after it was read (ids hold the process).
  if (!run.folded_ranges.empty() && first_process == 0) {
    const auto& folded = run.folded_ranges;
    if (folded.inverted()) {
      if (host.n == 0)
        host.example = "range '" + printable(folded.inverted_example()) + "'" +
                       in_process(run, folded.inverted_example_process());
      host.n += folded.inverted();
    }
    folded.for_each([&](uint64_t id, uint64_t parent) {
      if (parent != 0 && !ids.count(parent) && !folded.contains(parent))
        orphans.note("'" + printable(*folded.name(id)) + "'" +
                     in_process(run, static_cast<uint32_t>((id >> trace::kRangeIdBits) - 1)));
    });
  }
  auto say = [&](const Count& c, const std::string& text) {
    if (c.n)
      diagnostics.warnings.push_back(std::to_string(c.n) + " " + text + " (first: " + c.example +
                                     ")");
  };
  say(host, "record(s) whose host end comes before their host begin: left untimed on the host");
  say(device,
      "record(s) whose device end comes before their device start: left without a device time");
  say(orphans, "range(s) whose parent range no input defines: shown as top-level ranges");
}

}  // namespace clprof::readers
