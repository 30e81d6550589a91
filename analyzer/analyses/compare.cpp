#include "analyses/compare.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>
#include <unordered_map>

#include "analyses/stats.hpp"

namespace clprof::analyses {

namespace {

// The names of Stat and Section, in enumerator order: parse_stat, stat_name and
// section_name read them.
constexpr const char* kStatNames[] = {"median", "min", "mean"};
constexpr const char* kSectionNames[] = {"kernels", "layers", "gemm"};

template <size_t N, class Enum>
const char* name_of(const char* const (&names)[N], Enum value) {
  const auto i = static_cast<size_t>(value);
  return i < N ? names[i] : names[0];
}

// The statistic `stat` of durations already summarised.
int64_t stat_of(Stat stat, const DurationStats& s) {
  switch (stat) {
    case Stat::Median:
      return s.median_ns;
    case Stat::Min:
      return s.min_ns;
    case Stat::Mean:
      return s.mean_ns;
  }
  return s.median_ns;
}

}  // namespace

std::optional<Stat> parse_stat(std::string_view name) {
  for (size_t i = 0; i < std::size(kStatNames); ++i)
    if (name == kStatNames[i]) return static_cast<Stat>(i);
  return std::nullopt;
}

const char* stat_name(Stat stat) {
  return name_of(kStatNames, stat);
}

int64_t apply_stat(Stat stat, std::vector<int64_t>& values) {
  if (values.empty()) return 0;
  return stat_of(stat, compute_stats(values));
}

ProfileAnalysis::ProfileAnalysis(LaunchPredicate keep,
                                 std::shared_ptr<const std::vector<gemm::Rule>> rules)
    : keep_(std::move(keep)) {
  if (rules) gemm = std::make_unique<GemmAnalysis>(std::move(rules), LaunchPredicate{}, false);
}

void ProfileAnalysis::add_launch(const model::Launch& launch) {
  if (keep_ && !keep_(launch)) return;
  kernels.add_launch(launch);
  layers.add_launch(launch);
  if (gemm) gemm->add_launch(launch);
}

void ProfileAnalysis::merge(Analysis&& other) {
  auto& o = dynamic_cast<ProfileAnalysis&>(other);
  kernels.merge(std::move(o.kernels));
  layers.merge(std::move(o.layers));
  if (gemm && o.gemm) gemm->merge(std::move(*o.gemm));
}

std::string variant_key(const KernelVariant& v) {
  std::string key = v.name;
  key += '\0';
  key += v.known ? '1' : '0';
  key += '\0' + v.source_hash + '\0' + v.options;
  return key;
}

std::string layer_key(std::string_view path) {
  std::string out;
  size_t begin = 0;
  while (begin <= path.size()) {
    size_t end = path.find('/', begin);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(begin, end - begin);
    // Arm NN numbers every event ("ClConvolution2dWorkload_Execute_#4"); the numbers differ
    // between profiles of one network as soon as a workload is added or removed.
    const size_t hash = part.rfind("_#");
    if (hash != std::string_view::npos && hash + 2 < part.size() &&
        part.find_first_not_of("0123456789", hash + 2) == std::string_view::npos)
      part = part.substr(0, hash);
    if (begin) out += '/';
    out += part;
    begin = end + 1;
  }
  return out;
}

namespace {

// Keys of layers in execution order: layer_key plus, for the k-th layer of one key, "#k".
class LayerKeys {
 public:
  std::string next(const std::string& path) {
    const std::string k = layer_key(path);
    const uint64_t n = ++seen_[k];
    return n == 1 ? k : k + '\0' + std::to_string(n);
  }

 private:
  std::unordered_map<std::string, uint64_t> seen_;
};

// A kernel's time in a run without iterations: its launches times the statistic of one
// (the mean: exactly the total).
int64_t whole_run_time(Stat stat, const DurationStats& s) {
  if (stat == Stat::Mean) return s.total_ns;
  return static_cast<int64_t>(s.count) * stat_of(stat, s);
}

void iteration_figures(RunFigures& f, const ProfileAnalysis& a, const model::Run& run,
                       const Iterations& its, const std::unordered_set<uint64_t>* selected,
                       Stat stat) {
  const auto details = select_details(iteration_details(a.layers, run, its), selected);
  const size_t n = details.size();
  f.iterations = n;
  f.iteration_range = its.range_name;
  struct Series {
    std::vector<int64_t> times;
    uint64_t count = 0;
    std::string display;
  };
  std::map<std::string, Series> kernels;
  std::vector<std::string> layer_order;
  std::unordered_map<std::string, Series> layers;
  std::vector<int64_t> totals;
  uint64_t inside = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto& d = details[i];
    totals.push_back(d.kernel_ns);
    for (const auto& k : d.kernels) {
      const std::string key = variant_key(k.variant);
      f.kernel_variants.emplace(key, k.variant);
      auto& s = kernels[key];
      if (s.times.empty()) s.times.assign(n, 0);
      s.display = k.name;
      add_to(s.times[i], k.total_ns);
      s.count += k.count;
      inside += k.count;
    }
    LayerKeys keys;
    for (const auto& l : d.layers) {
      if (l.kernels.empty()) continue;  // a workload without kernels (Arm NN memory copies)
      const std::string display = l.layer.empty() ? its.range_name : l.layer;
      const std::string key = keys.next(display);
      auto [it, fresh] = layers.try_emplace(key);
      if (fresh) {
        it->second.times.assign(n, 0);
        it->second.display = display;
        layer_order.push_back(key);
      }
      add_to(it->second.times[i], l.total_ns);
      for (const auto& k : l.kernels) it->second.count += k.count;
    }
  }
  f.total_ns = apply_stat(stat, totals);
  // Kernels in first-launch order, as `kernels --sort order` lists them.
  std::map<std::string, uint64_t> first;  // variant_key -> first launch
  const ProgramVariants programs(run);
  for (const auto& [k, acc] : a.kernels.accumulators()) {
    auto [it, fresh] = first.try_emplace(variant_key(programs.of(k)), acc.first_order);
    it->second = std::min(it->second, acc.first_order);
  }
  std::vector<std::pair<uint64_t, std::string>> order;
  for (const auto& [key, s] : kernels) {
    auto at = first.find(key);
    order.emplace_back(at == first.end() ? UINT64_MAX : at->second, key);
  }
  std::stable_sort(order.begin(), order.end());
  for (const auto& [o, key] : order) {
    auto& s = kernels[key];
    f.kernels.push_back({key, Figure{s.count, apply_stat(stat, s.times), std::nullopt, s.display}});
  }
  for (const auto& key : layer_order) {
    auto& s = layers[key];
    f.layers.push_back({key, Figure{s.count, apply_stat(stat, s.times), std::nullopt, s.display}});
  }
  uint64_t timed = 0;
  for (const auto& [name, acc] : a.kernels.accumulators()) timed += acc.durations_ns.size();
  f.outside_iterations = timed - std::min(timed, inside);
}

void whole_run_figures(RunFigures& f, const ProfileAnalysis& a, const model::Run& run, Stat stat) {
  VariantKernels variants = a.kernels.variants(run);
  const auto labels = labels_of(variants);
  std::map<std::string, const KernelVariant*> variant_named;
  for (const auto& [v, name] : labels) variant_named.emplace(name, &v);
  auto rows = make_kernel_rows(by_row_name(std::move(variants), labels), 0, nullptr);
  sort_kernel_rows(rows, "order");
  for (const auto& r : rows) {
    const int64_t t = whole_run_time(stat, r.stats);
    const KernelVariant& v = *variant_named.at(r.name);
    f.kernels.push_back({variant_key(v), Figure{r.stats.count, t, std::nullopt, r.name}});
    f.kernel_variants.emplace(variant_key(v), v);
    add_to(f.total_ns, t);
  }
  LayerKeys keys;
  for (const auto& l : layer_rows(a.layers, run, nullptr)) {
    if (l.count == 0) continue;
    int64_t t = 0;
    for (const auto& k : l.kernels) add_to(t, whole_run_time(stat, k.stats));
    f.layers.push_back({keys.next(l.layer), Figure{l.count, t, std::nullopt, l.layer}});
  }
}

void gemm_figures(RunFigures& f, const GemmResult& g, Stat stat) {
  struct Acc {
    std::vector<int64_t> durations;
    std::set<std::string> names;
    std::vector<std::string> order;
    double flops = 0;
  };
  std::map<GemmShape, Acc> shapes;
  for (const auto& rec : g.records) {
    const auto& s = g.shape(rec);
    const auto t = g.time_ns(rec);
    if (!s.m || !s.n || !s.k || !s.batch || !s.flops || !t) continue;
    auto& acc = shapes[{*s.m, *s.n, *s.k, *s.batch}];
    acc.durations.push_back(*t);
    acc.flops = *s.flops;
    const std::string& name = g.names[s.name_id];
    if (acc.names.insert(name).second) acc.order.push_back(name);
  }
  for (auto& [shape, acc] : shapes) {
    GemmFigure gf;
    gf.figure.count = acc.durations.size();
    gf.figure.time_ns = apply_stat(stat, acc.durations);
    if (gf.figure.time_ns > 0)
      gf.figure.gflops = acc.flops / static_cast<double>(gf.figure.time_ns);
    for (const auto& n : acc.order) gf.kernels += (gf.kernels.empty() ? "" : ", ") + n;
    gf.figure.display = gf.kernels;
    f.gemm.emplace(shape, std::move(gf));
  }
}

}  // namespace

RunFigures run_figures(std::string label, const ProfileAnalysis& analysis, const model::Run& run,
                       const Iterations& iterations, const std::unordered_set<uint64_t>* selected,
                       Stat stat, const GemmResult* gemm) {
  RunFigures f;
  f.label = std::move(label);
  if (!iterations.range_ids.empty())
    iteration_figures(f, analysis, run, iterations, selected, stat);
  else
    whole_run_figures(f, analysis, run, stat);
  if (gemm) {
    f.gemm_known = true;
    gemm_figures(f, *gemm, stat);
  }
  return f;
}

const char* section_name(Section section) {
  return name_of(kSectionNames, section);
}

namespace {

std::optional<double> percent_change(int64_t base, int64_t other) {
  if (base <= 0) return std::nullopt;
  return 100.0 * (static_cast<double>(other) - static_cast<double>(base)) /
         static_cast<double>(base);
}

std::optional<double> ratio(int64_t base, int64_t other) {
  if (other <= 0 || base < 0) return std::nullopt;
  return static_cast<double>(base) / static_cast<double>(other);
}

}  // namespace

std::optional<int64_t> CompareItem::delta_ns() const {
  if (!base || !other) return std::nullopt;
  return sub_ns(other->time_ns, base->time_ns);
}

std::optional<double> CompareItem::delta_percent() const {
  if (!base || !other) return std::nullopt;
  return percent_change(base->time_ns, other->time_ns);
}

std::optional<double> CompareItem::speedup() const {
  if (!base || !other) return std::nullopt;
  return ratio(base->time_ns, other->time_ns);
}

const char* CompareItem::status() const {
  if (!base) return "new";
  if (!other) return "vanished";
  if (other->time_ns > base->time_ns) return "slower";
  if (other->time_ns < base->time_ns) return "faster";
  return "equal";
}

std::optional<int64_t> Comparison::total_delta_ns() const {
  return sub_ns(other_total_ns, base_total_ns);
}
std::optional<double> Comparison::total_delta_percent() const {
  return percent_change(base_total_ns, other_total_ns);
}
std::optional<double> Comparison::total_speedup() const {
  return ratio(base_total_ns, other_total_ns);
}

namespace {

// Items of both lists matched by key: the base's in its order, then the other's new ones.
std::vector<CompareItem> match(const std::vector<std::pair<std::string, Figure>>& base,
                               const std::vector<std::pair<std::string, Figure>>& other,
                               int64_t base_total) {
  std::vector<CompareItem> items;
  std::unordered_map<std::string, size_t> at;
  for (const auto& [key, fig] : base) {
    at[key] = items.size();
    CompareItem it;
    it.name = fig.display;
    it.base = fig;
    if (base_total > 0)
      it.base_share = 100.0 * static_cast<double>(fig.time_ns) / static_cast<double>(base_total);
    items.push_back(std::move(it));
  }
  for (const auto& [key, fig] : other) {
    auto f = at.find(key);
    if (f != at.end()) {
      items[f->second].other = fig;
      continue;
    }
    CompareItem it;
    it.name = fig.display;
    it.other = fig;
    items.push_back(std::move(it));
  }
  return items;
}

// `f`'s kernels keyed and named for matching: a name with at most one variant in each run
// by its name alone (a kernel rebuilt with other options or from a changed source is the
// kernel compared), else by its variant, named over the variants of both runs (a variant
// of which only one run has a sibling then says so in both). `variants`: the most variants a
// name has in one of the runs.
std::vector<std::pair<std::string, Figure>> matched_kernels(
    const RunFigures& f, const std::map<std::string, size_t>& variants,
    const std::map<KernelVariant, std::string>& labels) {
  auto out = f.kernels;
  for (auto& [key, fig] : out) {
    auto v = f.kernel_variants.find(key);
    if (v == f.kernel_variants.end()) continue;
    auto n = variants.find(v->second.name);
    if (n == variants.end() || n->second <= 1) {
      key = v->second.name;  // no '\0' in it: never a variant_key
      fig.display = v->second.name;
      continue;
    }
    auto name = labels.find(v->second);
    if (name != labels.end()) fig.display = name->second;
  }
  return out;
}

int64_t larger_time(const CompareItem& i) {
  return std::max(i.base ? i.base->time_ns : 0, i.other ? i.other->time_ns : 0);
}

void by_time(std::vector<CompareItem>& items) {
  std::stable_sort(items.begin(), items.end(), [](const CompareItem& a, const CompareItem& b) {
    const int64_t x = larger_time(a), y = larger_time(b);
    if (x != y) return x > y;
    return a.name < b.name;
  });
}

std::string unit_of(const RunFigures& base, const RunFigures& other) {
  if (base.iterations && other.iterations) return "per iteration";
  if (!base.iterations && !other.iterations) return "per run";
  return base.iterations ? "per iteration (base), per run (other)"
                         : "per run (base), per iteration (other)";
}

std::string plural(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

Comparison compare_runs(const RunFigures& base, const RunFigures& other) {
  Comparison c;
  c.base_label = base.label;
  c.other_label = other.label;
  c.base_iterations = base.iterations;
  c.other_iterations = other.iterations;
  c.base_total_ns = base.total_ns;
  c.other_total_ns = other.total_ns;
  for (const auto* f : advice::new_findings(base.advice, other.advice))
    c.new_findings.push_back(*f);
  const std::string unit = unit_of(base, other);
  std::set<KernelVariant> variants;
  std::map<std::string, size_t> most;  // name -> the most variants it has in one run
  for (const RunFigures* r : {&base, &other}) {
    std::map<std::string, size_t> here;
    for (const auto& [key, v] : r->kernel_variants) {
      variants.insert(v);
      most[v.name] = std::max(most[v.name], ++here[v.name]);
    }
  }
  const auto labels = variant_labels(variants);
  CompareSection kernels{Section::Kernels, unit,
                         match(matched_kernels(base, most, labels),
                               matched_kernels(other, most, labels), base.total_ns)};
  by_time(kernels.items);
  c.sections.push_back(std::move(kernels));
  c.sections.push_back(
      CompareSection{Section::Layers, unit, match(base.layers, other.layers, base.total_ns)});
  if (base.gemm_known && other.gemm_known) {
    CompareSection g{Section::Gemm, "per launch", {}};
    std::map<GemmShape, CompareItem> shapes;
    for (const auto& [shape, gf] : base.gemm) {
      auto& it = shapes[shape];
      it.name = gf.kernels;
      it.shape = shape;
      it.base = gf.figure;
    }
    for (const auto& [shape, gf] : other.gemm) {
      auto& it = shapes[shape];
      if (!it.base) it.name = gf.kernels;
      it.shape = shape;
      it.other = gf.figure;
    }
    // A shape's share of the base total: its launches x its per-launch time, per iteration
    // when the base has iterations (the total is then per iteration too).
    for (auto& [shape, it] : shapes) {
      if (it.base && base.total_ns > 0) {
        const double per = static_cast<double>(it.base->count) *
                           static_cast<double>(it.base->time_ns) /
                           static_cast<double>(base.iterations ? base.iterations : 1);
        it.base_share = 100.0 * per / static_cast<double>(base.total_ns);
      }
      g.items.push_back(std::move(it));
    }
    by_time(g.items);
    c.sections.push_back(std::move(g));
  }
  if ((base.iterations == 0) != (other.iterations == 0)) {
    const RunFigures& with = base.iterations ? base : other;
    const RunFigures& without = base.iterations ? other : base;
    c.notes.push_back(with.label + " has " + plural(with.iterations, "iteration", "iterations") +
                      " of '" + with.iteration_range + "', " + without.label +
                      " none: its times are per iteration, the other's per whole run.");
  }
  for (const RunFigures* r : {&base, &other})
    if (r->outside_iterations)
      c.notes.push_back(
          r->label + ": " + plural(r->outside_iterations, "timed launch", "timed launches") +
          " outside the selected iterations of '" + r->iteration_range + "' not compared.");
  return c;
}

std::vector<Offender> slower_than(const Comparison& c, double percent, double min_share) {
  std::vector<Offender> out;
  const auto over = [percent](std::optional<double> d) {
    return d && std::isfinite(*d) && *d > percent;
  };
  if (over(c.total_delta_percent()))
    out.push_back({"total", c.base_total_ns, c.other_total_ns, *c.total_delta_percent()});
  for (const auto& s : c.sections) {
    if (s.section != Section::Kernels) continue;
    for (const auto& it : s.items) {
      if (!it.base || !it.other || !it.base_share || *it.base_share < min_share) continue;
      if (over(it.delta_percent()))
        out.push_back(
            {"kernel " + it.name, it.base->time_ns, it.other->time_ns, *it.delta_percent()});
    }
  }
  return out;
}

}  // namespace clprof::analyses
