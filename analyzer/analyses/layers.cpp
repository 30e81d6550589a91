#include "analyses/layers.hpp"

#include <algorithm>
#include <climits>
#include <set>

#include "analyses/row_order.hpp"
#include "analyses/stats.hpp"

namespace clprof::analyses {

LayerKeys::LayerKeys(const model::Run& run) {
  const RangeIndex index(run);
  const size_t ranges = run.ranges.size() + run.folded_ranges.count();
  slots_.reserve(ranges + 1);
  instance_keys_.reserve(ranges + 1);
  slots_[0] = Slot{intern(std::string(kNoLayer), 0), 0};
  instance_keys_.push_back(slots_[0].key);
  auto add = [&](uint64_t id) {
    // A repeated id is the last range of that id, as RangeIndex has it.
    const Slot s{intern(index.path(id), 0), static_cast<uint32_t>(instance_keys_.size())};
    auto [it, fresh] = slots_.try_emplace(id, s);
    if (fresh)
      instance_keys_.push_back(s.key);
    else
      instance_keys_[it->second.instance] = s.key;
  };
  for (const auto& r : run.ranges) add(r.id);
  // Folded ranges (a streaming read's, by name only) are instances as well.
  run.folded_ranges.for_each([&](uint64_t id, uint64_t) { add(id); });
}

LayerKeys::LayerKeys(const model::Run& run, const Iterations& iterations) : by_iteration_(true) {
  const RangeIndex index(run);
  std::unordered_map<uint64_t, size_t> iteration_of_range;
  for (size_t i = 0; i < iterations.range_ids.size(); ++i)
    iteration_of_range[iterations.range_ids[i]] = i;
  for (const auto& r : run.ranges) {
    if (slots_.count(r.id)) continue;
    // The iteration containing the range (itself or an ancestor); bounded against a cycle.
    uint64_t at = r.id;
    for (size_t depth = 0; at != 0 && depth < 256; ++depth) {
      auto it = iteration_of_range.find(at);
      if (it != iteration_of_range.end()) {
        auto below = index.path_below(r.id, at);
        if (below) slots_[r.id] = Slot{intern(std::move(*below), it->second), 0};
        break;
      }
      const auto up = index.parent(at);
      if (!up) break;
      at = *up;
    }
  }
}

uint32_t LayerKeys::intern(std::string path, size_t iteration) {
  auto [it, fresh] =
      interned_.try_emplace({iteration, std::move(path)}, static_cast<uint32_t>(paths_.size()));
  if (fresh) {
    paths_.push_back(&it->first.second);
    iterations_.push_back(static_cast<uint32_t>(iteration));
  }
  return it->second;
}

const LayerKeys::Slot* LayerKeys::find(uint64_t range_id) const {
  auto it = slots_.find(range_id);
  return it == slots_.end() ? nullptr : &it->second;
}

LayerCeilingError::LayerCeilingError()
    : std::runtime_error(
          "layers: more than " + std::to_string(kMaxLayerBuckets) +
          " layers (distinct range paths with launches; --per-iteration: layers of all "
          "iterations; --by: in one group), the ceiling that bounds its memory. Range names that "
          "differ per instance (a numbered iteration) make one layer per instance: select fewer "
          "with --filter, --iteration or --time-window (docs/performance.md, memory ceilings)") {}

template <typename Map, typename K>
LayersAnalysis::Bucket* LayersAnalysis::bucket(Map& map, const K& key) {
  auto it = map.find(key);
  if (it != map.end()) return &it->second;
  if (buckets_.size() + key_buckets_.size() >= kMaxLayerBuckets) throw LayerCeilingError();
  return &map[key];
}

void LayersAnalysis::add_launch(const model::Launch& launch) {
  if (keep_ && !keep_(launch)) return;
  const uint64_t range = innermost_range(launch);
  const LayerKeys::Slot* slot = keys_ ? keys_->find(range) : nullptr;
  if (keys_ && !slot && keys_->by_iteration()) return;  // outside every iteration
  Bucket* b = slot ? bucket(key_buckets_, slot->key) : bucket(buckets_, range);
  b->kernels[{launch.name, launch.process, launch.program_id}].add(launch);
  b->first_order = std::min(b->first_order, launch_order(launch));
  if (!slot || keys_->by_iteration()) return;
  if (instance_ns_.empty()) {
    instance_ns_.assign(keys_->instances(), 0);
    instance_seen_.assign(keys_->instances(), 0);
  }
  instance_seen_[slot->instance] = 1;
  if (auto d = launch.duration_ns()) add_to(instance_ns_[slot->instance], *d);
}

void LayersAnalysis::merge(Analysis&& other) {
  auto& o = dynamic_cast<LayersAnalysis&>(other);
  auto absorb = [this](auto& into, auto& from) {
    for (auto& [id, ob] : from) {
      Bucket* b = bucket(into, id);
      for (auto& [name, acc] : ob.kernels) b->kernels[name].merge(std::move(acc));
      b->first_order = std::min(b->first_order, ob.first_order);
    }
    from.clear();
  };
  absorb(buckets_, o.buckets_);
  absorb(key_buckets_, o.key_buckets_);
  if (instance_ns_.empty()) {
    instance_ns_ = std::move(o.instance_ns_);
    instance_seen_ = std::move(o.instance_seen_);
  } else {
    for (size_t i = 0; i < o.instance_ns_.size() && i < instance_ns_.size(); ++i) {
      add_to(instance_ns_[i], o.instance_ns_[i]);
      instance_seen_[i] |= o.instance_seen_[i];
    }
  }
}

namespace {

// The row names of every variant in `analysis`'s buckets.
std::map<KernelVariant, std::string> variant_labels_of(const LayersAnalysis& analysis,
                                                       const ProgramVariants& programs) {
  std::set<KernelVariant> all;
  for (const auto& [id, b] : analysis.buckets())
    for (const auto& [k, acc] : b.kernels) all.insert(programs.of(k));
  for (const auto& [key, b] : analysis.key_buckets())
    for (const auto& [k, acc] : b.kernels) all.insert(programs.of(k));
  return variant_labels(all);
}

}  // namespace

LayerGroups layer_groups(const LayersAnalysis& analysis, const model::Run& run) {
  const RangeIndex index(run);
  const ProgramVariants programs(run);
  LayerGroups groups;
  auto absorb = [&programs](LayerGroup& g, const LayersAnalysis::Bucket& b) {
    g.first_order = std::min(g.first_order, b.first_order);
    add_variants(b.kernels, programs, g.kernels);
  };
  // Buckets are visited in a fixed order so that the merged duration vectors (and thus
  // nothing observable, but also debugging output) do not depend on hash order.
  std::vector<uint64_t> ids;
  for (const auto& [id, b] : analysis.buckets()) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  for (uint64_t id : ids) {  // each one range instance
    const auto& b = analysis.buckets().at(id);
    auto& g = groups[index.path(id)];
    g.instance_totals.push_back(total_kernel_ns(b.kernels));
    absorb(g, b);
  }
  if (const LayerKeys* keys = analysis.keys()) {
    std::vector<uint32_t> key_ids;
    for (const auto& [key, b] : analysis.key_buckets()) key_ids.push_back(key);
    std::sort(key_ids.begin(), key_ids.end());
    std::unordered_map<uint32_t, LayerGroup*> group_of_key;
    for (uint32_t key : key_ids) {
      auto& g = groups[keys->path(key)];
      group_of_key[key] = &g;
      absorb(g, analysis.key_buckets().at(key));
    }
    const auto& seen = analysis.instance_seen();
    for (size_t i = 0; i < seen.size(); ++i) {
      if (!seen[i]) continue;
      auto it = group_of_key.find(keys->instance_key(static_cast<uint32_t>(i)));
      if (it == group_of_key.end()) continue;
      it->second->instance_totals.push_back(analysis.instance_ns()[i]);
    }
  }
  return groups;
}

std::vector<LayerRow> layer_rows(LayerGroups groups, const Speedup* speedup) {
  // Each variant's row name, over every layer (a variant has one name in all of them).
  std::set<KernelVariant> all;
  for (const auto& [path, g] : groups)
    for (const auto& [v, acc] : g.kernels) all.insert(v);
  const auto labels = variant_labels(all);
  int64_t grand_total = 0;
  for (const auto& [path, g] : groups)
    for (int64_t t : g.instance_totals) add_to(grand_total, t);
  std::vector<LayerRow> rows;
  for (auto& [path, g] : groups) {
    LayerRow r;
    r.layer = path;
    r.kernels = make_kernel_rows(by_row_name(std::move(g.kernels), labels), grand_total, speedup);
    for (const auto& k : r.kernels) {
      r.count += k.stats.count;
      add_to(r.total_ns, k.stats.total_ns);
      if (k.est_total_ns) r.est_total_ns = add_ns(r.est_total_ns.value_or(0), *k.est_total_ns);
    }
    if (grand_total > 0) r.percent = 100.0 * static_cast<double>(r.total_ns) / grand_total;
    r.instances = g.instance_totals.size();
    auto s = compute_stats(g.instance_totals);
    r.instance_median_ns = s.median_ns;
    r.instance_min_ns = s.min_ns;
    r.instance_max_ns = s.max_ns;
    r.first_order = g.first_order;
    rows.push_back(std::move(r));
  }
  sort_layer_rows(rows, "order");
  return rows;
}

std::vector<LayerRow> layer_rows(const LayersAnalysis& analysis, const model::Run& run,
                                 const Speedup* speedup) {
  return layer_rows(layer_groups(analysis, run), speedup);
}

bool sort_layer_rows(std::vector<LayerRow>& rows, const std::string& field_in) {
  std::string field = field_in;
  if (field.size() > 3 && field.compare(field.size() - 3, 3, "_ns") == 0)
    field.resize(field.size() - 3);
  if (field == "order") {
    std::stable_sort(rows.begin(), rows.end(), [](const LayerRow& a, const LayerRow& b) {
      return a.first_order < b.first_order;
    });
    return true;
  }
  if (field == "layer" || field == "name") {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const LayerRow& a, const LayerRow& b) { return a.layer < b.layer; });
    return true;
  }
  int64_t (*key)(const LayerRow&) = nullptr;
  if (field == "count")
    key = [](const LayerRow& r) { return static_cast<int64_t>(r.count); };
  else if (field == "total" || field == "percent")
    key = [](const LayerRow& r) { return r.total_ns; };
  else if (field == "instances" || field == "iterations")
    key = [](const LayerRow& r) { return static_cast<int64_t>(r.instances); };
  else if (field == "median")
    key = [](const LayerRow& r) { return r.instance_median_ns; };
  else if (field == "min")
    key = [](const LayerRow& r) { return r.instance_min_ns; };
  else if (field == "max")
    key = [](const LayerRow& r) { return r.instance_max_ns; };
  else if (field == "est_total")
    key = [](const LayerRow& r) { return r.est_total_ns.value_or(r.total_ns); };
  else
    return false;
  sort_by_key_descending(rows, key,
                         [](const LayerRow& r) -> const std::string& { return r.layer; });
  return true;
}

std::unordered_set<uint64_t> ranges_holding_launches(const LayersAnalysis& analysis,
                                                     const model::Run& run) {
  const RangeIndex index(run);
  std::unordered_set<uint64_t> out;
  for (const auto& [id, bucket] : analysis.buckets()) {
    if (bucket.kernels.empty()) continue;
    uint64_t at = id;
    // Upward until a range already in the set (its ancestors are then too); bounded
    // against a cycle in a damaged input.
    for (size_t depth = 0; at != 0 && depth < 256 && out.insert(at).second; ++depth) {
      const auto up = index.parent(at);
      if (!up) break;
      at = *up;
    }
  }
  return out;
}

std::vector<IterationDetail> iteration_details(const LayersAnalysis& analysis,
                                               const model::Run& run,
                                               const Iterations& iterations) {
  const RangeIndex index(run);
  const ProgramVariants programs(run);
  const auto labels = variant_labels_of(analysis, programs);
  std::unordered_map<uint64_t, size_t> iteration_of_range;  // iteration range id -> index
  for (size_t i = 0; i < iterations.range_ids.size(); ++i)
    iteration_of_range[iterations.range_ids[i]] = i;
  // The iteration containing range `id` (itself or an ancestor): one upward walk per range,
  // so the cost is linear in ranges + buckets, not iterations x ranges.
  auto iteration_containing = [&](uint64_t id) -> std::optional<size_t> {
    for (size_t depth = 0; id != 0 && depth < 256; ++depth) {
      auto it = iteration_of_range.find(id);
      if (it != iteration_of_range.end()) return it->second;
      const auto up = index.parent(id);
      if (!up) return std::nullopt;
      id = *up;
    }
    return std::nullopt;
  };
  struct LayerAcc {
    uint64_t first_order = UINT64_MAX;
    int64_t host_begin = INT64_MAX;  // earliest host begin of its ranges
    bool host_known = true;
    std::map<std::string, std::pair<uint64_t, IterationDetail::Kernel>> kernels;
  };
  std::vector<std::map<std::string, LayerAcc>> layers(iterations.range_ids.size());
  auto note_range = [&](LayerAcc& la, uint64_t id) {
    const model::Range* r = index.find(id);
    if (r && r->host_begin_ns != model::kNoTime)
      la.host_begin = std::min(la.host_begin, r->host_begin_ns);
    else
      la.host_known = false;
  };
  // Every range below an iteration is listed, with or without kernels (as vison lists Arm
  // NN's "Working Memory Allocation" workloads).
  for (const auto& r : run.ranges) {
    if (iteration_of_range.count(r.id)) continue;
    auto i = iteration_containing(r.id);
    if (!i) continue;
    auto below = index.path_below(r.id, iterations.range_ids[*i]);
    if (below) note_range(layers[*i][*below], r.id);
  }
  auto absorb = [&](LayerAcc& la, const LayersAnalysis::Bucket& b) {
    la.first_order = std::min(la.first_order, b.first_order);
    for (const auto& [pk, acc] : b.kernels) {
      KernelVariant variant = programs.of(pk);
      const std::string& name = labels.at(variant);
      auto& [order, k] = la.kernels[name];
      if (k.name.empty()) order = UINT64_MAX;
      order = std::min(order, acc.first_order);
      k.name = name;
      k.variant = std::move(variant);
      k.count += acc.durations_ns.size();
      add_to(k.total_ns, acc.durations_ns.total_ns());
    }
  };
  for (const auto& [id, b] : analysis.buckets()) {
    auto i = iteration_containing(id);
    if (!i) continue;
    auto below = index.path_below(id, iterations.range_ids[*i]);
    if (!below) continue;
    auto& la = layers[*i][*below];
    if (below->empty()) note_range(la, id);
    absorb(la, b);
  }
  // Keys by iteration (LayerKeys made from these iterations): the bucket is the layer.
  const LayerKeys* keys = analysis.keys();
  for (const auto& [key, b] : analysis.key_buckets()) {
    if (!keys || !keys->by_iteration()) break;
    const size_t i = keys->iteration(key);
    if (i >= layers.size()) continue;
    auto& la = layers[i][keys->path(key)];
    if (keys->path(key).empty()) note_range(la, iterations.range_ids[i]);
    absorb(la, b);
  }
  // Per process, the k-th iteration instance gets the k-th importer wall time.
  std::map<uint32_t, size_t> seen_per_process;
  std::vector<IterationDetail> out;
  for (size_t i = 0; i < iterations.range_ids.size(); ++i) {
    IterationDetail d;
    d.index = i + 1;
    d.range_id = iterations.range_ids[i];
    const model::Range* r = index.find(d.range_id);
    if (r) d.process = r->process;
    const size_t nth = seen_per_process[d.process]++;
    if (d.process < run.processes.size() &&
        nth < run.processes[d.process].iteration_wall_ns.size()) {
      d.wall_ns = run.processes[d.process].iteration_wall_ns[nth];
    } else if (r && r->host_begin_ns != model::kNoTime && r->host_end_ns != model::kNoTime) {
      d.wall_ns = sub_ns(r->host_end_ns, r->host_begin_ns);
    }
    std::map<std::string, IterationDetail::Kernel> totals;
    // Execution order: by host begin when every layer has one (this also places layers
    // without kernels), else by first launch (layers without kernels last).
    bool by_host = true;
    for (const auto& [path, la] : layers[i]) by_host &= la.host_known && la.host_begin != INT64_MAX;
    std::vector<std::pair<std::pair<int64_t, uint64_t>, IterationDetail::Layer>> ordered;
    for (auto& [path, la] : layers[i]) {
      IterationDetail::Layer l;
      l.layer = path;
      std::vector<std::pair<uint64_t, IterationDetail::Kernel>> ks;
      for (auto& [name, ok] : la.kernels) ks.push_back(ok);
      std::stable_sort(ks.begin(), ks.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (auto& [order, k] : ks) {
        l.count += k.count;
        add_to(l.total_ns, k.total_ns);
        auto& t = totals[k.name];
        t.name = k.name;
        t.variant = k.variant;
        t.count += k.count;
        add_to(t.total_ns, k.total_ns);
        l.kernels.push_back(k);
      }
      add_to(d.kernel_ns, l.total_ns);
      const auto key = by_host ? std::make_pair(la.host_begin, la.first_order)
                               : std::make_pair(int64_t{0}, la.first_order);
      ordered.emplace_back(key, std::move(l));
    }
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    const auto share = [&d](int64_t ns) -> std::optional<double> {
      if (d.kernel_ns <= 0) return std::nullopt;
      return 100.0 * static_cast<double>(ns) / static_cast<double>(d.kernel_ns);
    };
    for (auto& [o, l] : ordered) {
      if (!l.kernels.empty()) l.percent = share(l.total_ns);
      for (auto& k : l.kernels) k.percent = share(k.total_ns);
      d.layers.push_back(std::move(l));
    }
    for (auto& [name, k] : totals) {
      if (d.kernel_ns > 0) k.percent = 100.0 * static_cast<double>(k.total_ns) / d.kernel_ns;
      d.kernels.push_back(k);
    }
    std::stable_sort(d.kernels.begin(), d.kernels.end(), [](const auto& a, const auto& b) {
      if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
      return a.name < b.name;
    });
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<LayerTimingRow> layer_timing_rows(const model::Run& run) {
  std::map<std::pair<std::string, std::string>, std::pair<size_t, std::vector<int64_t>>> groups;
  size_t order = 0;
  for (const auto& t : run.layer_timings) {
    auto [it, fresh] = groups.try_emplace({t.layer, t.direction}, order, std::vector<int64_t>{});
    if (fresh) ++order;
    it->second.second.push_back(t.time_ns);
  }
  std::vector<std::pair<size_t, LayerTimingRow>> rows;
  for (auto& [key, v] : groups) {
    LayerTimingRow r;
    r.layer = key.first;
    r.direction = key.second;
    r.stats = compute_stats(v.second);
    rows.emplace_back(v.first, std::move(r));
  }
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<LayerTimingRow> out;
  for (auto& [o, r] : rows) out.push_back(std::move(r));
  return out;
}

std::vector<LayerRow> timing_layer_rows(const model::Run& run) {
  std::vector<LayerRow> rows;
  int64_t grand_total = 0;
  for (auto& t : layer_timing_rows(run)) {
    LayerRow r;
    r.layer = t.layer;
    r.direction = t.direction;
    r.timing_only = true;
    r.total_ns = t.stats.total_ns;
    r.instances = t.stats.count;
    r.instance_median_ns = t.stats.median_ns;
    r.instance_min_ns = t.stats.min_ns;
    r.instance_max_ns = t.stats.max_ns;
    add_to(grand_total, t.stats.total_ns);
    rows.push_back(std::move(r));
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].first_order = i;
    if (grand_total > 0)
      rows[i].percent = 100.0 * static_cast<double>(rows[i].total_ns) / grand_total;
  }
  return rows;
}

std::vector<IterationDetail> select_details(std::vector<IterationDetail> details,
                                            const std::unordered_set<uint64_t>* selection) {
  if (!selection) return details;
  std::vector<IterationDetail> kept;
  for (auto& d : details)
    if (selection->count(d.range_id)) kept.push_back(std::move(d));
  return kept;
}

}  // namespace clprof::analyses
