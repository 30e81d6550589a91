#include "analyses/advice/advice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <unordered_map>

#include "analyses/advice/commands.hpp"
#include "analyses/advice/util.hpp"

namespace clprof::analyses::advice {

const char* severity_name(Severity s) {
  return s == Severity::Warning ? "warning" : "info";
}

std::optional<Severity> parse_severity(const std::string& text) {
  if (text == "info") return Severity::Info;
  if (text == "warning") return Severity::Warning;
  return std::nullopt;
}

const std::vector<RuleInfo>& rule_catalog() {
  auto rule = [](std::string id, std::string summary, std::vector<Threshold> thresholds) {
    return RuleInfo{std::move(id), std::move(summary), std::move(thresholds), true, ""};
  };
  static const std::vector<RuleInfo> all = {
      rule("sync-after-each-launch", "clFinish / clWaitForEvents right after most launches",
           {{"sync-after-each-launch.min_launches", 10,
             "launches a thread needs before the rule looks"},
            {"sync-after-each-launch.ratio", 0.5,
             "share of launches followed by a sync (0-1) that fires it"}}),
      rule(
          "blocking-transfer", "blocking reads and writes between launches",
          {{"blocking-transfer.min_count", 3, "blocking transfers between launches that fire it"}}),
      rule("launch-bound", "kernels shorter than their launch overhead: many tiny launches",
           {{"launch-bound.min_launches", 100, "tiny launches that fire it"},
            {"launch-bound.ratio", 0.5, "share of the launches (0-1) that must be tiny"},
            {"launch-bound.tiny_ns", 20000,
             "a launch is tiny when its device time is below this (ns) and below its enqueue's "
             "host time"}}),
      rule("repeated-build", "the same source and options built more than once",
           {{"repeated-build.min_builds", 2, "builds of one source and options that fire it"}}),
      rule(
          "build-dominates", "program builds take a large share of the wall time",
          {{"build-dominates.share", 0.2, "share of the wall time (0-1) in builds that fires it"},
           {"build-dominates.min_ns", 1000000, "build time (ns) below which it never fires"},
           {"build-dominates.warning_ns", 1000000000,
            "build time (ns) from which it is a warning (below: info; a short run is all build)"}}),
      rule("default-local-size",
           "NULL local work size (the runtime picks one), worst with a prime global size",
           {{"default-local-size.min_prime", 64,
             "a prime global size at least this makes it a warning"}}),
      rule("device-idle", "gaps where the device idles between commands",
           {{"device-idle.min_gap_ns", 100000, "gaps shorter than this (ns) are not counted"},
            {"device-idle.share", 0.25,
             "idle share of the device's span (0-1) that fires it (info)"},
            {"device-idle.warning_share", 0.5, "idle share (0-1) that makes it a warning"}}),
      rule("api-errors",
           "OpenCL calls that returned an error, worst when the app went on enqueueing", {}),
      rule(
          "transfer-bound", "transfers comparable to kernel time, or many small transfers",
          {{"transfer-bound.ratio", 0.5, "transfer device time / kernel device time that fires it"},
           {"transfer-bound.small_bytes", 65536, "a transfer below this many bytes is small"},
           {"transfer-bound.min_small", 100, "small transfers that fire the many-small finding"}}),
      rule("gemm-padding",
           "CLBlast's indirect GEMM: pad / copy / transpose kernels' share of the GEMM time",
           {{"gemm-padding.share", 0.2,
             "helper kernels' share (0-1) of the GEMM time that fires it"}}),
      rule("queue-serialisation", "several queues of one device whose work never overlaps",
           {{"queue-serialisation.max_overlap", 0.01,
             "overlap share (0-1) of the smaller queues' busy time below which queues count as "
             "serial"}}),
      rule("local-size-not-multiple",
           "local size not a multiple of the kernel's preferred work-group multiple",
           {{"local-size-not-multiple.min_share", 0.1,
             "share (0-1) of the explicit-local-size launches' device time that makes it a "
             "warning"}}),
      rule("object-leak", "OpenCL objects the app never released, alive at exit",
           {{"object-leak.warning_count", 100,
             "objects of one kind alive at exit that make it a warning"},
            {"object-leak.warning_bytes", 268435456,
             "bytes of memory objects of one kind alive at exit that make it a warning"}}),
      rule("rank-imbalance", "the slow rank of a parallel job, and the kernel that makes it slow",
           {{"rank-imbalance.share", 0.1,
             "imbalance (slowest - mean) / slowest (0-1) that fires it (info)"},
            {"rank-imbalance.warning_share", 0.25, "imbalance (0-1) that makes it a warning"}}),
      rule("gemm-below-peak", "GEMMs far below the device's peak (--peak or --peak-from)",
           {{"gemm-below-peak.share", 0.25, "share (0-1) of the peak below which it fires"},
            {"gemm-below-peak.min_ns", 1000000,
             "GEMM device time (ns) below which it never fires"}}),
      rule("local-size-sweep",
           "a stored clprof replay --sweep local found a verified local size faster than the "
           "app's",
           {{"local-size-sweep.min_speedup", 1.1, "app median / best median that fires it (info)"},
            {"local-size-sweep.warning_speedup", 1.5,
             "app median / best median that makes it a warning"}}),
  };
  return all;
}

Thresholds::Thresholds() {
  for (const auto& r : rule_catalog())
    for (const auto& t : r.thresholds) values_[t.key] = t.value;
}

void Thresholds::set(const std::string& spec) {
  const size_t eq = spec.find('=');
  const std::string key = spec.substr(0, eq);
  const size_t dot = key.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot == 0 || dot + 1 == key.size())
    throw std::invalid_argument("'" + spec +
                                "': expected RULE.KEY=VALUE (clprof advise --list-rules)");
  const std::string rule = key.substr(0, dot);
  const RuleInfo* info = nullptr;
  for (const auto& r : rule_catalog())
    if (r.id == rule) info = &r;
  if (!info)
    throw std::invalid_argument("'" + spec + "': no rule '" + rule +
                                "' (clprof advise --list-rules)");
  if (!values_.count(key)) {
    std::string keys;
    for (const auto& t : info->thresholds)
      keys += (keys.empty() ? "" : ", ") + t.key.substr(dot + 1);
    throw std::invalid_argument(
        "'" + spec + "': rule " + rule + " has no threshold '" + key.substr(dot + 1) + "'" +
        (keys.empty() ? std::string(" (it has none)") : " (it has " + keys + ")"));
  }
  const std::string text = spec.substr(eq + 1);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v < 0)
    throw std::invalid_argument("'" + spec + "': expected a finite number >= 0, not '" + text +
                                "'");
  values_[key] = v;
}

double Thresholds::get(const std::string& rule, const std::string& key) const {
  return values_.at(rule + "." + key);
}

Report advise(const model::Run& run, const Thresholds& t,
              const std::vector<model::LocalSweep>& sweeps) {
  Commands c(t, t.peak_gflops().has_value());
  feed(run, c);
  return advise(run, c, t, sweeps);
}

Report advise(const model::Run& run, const Commands& c, const Thresholds& t,
              const std::vector<model::LocalSweep>& sweeps) {
  Report out;
  rules::sync(run, c, t, out);
  rules::launches(run, c, t, out);
  rules::builds(run, c, t, out);
  rules::device(run, c, t, out);
  rules::errors(run, c, t, out);
  rules::transfers(run, c, t, out);
  rules::gemm(run, c, t, out);
  rules::gemm_peak(run, c, t, out);
  rules::objects(run, c, t, out);
  rules::ranks(run, c, t, out);
  rules::local_size_sweep(run, c, sweeps, t, out);
  for (const auto& r : rule_catalog())
    if (!r.evaluated) out.not_evaluated.push_back({r.id, "needs " + r.missing});
  std::stable_sort(out.findings.begin(), out.findings.end(),
                   [](const Finding& a, const Finding& b) {
                     if (a.impact_ns.has_value() != b.impact_ns.has_value())
                       return a.impact_ns.has_value();
                     if (a.impact_ns && *a.impact_ns != *b.impact_ns)
                       return *a.impact_ns > *b.impact_ns;
                     return a.severity > b.severity;
                   });
  return out;
}

namespace util {

std::map<std::pair<uint32_t, uint64_t>, std::vector<HostEvent>> host_events(const model::Run& run,
                                                                            const Commands& c) {
  std::map<std::pair<uint32_t, uint64_t>, std::vector<HostEvent>> out;
  // Per interned thread first (a vector lookup per command), then keyed by (process, tid).
  // Sized first (16 bytes an event, no growth slack; the syncs, metadata, are added after).
  std::vector<std::vector<HostEvent>> per(c.threads.size());
  std::vector<size_t> n(c.threads.size(), 0);
  for (const auto& l : c.launches) n[l.thread] += l.host_begin != model::kNoTime;
  for (const auto& x : c.transfers) n[x.thread] += x.host_begin != model::kNoTime;
  for (size_t i = 0; i < per.size(); ++i) per[i].reserve(n[i]);
  for (size_t i = 0; i < c.launches.size(); ++i) {
    const auto& l = c.launches[i];
    if (l.host_begin != model::kNoTime)
      per[l.thread].push_back({HostEvent::Kind::Launch, static_cast<uint32_t>(i), l.host_begin});
  }
  for (size_t i = 0; i < c.transfers.size(); ++i) {
    const auto& x = c.transfers[i];
    if (x.host_begin != model::kNoTime)
      per[x.thread].push_back({HostEvent::Kind::Transfer, static_cast<uint32_t>(i), x.host_begin});
  }
  for (size_t i = 0; i < per.size(); ++i)
    if (!per[i].empty()) out[c.threads[i]] = std::move(per[i]);
  for (size_t i = 0; i < run.syncs.size(); ++i) {
    const auto& s = run.syncs[i];
    if (s.host_begin_ns != model::kNoTime)
      out[{s.process, s.tid}].push_back(
          {HostEvent::Kind::Sync, static_cast<uint32_t>(i), s.host_begin_ns});
  }
  for (auto& [key, v] : out)
    std::stable_sort(v.begin(), v.end(),
                     [](const HostEvent& a, const HostEvent& b) { return a.begin < b.begin; });
  return out;
}

std::vector<bool> first_launches(const Commands& c) {
  std::map<std::pair<uint32_t, uint32_t>, size_t> first;  // (process, name) -> index
  for (size_t i = 0; i < c.launches.size(); ++i) {
    const auto& l = c.launches[i];
    auto [it, fresh] = first.emplace(std::make_pair(c.process_of(l.thread), l.name), i);
    if (!fresh && l.host_begin < c.launches[it->second].host_begin) it->second = i;
  }
  std::vector<bool> out(c.launches.size(), false);
  for (const auto& [key, i] : first) out[i] = true;
  return out;
}

std::string range_name(const model::Run& run, uint64_t id) {
  if (id == 0) return "";
  for (const auto& r : run.ranges)
    if (r.id == id) return r.name;
  return "";
}

}  // namespace util

std::vector<const Finding*> new_findings(const Report& base, const Report& other) {
  std::vector<const Finding*> out;
  for (const auto& f : other.findings) {
    bool known = false;
    for (const auto& b : base.findings)
      known = known || (b.rule == f.rule && b.subjects == f.subjects);
    if (!known) out.push_back(&f);
  }
  return out;
}

}  // namespace clprof::analyses::advice
