#include "analyses/gemm/gemm.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <tuple>

#include "analyses/stats.hpp"

namespace clprof::analyses {

bool GemmAnalysis::Shape::operator==(const Shape& o) const {
  return name_id == o.name_id && rule == o.rule && process == o.process && device == o.device &&
         program_id == o.program_id && dims[0] == o.dims[0] && dims[1] == o.dims[1] &&
         dims[2] == o.dims[2] && dims[3] == o.dims[3];
}

size_t GemmAnalysis::ShapeHash::operator()(const Shape& s) const {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  };
  mix(s.name_id);
  mix(static_cast<uint64_t>(s.rule));
  mix(s.process);
  mix(s.device);
  mix(s.program_id);
  for (int64_t d : s.dims) mix(static_cast<uint64_t>(d));
  return static_cast<size_t>(h);
}

GemmAnalysis::GemmAnalysis(std::shared_ptr<const std::vector<gemm::Rule>> rules,
                           LaunchPredicate keep, bool group)
    : rules_(std::move(rules)), keep_(std::move(keep)), group_(group) {}

uint32_t GemmAnalysis::intern(const std::string& name) {
  auto [it, fresh] = name_ids_.try_emplace(name, static_cast<uint32_t>(names_.size()));
  if (fresh) names_.push_back(name);
  return it->second;
}

uint32_t GemmAnalysis::intern(const Shape& shape) {
  auto [it, fresh] = shape_ids_.try_emplace(shape, static_cast<uint32_t>(shapes_.size()));
  if (fresh) {
    shapes_.push_back(shape);
    if (group_) durations_.emplace_back();
  }
  return it->second;
}

int GemmAnalysis::match(const std::string& name) {
  // One regex search per distinct kernel name, not per launch.
  auto it = match_cache_.find(name);
  if (it != match_cache_.end()) return it->second;
  int found = -1;
  for (size_t i = 0; i < rules_->size(); ++i) {
    if ((*rules_)[i].regex.search(name)) {
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
  Shape shape;
  shape.name_id = intern(launch.name);
  shape.rule = rule;
  shape.process = launch.process;
  shape.device = launch.device;
  const gemm::DimSource* sources[4] = {&r.m, &r.n, &r.k, &r.batch};
  bool pending = false;
  std::string problem;
  for (int d = 0; d < 4; ++d) {
    if (sources[d]->kind == gemm::DimSource::Kind::Option) {
      shape.dims[d] = kPending;
      pending = true;
      continue;
    }
    auto v = gemm::evaluate(*sources[d], launch, nullptr);
    if (v.value) {
      shape.dims[d] = *v.value;
    } else if (problem.empty()) {
      problem = v.problem;  // one problem per launch: the counts are launches
    }
  }
  // The program only matters for resolving build options: do not split shapes by it.
  if (pending) shape.program_id = launch.program_id;
  if (!problem.empty()) ++problems_[launch.name + ": " + problem];
  const int64_t duration = launch.duration_ns().value_or(kUnknown);
  const uint32_t id = intern(shape);
  if (group_) {
    durations_[id].push_back(duration);
  } else {
    Record rec;
    rec.seq = launch.seq;
    rec.range = innermost_range(launch);
    rec.duration_ns = duration;
    rec.shape = id;
    records_.push_back(rec);
  }
}

void GemmAnalysis::merge(Analysis&& other) {
  auto& o = dynamic_cast<GemmAnalysis&>(other);
  std::vector<uint32_t> names(o.names_.size());
  for (size_t i = 0; i < o.names_.size(); ++i) names[i] = intern(o.names_[i]);
  std::vector<uint32_t> shapes(o.shapes_.size());
  for (size_t i = 0; i < o.shapes_.size(); ++i) {
    Shape s = o.shapes_[i];
    s.name_id = names[s.name_id];
    shapes[i] = intern(s);
  }
  // Block by block: the memory of `other`'s records is released as they are moved.
  while (!o.records_.empty()) {
    Record rec = o.records_.front();
    o.records_.pop_front();
    rec.shape = shapes[rec.shape];
    records_.push_back(rec);
  }
  for (size_t i = 0; i < o.durations_.size(); ++i) {
    auto& dst = durations_[shapes[i]];
    dst.insert(dst.end(), o.durations_[i].begin(), o.durations_[i].end());
  }
  for (const auto& [p, n] : o.problems_) problems_[p] += n;
  o.durations_.clear();
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
  if (!problem.empty() && !already && weight > 0) problems[name + ": " + problem] += weight;
}

std::optional<int64_t> known(int64_t v) {
  if (v < 0) return std::nullopt;
  return v;
}

bool all_known(const int64_t (&dims)[4]) {
  return dims[0] >= 0 && dims[1] >= 0 && dims[2] >= 0 && dims[3] >= 0;
}

}  // namespace

std::optional<int64_t> GemmResult::time_ns(const GemmAnalysis::Record& r) const {
  return known(r.duration_ns);
}

std::optional<double> GemmResult::gflops(const GemmAnalysis::Record& r) const {
  const auto& s = shapes[r.shape];
  // FLOPs per nanosecond is exactly GFLOP/s.
  if (!s.flops || r.duration_ns <= 0) return std::nullopt;
  return *s.flops / static_cast<double>(r.duration_ns);
}

GemmRow GemmResult::row(size_t i) const {
  const auto& rec = records[i];
  const auto& s = shapes[rec.shape];
  GemmRow row;
  row.process = s.process;
  row.seq = rec.seq;
  row.name = names[s.name_id];
  row.layer = layer(rec);
  row.rule = s.rule->id;
  row.padded = s.rule->padded;
  row.m = s.m;
  row.n = s.n;
  row.k = s.k;
  row.batch = s.batch;
  row.time_ns = time_ns(rec);
  row.gflops = gflops(rec);
  if (row.gflops && peak_gflops > 0) row.percent_of_peak = 100.0 * *row.gflops / peak_gflops;
  return row;
}

GemmResult finish_gemm(const GemmAnalysis& a, const model::Run& run, double peak_gflops) {
  GemmAnalysis copy(a);
  return finish_gemm(std::move(copy), run, peak_gflops);
}

GemmResult finish_gemm(GemmAnalysis&& a, const model::Run& run, double peak_gflops) {
  GemmResult out;
  out.problems = a.problems();
  out.names = a.names();
  out.peak_gflops = peak_gflops;
  const ProgramOptions options(run);

  // Launches per shape: the weight of a shape's decoding problem.
  std::vector<uint64_t> count(a.shapes().size(), 0);
  for (const auto& r : a.records_) ++count[r.shape];
  for (size_t i = 0; i < a.durations_.size(); ++i) count[i] += a.durations_[i].size();

  // Resolve every shape once (not once per launch).
  std::vector<std::array<int64_t, 4>> resolved(a.shapes().size());
  out.shapes.resize(a.shapes().size());
  for (size_t i = 0; i < a.shapes().size(); ++i) {
    const auto& s = a.shapes()[i];
    const auto& rule = a.rules()[static_cast<size_t>(s.rule)];
    int64_t dims[4] = {s.dims[0], s.dims[1], s.dims[2], s.dims[3]};
    resolve(dims, rule, a.names()[s.name_id], s.process, s.program_id, options, out.problems, count[i]);
    auto& r = out.shapes[i];
    r.process = s.process;
    r.device = s.device;
    r.name_id = s.name_id;
    r.rule = &rule;
    r.m = known(dims[0]);
    r.n = known(dims[1]);
    r.k = known(dims[2]);
    r.batch = known(dims[3]);
    if (all_known(dims)) r.flops = gemm::gemm_flops(dims[0], dims[1], dims[2], dims[3]);
    std::copy(std::begin(dims), std::end(dims), resolved[i].begin());
  }

  // Per-launch mode.
  out.records = std::move(a.records_);
  if (!out.records.empty()) out.ranges = std::make_shared<const RangeIndex>(run);
  a.records_ = {};
  const auto& shapes = out.shapes;
  std::sort(out.records.begin(), out.records.end(), [&shapes](const auto& x, const auto& y) {
    return std::tie(shapes[x.shape].process, x.seq) < std::tie(shapes[y.shape].process, y.seq);
  });
  for (const auto& rec : out.records) {
    const auto& s = out.shapes[rec.shape];
    ++out.launches;
    if (s.flops && rec.duration_ns >= 0) {
      out.gflop_total += *s.flops / 1e9;
      out.gflop_per_device[s.device] += *s.flops / 1e9;
    }
  }

  // Grouped mode: merge shapes that are equal once resolved (same name and sizes).
  struct Merged {
    const gemm::Rule* rule;
    std::vector<int64_t> durations;
    uint64_t count = 0;
  };
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>, Merged> merged;
  for (size_t i = 0; i < a.durations_.size(); ++i) {
    auto& durations = a.durations_[i];
    if (durations.empty()) continue;
    const auto& shape = out.shapes[i];
    const auto& dims = resolved[i];
    auto& m = merged[{a.names()[shape.name_id], dims[0], dims[1], dims[2], dims[3]}];
    m.rule = shape.rule;
    m.count += durations.size();
    uint64_t timed = 0;
    for (int64_t d : durations)
      if (d >= 0) {
        m.durations.push_back(d);
        ++timed;
      }
    if (shape.flops) out.gflop_per_device[shape.device] += *shape.flops * static_cast<double>(timed) / 1e9;
    out.launches += durations.size();
    durations = {};
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
    g.timed = s.count;
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
