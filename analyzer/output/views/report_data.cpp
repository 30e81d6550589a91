#include "output/views/report_data.hpp"
#include "analyses/stats.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "intern.hpp"

namespace clprof::output::report {

bool QueueSpans::LaneKey::operator<(const LaneKey& o) const {
  return std::tie(process, device, queue) < std::tie(o.process, o.device, o.queue);
}

uint32_t QueueSpans::name_id(const std::string& name) {
  return intern(name, name_ids_, names_);
}

uint32_t QueueSpans::lane_id(const LaneKey& key) {
  return intern(key, lane_ids_, lanes_);
}

void QueueSpans::add(uint32_t process, uint32_t device, uint64_t queue, int64_t start, int64_t end,
                     const std::string& name) {
  if (start == model::kNoTime || end == model::kNoTime || end < start) return;
  if (spans_.size() >= kMaxTimelineSpans) {
    ++dropped_;
    return;
  }
  spans_.push_back(Span{start, end, name_id(name), lane_id(LaneKey{process, device, queue})});
}

void QueueSpans::add_launch(const model::Launch& l) {
  add(l.process, l.device, l.queue_id, l.start_ns, l.end_ns, l.name);
}

void QueueSpans::add_transfer(const model::Transfer& t) {
  add(t.process, t.device, t.queue_id, t.start_ns, t.end_ns, "transfer: " + t.op);
}

void QueueSpans::merge(Analysis&& other) {
  auto& o = dynamic_cast<QueueSpans&>(other);
  for (const auto& s : o.spans_) {
    if (spans_.size() >= kMaxTimelineSpans) {
      ++dropped_;
      continue;
    }
    spans_.push_back(
        Span{s.start_ns, s.end_ns, name_id(o.names_[s.name]), lane_id(o.lanes_[s.lane])});
  }
  dropped_ += o.dropped_;
  o.spans_ = {};
}

ReportAnalysis::ReportAnalysis(analyses::LaunchPredicate keep,
                               std::shared_ptr<const std::vector<gemm::Rule>> rules)
    : summary(analyses::LaunchPredicate{}, gemm::shared_builtin_rules()),
      profile(analyses::LaunchPredicate{}, std::move(rules)),
      keep_(std::move(keep)) {}

void ReportAnalysis::add_launch(const model::Launch& l) {
  if (keep_ && !keep_(l)) return;
  summary.add_launch(l);
  profile.add_launch(l);
  spans.add_launch(l);
  api.add_launch(l);
  ranks.add_launch(l);
  advice_launches.push_back(l);
}

void ReportAnalysis::add_transfer(const model::Transfer& t) {
  summary.add_transfer(t);
  spans.add_transfer(t);
  transfers.add_transfer(t);
  api.add_transfer(t);
  advice_transfers.push_back(t);
}

void ReportAnalysis::merge(Analysis&& other) {
  auto& o = dynamic_cast<ReportAnalysis&>(other);
  summary.merge(std::move(o.summary));
  profile.merge(std::move(o.profile));
  spans.merge(std::move(o.spans));
  transfers.merge(std::move(o.transfers));
  api.merge(std::move(o.api));
  ranks.merge(std::move(o.ranks));
  advice_launches.insert(advice_launches.end(), o.advice_launches.begin(), o.advice_launches.end());
  advice_transfers.insert(advice_transfers.end(), o.advice_transfers.begin(),
                          o.advice_transfers.end());
}

namespace {

// Linear interpolation between order statistics (the default of numpy and R type 7).
double quantile(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t i = static_cast<size_t>(std::floor(pos));
  const double frac = pos - static_cast<double>(i);
  if (i + 1 >= sorted.size()) return static_cast<double>(sorted.back());
  return static_cast<double>(sorted[i]) + frac * static_cast<double>(sorted[i + 1] - sorted[i]);
}

}  // namespace

Distribution distribution(std::string name, std::vector<int64_t>& v) {
  Distribution d;
  d.name = std::move(name);
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  d.count = v.size();
  for (int64_t x : v) analyses::add_to(d.total_ns, x);
  d.min = static_cast<double>(v.front());
  d.max = static_cast<double>(v.back());
  d.q1 = quantile(v, 0.25);
  d.median = quantile(v, 0.5);
  d.q3 = quantile(v, 0.75);
  const double iqr = d.q3 - d.q1, lo = d.q1 - 1.5 * iqr, hi = d.q3 + 1.5 * iqr;
  d.whisker_lo = d.q1;
  d.whisker_hi = d.q3;
  std::vector<double> low, high;
  for (int64_t x : v) {
    const double f = static_cast<double>(x);
    if (f < lo) {
      low.push_back(f);
    } else if (f > hi) {
      high.push_back(f);
    } else {
      d.whisker_lo = std::min(d.whisker_lo, f);
      d.whisker_hi = std::max(d.whisker_hi, f);
    }
  }
  d.outliers_total = low.size() + high.size();
  // The most extreme of each side (low is ascending, high ascending).
  const size_t half = kMaxOutliers / 2;
  for (size_t i = 0; i < low.size() && i < half; ++i) d.outliers.push_back(low[i]);
  for (size_t i = high.size() > half ? high.size() - half : 0; i < high.size(); ++i)
    d.outliers.push_back(high[i]);
  return d;
}

std::optional<int64_t> host_time(const model::Run& run, uint32_t process, uint32_t device,
                                 int64_t device_ns) {
  if (device == 0 || device > run.devices.size()) return std::nullopt;
  const model::Device& d = run.devices[device - 1];
  if (!d.has_clock_offset) return std::nullopt;
  int64_t base = 0;
  if (process < run.processes.size() && run.processes[process].host_start_ns != model::kNoTime)
    base = run.processes[process].host_start_ns;
  return device_ns + d.device_to_host_offset_ns + base;
}

namespace {

// With device intervals on the host clock, each process also gets a host lane (before its
// queues): its top-level ranges, builds, waits (clFinish, clWaitForEvents, ...) and library
// calls, so that host time the device did not fill shows what it was (a first GEMM call's
// 1 s clBuildProgram). Bounded like the device intervals (kMaxTimelineSpans in all).
void add_host_lanes(Timeline& t, const model::Run& run) {
  std::unordered_map<std::string, uint32_t> ids;
  for (uint32_t i = 0; i < t.names.size(); ++i) ids.emplace(t.names[i], i);
  auto name_id = [&](const std::string& n) { return intern(n, ids, t.names); };
  // Per (process, kind): one lane each for ranges, library calls, builds and waits, which
  // nest in one another (a build inside the first GEMM call inside a range).
  static const char* const kKinds[] = {"ranges", "library calls", "builds", "waits"};
  std::map<std::pair<uint32_t, int>, TimelineLane> host;
  size_t total = 0;
  for (const auto& l : t.lanes) total += l.intervals.size();
  auto add = [&](uint32_t process, int kind, int64_t begin, int64_t end, const std::string& name) {
    if (begin == model::kNoTime || end == model::kNoTime || end < begin) return;
    if (total >= kMaxTimelineSpans) {
      ++t.dropped;
      return;
    }
    int64_t base = 0;
    if (process < run.processes.size() && run.processes[process].host_start_ns != model::kNoTime)
      base = run.processes[process].host_start_ns;
    auto& lane = host[{process, kind}];
    lane.intervals.push_back({begin + base, end + base, name_id(name)});
    ++total;
  };
  for (const auto& r : run.ranges)
    if (r.parent == 0) add(r.process, 0, r.host_begin_ns, r.host_end_ns, "range: " + r.name);
  for (const auto& c : run.blas_calls)
    add(c.process, 1, c.host_begin_ns, c.host_end_ns, "call: " + c.api);
  for (const auto& b : run.builds)
    add(b.process, 2, b.host_begin_ns, b.host_end_ns, "build: " + b.api);
  for (const auto& y : run.syncs)
    add(y.process, 3, y.host_begin_ns, y.host_end_ns, "wait: " + y.api);
  for (auto& [key, lane] : host) {
    const auto [process, kind] = key;
    lane.host = true;
    lane.process = process;
    const bool pid = process < run.processes.size() && run.processes[process].pid;
    lane.label = (pid ? "pid " + std::to_string(run.processes[process].pid) + " · " : "") +
                 "host " + kKinds[kind];
    t.lanes.push_back(std::move(lane));
  }
  // Each process's host lane right before its queues (queue lanes are in process order).
  std::stable_sort(t.lanes.begin(), t.lanes.end(), [](const auto& a, const auto& b) {
    return std::make_pair(a.process, !a.host) < std::make_pair(b.process, !b.host);
  });
}

Timeline make_timeline(const QueueSpans& q, const model::Run& run) {
  Timeline t;
  t.names = q.names();
  t.dropped = q.dropped();
  t.host_clock = !q.spans().empty();
  for (const auto& lane : q.lanes())
    t.host_clock &= host_time(run, lane.process, lane.device, 0).has_value();
  // Lanes in (process, device, queue) order.
  std::vector<uint32_t> order(q.lanes().size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&q](uint32_t a, uint32_t b) { return q.lanes()[a] < q.lanes()[b]; });
  std::vector<size_t> at(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const auto& k = q.lanes()[order[i]];
    at[order[i]] = i;
    TimelineLane lane;
    lane.device = k.device;
    lane.process = k.process;
    const bool pid = k.process < run.processes.size() && run.processes[k.process].pid;
    if (pid) lane.label = "pid " + std::to_string(run.processes[k.process].pid) + " · ";
    if (k.device > 0 && k.device <= run.devices.size())
      lane.label += run.devices[k.device - 1].name + " · ";
    lane.label += "queue " + std::to_string(k.queue);
    t.lanes.push_back(std::move(lane));
  }
  for (const auto& s : q.spans()) {
    const auto& k = q.lanes()[s.lane];
    int64_t b = s.start_ns, e = s.end_ns;
    if (t.host_clock) {
      const int64_t shift = *host_time(run, k.process, k.device, 0);
      b += shift;
      e += shift;
    }
    t.lanes[at[s.lane]].intervals.push_back({b, e, s.name});
  }
  if (t.host_clock) add_host_lanes(t, run);
  for (auto& l : t.lanes)
    std::sort(l.intervals.begin(), l.intervals.end(), [](const auto& x, const auto& y) {
      return std::tie(x.begin, x.end) < std::tie(y.begin, y.end);
    });
  return t;
}

}  // namespace

RunReport finish_report(std::string label, ReportAnalysis&& a, const model::Run& run,
                        const analyses::Iterations& iterations,
                        const std::unordered_set<uint64_t>* selected, double peak_gflops,
                        bool with_figures, analyses::Stat stat,
                        const std::vector<model::LocalSweep>& sweeps) {
  RunReport r;
  r.label = std::move(label);
  for (const auto& p : run.processes) r.sources.push_back(p.source);
  for (const auto& d : run.devices)
    if (std::find(r.devices.begin(), r.devices.end(), d.name) == r.devices.end())
      r.devices.push_back(d.name);
  if (!run.processes.empty()) {
    for (const auto& w : run.processes.front().command_line)
      r.command_line += (r.command_line.empty() ? "" : " ") + w;
    if (run.processes.front().start_unix_ns != model::kNoTime)
      r.start_unix_ns = run.processes.front().start_unix_ns;
  }
  if (analyses::is_multi_rank(run))
    r.ranks = analyses::rank_table(a.summary.summary, a.ranks, run, analyses::RankMetric::Kernel);
  r.summary = analyses::summarize(std::move(a.summary), run, &r.gemm, peak_gflops);
  const analyses::NamedKernels kernels = a.profile.kernels.named(run);  // per variant
  r.kernels = analyses::make_kernel_rows(kernels, analyses::total_kernel_ns(kernels), nullptr);
  r.layers = analyses::layer_rows(a.profile.layers, run, nullptr);
  for (auto& l : r.layers) l.kernels.clear();
  for (auto& t : analyses::timing_layer_rows(run)) r.layers.push_back(std::move(t));
  if (!iterations.range_ids.empty()) {
    r.iteration_range = iterations.range_name;
    r.iterations = analyses::select_details(
        analyses::iteration_details(a.profile.layers, run, iterations), selected);
  }
  for (const auto& k : r.kernels) {
    if (r.distributions.size() >= kMaxBoxes) break;
    auto acc = kernels.find(k.name);
    if (acc == kernels.end() || acc->second.durations_ns.empty()) continue;
    std::vector<int64_t> v = acc->second.durations_ns.sorted_values();
    r.distributions.push_back(distribution(k.name, v));
  }
  {
    model::Run with_commands = run;
    with_commands.launches = std::move(a.advice_launches);
    with_commands.transfers = std::move(a.advice_transfers);
    analyses::advice::Thresholds t;
    if (peak_gflops > 0) t.set_peak_gflops(peak_gflops);
    r.advice = analyses::advice::advise(with_commands, t, sweeps);
  }
  r.timeline = make_timeline(a.spans, run);
  r.transfers = analyses::transfer_rows(a.transfers, run);
  r.builds = analyses::build_rows(run);
  a.api.add_run_calls(run);
  r.api = analyses::api_rows(a.api);
  if (with_figures) {
    std::optional<analyses::GemmResult> g;
    if (a.profile.gemm) g = analyses::finish_gemm(std::move(*a.profile.gemm), run, 0);
    r.figures = analyses::run_figures(r.label, a.profile, run, iterations, selected, stat,
                                      g ? &*g : nullptr);
  }
  return r;
}

}  // namespace clprof::output::report
