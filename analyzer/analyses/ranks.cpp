#include "analyses/ranks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>

#include "analyses/stats.hpp"

namespace clprof::analyses {

void ProcessKernels::add_launch(const model::Launch& l) {
  auto& k = per_process[l.process][l.name];
  ++k.launches;
  if (auto t = l.duration_ns()) {
    add_to(k.total_ns, *t);
    ++k.timed;
  }
}

void ProcessKernels::merge(Analysis&& other) {
  auto& o = dynamic_cast<ProcessKernels&>(other);
  for (auto& [p, names] : o.per_process)
    for (auto& [name, ok] : names) {
      auto& k = per_process[p][name];
      k.launches += ok.launches;
      add_to(k.total_ns, ok.total_ns);
      k.timed += ok.timed;
    }
  o.per_process.clear();
}

void RanksAnalysis::add_launch(const model::Launch& l) {
  if (!keep_ || keep_(l)) {
    summary.add_launch(l);
    kernels.add_launch(l);
  }
}

void RanksAnalysis::merge(Analysis&& other) {
  summary.merge(std::move(dynamic_cast<RanksAnalysis&>(other).summary));
  kernels.merge(std::move(dynamic_cast<RanksAnalysis&>(other).kernels));
}

bool is_multi_rank(const model::Run& run) {
  if (run.processes.size() < 2) return false;
  for (const auto& p : run.processes)
    if (p.rank) return true;
  return false;
}

namespace {

constexpr std::pair<RankMetric, const char*> kMetricNames[] = {
    {RankMetric::Kernel, "kernel"}, {RankMetric::Busy, "busy"}, {RankMetric::Wall, "wall"}};

}  // namespace

std::optional<RankMetric> parse_rank_metric(const std::string& word) {
  for (const auto& [m, name] : kMetricNames)
    if (word == name) return m;
  return std::nullopt;
}

const char* rank_metric_name(RankMetric m) {
  for (const auto& [metric, name] : kMetricNames)
    if (metric == m) return name;
  return "kernel";
}

RobustCenter robust_center(const std::vector<std::optional<int64_t>>& values) {
  std::vector<int64_t> known;
  for (const auto& v : values)
    if (v) known.push_back(*v);
  RobustCenter c;
  if (known.empty()) return c;
  const int64_t median = median_of(known);
  std::vector<int64_t> deviations;
  for (int64_t v : known) deviations.push_back(std::llabs(sub_ns(v, median)));
  c.median = median;
  c.mad = median_of(deviations);
  return c;
}

bool is_outlier(int64_t value, const RobustCenter& c, double mads, double fraction) {
  if (!c.median) return false;
  const double d = std::fabs(static_cast<double>(value) - static_cast<double>(*c.median));
  return d > mads * static_cast<double>(c.mad) &&
         d > fraction * std::fabs(static_cast<double>(*c.median));
}

namespace {

std::optional<int64_t> metric_of(const RankRow& r, RankMetric m) {
  if (m == RankMetric::Wall) return r.wall_ns;
  return m == RankMetric::Busy ? r.busy_ns : r.kernel_ns;
}

}  // namespace

void set_kernel_figures(RankRow& r, const std::map<std::string, ProcessKernels::Totals>& kernels) {
  for (const auto& [name, totals] : kernels) {
    r.launches += totals.launches;
    add_to(r.kernel_ns, totals.total_ns);
    if (totals.timed && (r.top_kernel.empty() || totals.total_ns > r.top_kernel_ns)) {
      r.top_kernel = name;
      r.top_kernel_ns = totals.total_ns;
    }
  }
}

RankTable rank_table(SummaryAnalysis& summary, const ProcessKernels& kernels, const model::Run& run,
                     RankMetric metric) {
  std::vector<RankRow> rows;
  const auto spans = absolute_host_spans(summary, run);
  for (uint32_t p = 0; p < run.processes.size(); ++p) {
    const auto& proc = run.processes[p];
    RankRow r;
    r.process = p;
    r.rank = proc.rank;
    r.world_size = proc.world_size;
    r.host = proc.host_name;
    r.pid = proc.pid;
    r.file = proc.source;
    if (auto s = spans.find(p); s != spans.end() && s->second.second > s->second.first)
      r.wall_ns = sub_ns(s->second.second, s->second.first);
    if (auto k = kernels.per_process.find(p); k != kernels.per_process.end())
      set_kernel_figures(r, k->second);
    rows.push_back(std::move(r));
  }
  // Busy: the union per device (its own clock), summed over the process's devices.
  for (auto& [id, d] : summary.mutable_devices()) {
    if (id == 0 || id > run.devices.size()) continue;
    const uint32_t p = run.devices[id - 1].process;
    if (p >= rows.size()) continue;
    add_to(rows[p].busy_ns, add_ns(d.intervals.length_ns(), d.busy_extra_ns));
  }
  return finish_rank_table(std::move(rows), metric);
}

RankTable finish_rank_table(std::vector<RankRow> rows, RankMetric metric) {
  RankTable t;
  t.metric = metric;
  t.rows = std::move(rows);
  std::stable_sort(t.rows.begin(), t.rows.end(), [](const RankRow& x, const RankRow& y) {
    // Ranked rows first, by rank; the others by file, then pid.
    return std::make_tuple(!x.rank, x.rank.value_or(0), x.file, x.pid) <
           std::make_tuple(!y.rank, y.rank.value_or(0), y.file, y.pid);
  });
  std::vector<std::optional<int64_t>> values;
  for (const auto& r : t.rows) values.push_back(metric_of(r, metric));
  const RobustCenter c = robust_center(values);
  t.median_ns = c.median;
  t.mad_ns = c.mad;
  for (auto& r : t.rows) {
    const auto v = metric_of(r, metric);
    if (!v || !c.median) continue;
    r.deviation_ns = sub_ns(*v, *c.median);
    if (*c.median != 0)
      r.deviation_percent =
          100.0 * static_cast<double>(*r.deviation_ns) / static_cast<double>(*c.median);
    r.outlier = is_outlier(*v, c);
  }
  return t;
}

std::optional<KernelSpread> kernel_spread(const ProcessKernels& kernels, const RankTable& table,
                                          const std::string& kernel) {
  KernelSpread s;
  s.kernel = kernel;
  std::vector<std::pair<int64_t, const RankRow*>> totals;
  for (const auto& r : table.rows) {
    auto p = kernels.per_process.find(r.process);
    if (p == kernels.per_process.end()) continue;
    auto k = p->second.find(kernel);
    if (k == p->second.end()) continue;
    s.launches += k->second.launches;
    totals.emplace_back(k->second.total_ns, &r);
  }
  if (totals.empty()) return std::nullopt;
  s.ranks = totals.size();
  std::vector<int64_t> values;
  std::vector<std::optional<int64_t>> known;
  for (const auto& [v, r] : totals) {
    values.push_back(v);
    known.push_back(v);
  }
  s.median_ns = median_of(values);
  // Ties: the first in the table's order (the lower rank).
  auto fastest = totals.begin(), slowest = totals.begin();
  for (auto it = totals.begin(); it != totals.end(); ++it) {
    if (it->first < fastest->first) fastest = it;
    if (it->first > slowest->first) slowest = it;
  }
  s.min_ns = fastest->first;
  s.max_ns = slowest->first;
  s.fastest = fastest->second;
  s.slowest = slowest->second;
  if (s.median_ns != 0)
    s.spread_percent =
        100.0 * static_cast<double>(sub_ns(s.max_ns, s.min_ns)) / static_cast<double>(s.median_ns);
  const RobustCenter c = robust_center(known);
  for (const auto& [v, r] : totals) s.outliers += is_outlier(v, c) ? 1 : 0;
  return s;
}

}  // namespace clprof::analyses
