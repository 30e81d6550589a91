#include "analyses/gemm.hpp"

#include <algorithm>
#include <tuple>

#include "analyses/stats.hpp"

namespace clprof::analyses {

bool GemmAnalysis::GroupKey::operator<(const GroupKey& o) const {
  return std::tie(name_id, rule, dims[0], dims[1], dims[2], dims[3], device, process, program_id) <
         std::tie(o.name_id, o.rule, o.dims[0], o.dims[1], o.dims[2], o.dims[3], o.device, o.process,
                  o.program_id);
}

GemmAnalysis::GemmAnalysis(std::shared_ptr<const std::vector<gemm::Rule>> rules,
                           LaunchPredicate keep, bool group)
    : rules_(std::move(rules)), keep_(std::move(keep)), group_(group) {}

uint32_t GemmAnalysis::intern(const std::string& name) {
  auto [it, fresh] = name_ids_.try_emplace(name, static_cast<uint32_t>(names_.size()));
  if (fresh) names_.push_back(name);
  return it->second;
}

int GemmAnalysis::match(const std::string& name) {
  // One regex search per distinct kernel name, not per launch: regexes are slow.
  auto it = match_cache_.find(name);
  if (it != match_cache_.end()) return it->second;
  int found = -1;
  for (size_t i = 0; i < rules_->size(); ++i) {
    if (std::regex_search(name, (*rules_)[i].regex)) {
      found = static_cast<int>(i);
      break;
    }
  }
  match_cache_.emplace(name, found);
  return found;
}

void GemmAnalysis::add_launch(const model::Launch& launch) {
  const int rule = match(launch.name);
  if (rule < 0) return;
  if (keep_ && !keep_(launch)) return;
  const gemm::Rule& r = (*rules_)[static_cast<size_t>(rule)];
  Record rec;
  rec.name_id = intern(launch.name);
  rec.rule = rule;
  rec.process = launch.process;
  rec.device = launch.device;
  rec.program_id = launch.program_id;
  rec.seq = launch.seq;
  rec.range = innermost_range(launch);
  const gemm::DimSource* sources[4] = {&r.m, &r.n, &r.k, &r.batch};
  bool pending = false;
  std::string problem;
  for (int d = 0; d < 4; ++d) {
    if (sources[d]->kind == gemm::DimSource::Kind::Option) {
      rec.dims[d] = kPending;
      pending = true;
      continue;
    }
    auto v = gemm::evaluate(*sources[d], launch, nullptr);
    if (v.value) {
      rec.dims[d] = *v.value;
    } else if (problem.empty()) {
      problem = v.problem;  // one problem per launch: the counts are launches
    }
  }
  if (!problem.empty()) ++problems_[launch.name + ": " + problem];
  if (auto t = launch.duration_ns()) rec.duration_ns = *t;
  if (group_) {
    GroupKey key{rec.name_id, rec.rule, {rec.dims[0], rec.dims[1], rec.dims[2], rec.dims[3]},
                 rec.device, pending ? rec.process : 0, pending ? rec.program_id : 0};
    groups_[key].push_back(rec.duration_ns);
  } else {
    records_.push_back(rec);
  }
}

void GemmAnalysis::merge(Analysis&& other) {
  auto& o = dynamic_cast<GemmAnalysis&>(other);
  std::vector<uint32_t> remap(o.names_.size());
  for (size_t i = 0; i < o.names_.size(); ++i) remap[i] = intern(o.names_[i]);
  for (auto rec : o.records_) {
    rec.name_id = remap[rec.name_id];
    records_.push_back(rec);
  }
  for (auto& [key, durations] : o.groups_) {
    GroupKey k = key;
    k.name_id = remap[k.name_id];
    auto& dst = groups_[k];
    dst.insert(dst.end(), durations.begin(), durations.end());
  }
  for (const auto& [p, n] : o.problems_) problems_[p] += n;
  o.records_.clear();
  o.groups_.clear();
}

namespace {

// Build options per (process, program id): Program::options, else the last successful build.
class ProgramOptions {
 public:
  explicit ProgramOptions(const model::Run& run) {
    for (const auto& b : run.builds)
      if (b.rc == 0) options_[{b.process, b.program_id}] = b.options;
    for (const auto& p : run.programs)
      if (!p.options.empty()) options_[{p.process, p.id}] = p.options;
  }
  const std::string* find(uint32_t process, uint64_t program) const {
    auto it = options_.find({process, program});
    return it == options_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::pair<uint32_t, uint64_t>, std::string> options_;
};

// Fills pending dims from the build options; records the problems of those that fail.
void resolve(int64_t (&dims)[4], const gemm::Rule& rule, const std::string& name, uint32_t process,
             uint64_t program, const ProgramOptions& options, std::map<std::string, uint64_t>& problems,
             uint64_t weight) {
  const gemm::DimSource* sources[4] = {&rule.m, &rule.n, &rule.k, &rule.batch};
  model::Launch probe;  // only program_id is read for Option sources
  probe.program_id = program;
  std::string problem;
  for (int d = 0; d < 4; ++d) {
    if (dims[d] != GemmAnalysis::kPending) continue;
    auto v = gemm::evaluate(*sources[d], probe, options.find(process, program));
    if (v.value) {
      dims[d] = *v.value;
    } else {
      dims[d] = GemmAnalysis::kUnknown;
      if (problem.empty()) problem = v.problem;
    }
  }
  // Launches already counted with a problem at add time are not counted twice.
  bool already = false;
  for (int d = 0; d < 4; ++d) already |= dims[d] == GemmAnalysis::kUnknown && sources[d]->kind != gemm::DimSource::Kind::Option;
  if (!problem.empty() && !already) problems[name + ": " + problem] += weight;
}

std::optional<int64_t> known(int64_t v) {
  if (v < 0) return std::nullopt;
  return v;
}

bool all_known(const int64_t (&dims)[4]) {
  return dims[0] >= 0 && dims[1] >= 0 && dims[2] >= 0 && dims[3] >= 0;
}

}  // namespace

GemmResult finish_gemm(const GemmAnalysis& a, const model::Run& run, double peak_gflops) {
  GemmResult out;
  out.problems = a.problems();
  const ProgramOptions options(run);
  const RangeIndex ranges(run);
  std::vector<const GemmAnalysis::Record*> order;
  for (const auto& r : a.records()) order.push_back(&r);
  std::sort(order.begin(), order.end(), [](auto* x, auto* y) {
    return std::tie(x->process, x->seq) < std::tie(y->process, y->seq);
  });
  std::unordered_map<uint64_t, std::string> layer_cache;
  for (const auto* rec : order) {
    const auto& rule = a.rules()[static_cast<size_t>(rec->rule)];
    const std::string& name = a.names()[rec->name_id];
    int64_t dims[4] = {rec->dims[0], rec->dims[1], rec->dims[2], rec->dims[3]};
    resolve(dims, rule, name, rec->process, rec->program_id, options, out.problems, 1);
    GemmRow row;
    row.process = rec->process;
    row.seq = rec->seq;
    row.name = name;
    auto lc = layer_cache.find(rec->range);
    if (lc == layer_cache.end()) lc = layer_cache.emplace(rec->range, ranges.path(rec->range)).first;
    row.layer = lc->second;
    row.rule = rule.id;
    row.padded = rule.padded;
    row.m = known(dims[0]);
    row.n = known(dims[1]);
    row.k = known(dims[2]);
    row.batch = known(dims[3]);
    row.time_ns = known(rec->duration_ns);
    ++out.launches;
    if (all_known(dims) && row.time_ns) {
      const double flops = gemm::gemm_flops(dims[0], dims[1], dims[2], dims[3]);
      out.gflop_total += flops / 1e9;
      out.gflop_per_device[rec->device] += flops / 1e9;
      // FLOPs per nanosecond is exactly GFLOP/s.
      if (*row.time_ns > 0) row.gflops = flops / static_cast<double>(*row.time_ns);
      if (row.gflops && peak_gflops > 0) row.percent_of_peak = 100.0 * *row.gflops / peak_gflops;
    }
    out.rows.push_back(std::move(row));
  }
  // Grouped mode: resolve, then merge keys that became equal (same name and sizes).
  struct Merged {
    const gemm::Rule* rule;
    std::vector<int64_t> durations;
    uint64_t count = 0;
  };
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>, Merged> merged;
  for (const auto& [key, durations] : a.groups()) {
    const auto& rule = a.rules()[static_cast<size_t>(key.rule)];
    const std::string& name = a.names()[key.name_id];
    int64_t dims[4] = {key.dims[0], key.dims[1], key.dims[2], key.dims[3]};
    resolve(dims, rule, name, key.process, key.program_id, options, out.problems, durations.size());
    auto& m = merged[{name, dims[0], dims[1], dims[2], dims[3]}];
    m.rule = &rule;
    m.count += durations.size();
    for (int64_t d : durations)
      if (d >= 0) m.durations.push_back(d);
    if (all_known(dims)) {
      const double timed = static_cast<double>(
          std::count_if(durations.begin(), durations.end(), [](int64_t d) { return d >= 0; }));
      out.gflop_per_device[key.device] +=
          gemm::gemm_flops(dims[0], dims[1], dims[2], dims[3]) * timed / 1e9;
    }
    out.launches += durations.size();
  }
  for (auto& [key, m] : merged) {
    GemmGroupRow g;
    g.name = std::get<0>(key);
    int64_t dims[4] = {std::get<1>(key), std::get<2>(key), std::get<3>(key), std::get<4>(key)};
    g.m = known(dims[0]);
    g.n = known(dims[1]);
    g.k = known(dims[2]);
    g.batch = known(dims[3]);
    g.rule = m.rule->id;
    g.padded = m.rule->padded;
    g.count = m.count;
    auto s = compute_stats(m.durations);
    g.total_ns = s.total_ns;
    g.median_ns = s.median_ns;
    g.min_ns = s.min_ns;
    if (all_known(dims) && s.count > 0) {
      const double flops = gemm::gemm_flops(dims[0], dims[1], dims[2], dims[3]);
      out.gflop_total += flops * static_cast<double>(s.count) / 1e9;
      if (s.median_ns > 0) g.gflops_median = flops / static_cast<double>(s.median_ns);
      if (s.min_ns > 0) g.gflops_best = flops / static_cast<double>(s.min_ns);
      if (g.gflops_best && peak_gflops > 0) g.percent_of_peak = 100.0 * *g.gflops_best / peak_gflops;
    }
    out.groups.push_back(std::move(g));
  }
  std::stable_sort(out.groups.begin(), out.groups.end(), [](const auto& x, const auto& y) {
    if (x.total_ns != y.total_ns) return x.total_ns > y.total_ns;
    return x.name < y.name;
  });
  return out;
}

}  // namespace clprof::analyses
