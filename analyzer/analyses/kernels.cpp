#include "analyses/kernels.hpp"

#include <algorithm>
#include <set>

#include "analyses/row_order.hpp"
#include "analyses/stats.hpp"

namespace clprof::analyses {

void KernelAccumulator::add(const model::Launch& l) {
  const uint64_t order = launch_order(l);
  const auto d = l.duration_ns();
  if (order < first_order) {
    first_order = order;
    first_ns = d;
  }
  if (d) {
    durations_ns.add(*d);
  } else {
    ++untimed;
  }
  using model::kNoTime;
  if (l.queued_ns != kNoTime && l.submit_ns != kNoTime && l.submit_ns >= l.queued_ns) {
    add_to(queued_to_submit_ns, sub_ns(l.submit_ns, l.queued_ns));
    ++queued_to_submit_known;
  }
  if (l.submit_ns != kNoTime && l.start_ns != kNoTime && l.start_ns >= l.submit_ns) {
    add_to(submit_to_start_ns, sub_ns(l.start_ns, l.submit_ns));
    ++submit_to_start_known;
  }
  if (l.host_begin_ns != kNoTime && l.host_end_ns != kNoTime && l.host_end_ns >= l.host_begin_ns) {
    add_to(enqueue_ns, sub_ns(l.host_end_ns, l.host_begin_ns));
    ++enqueue_known;
  }
}

void KernelAccumulator::merge(KernelAccumulator&& o) {
  durations_ns.merge(std::move(o.durations_ns));
  untimed += o.untimed;
  add_to(queued_to_submit_ns, o.queued_to_submit_ns);
  add_to(submit_to_start_ns, o.submit_to_start_ns);
  add_to(enqueue_ns, o.enqueue_ns);
  queued_to_submit_known += o.queued_to_submit_known;
  submit_to_start_known += o.submit_to_start_known;
  enqueue_known += o.enqueue_known;
  if (o.first_order < first_order) {
    first_order = o.first_order;
    first_ns = o.first_ns;
  }
}

void add_variants(const ProgramKernels& kernels, const ProgramVariants& variants,
                  VariantKernels& into) {
  for (const auto& [key, acc] : kernels) {
    KernelAccumulator copy = acc;
    into[variants.of(key)].merge(std::move(copy));
  }
}

std::map<KernelVariant, std::string> labels_of(const VariantKernels& kernels) {
  std::set<KernelVariant> all;
  for (const auto& [v, acc] : kernels) all.insert(all.end(), v);
  return variant_labels(all);
}

NamedKernels by_row_name(VariantKernels&& kernels,
                         const std::map<KernelVariant, std::string>& labels) {
  NamedKernels out;
  for (auto& [v, acc] : kernels) out[labels.at(v)].merge(std::move(acc));
  kernels.clear();
  return out;
}

std::vector<KernelRow> make_kernel_rows(NamedKernels accumulators, int64_t percent_base_ns,
                                        const Speedup* speedup) {
  std::vector<KernelRow> rows;
  rows.reserve(accumulators.size());
  for (auto& [name, acc] : accumulators) {
    KernelRow r;
    r.name = name;
    r.stats = acc.durations_ns.stats();
    if (percent_base_ns > 0)
      r.percent =
          100.0 * static_cast<double>(r.stats.total_ns) / static_cast<double>(percent_base_ns);
    r.untimed = acc.untimed;
    if (acc.queued_to_submit_known) r.queued_to_submit_ns = acc.queued_to_submit_ns;
    if (acc.submit_to_start_known) r.submit_to_start_ns = acc.submit_to_start_ns;
    if (acc.enqueue_known) r.enqueue_ns = acc.enqueue_ns;
    r.first_order = acc.first_order;
    r.first_ns = acc.first_ns;
    if (speedup && !speedup->empty()) r.est_total_ns = speedup->estimate_ns(name, r.stats.total_ns);
    rows.push_back(std::move(r));
  }
  sort_kernel_rows(rows, "total");
  return rows;
}

std::vector<const KernelRow*> first_launch_dominates(const std::vector<KernelRow>& rows,
                                                     int64_t total_ns) {
  std::vector<const KernelRow*> out;
  for (const auto& r : rows) {
    if (r.stats.count < 2 || !r.first_ns || total_ns <= 0) continue;
    // The median of the others: the row's median includes the first launch, which is at
    // most one of the middle values; with 2 launches the other one is total - first.
    const int64_t others = r.stats.count == 2 ? r.stats.total_ns - *r.first_ns : r.stats.median_ns;
    // In 128 bits: ten times a duration near the 64-bit cap must not wrap (UBSan found it).
    const __int128 first = *r.first_ns;
    if (first > 10 * static_cast<__int128>(std::max<int64_t>(others, 0)) && 10 * first > total_ns)
      out.push_back(&r);
  }
  return out;
}

void KernelsAnalysis::add_launch(const model::Launch& launch) {
  if (keep_ && !keep_(launch)) return;
  kernels_[{launch.name, launch.process, launch.program_id}].add(launch);
}

void KernelsAnalysis::merge(Analysis&& other) {
  auto& o = dynamic_cast<KernelsAnalysis&>(other);
  for (auto& [name, acc] : o.kernels_) kernels_[name].merge(std::move(acc));
  o.kernels_.clear();
}

VariantKernels KernelsAnalysis::variants(const model::Run& run) const {
  VariantKernels out;
  add_variants(kernels_, ProgramVariants(run), out);
  return out;
}

NamedKernels KernelsAnalysis::named(const model::Run& run) const {
  VariantKernels v = variants(run);
  const auto labels = labels_of(v);
  return by_row_name(std::move(v), labels);
}

std::vector<KernelRow> KernelsAnalysis::rows(const model::Run& run, const Speedup* speedup) const {
  return make_kernel_rows(named(run), total_kernel_ns(kernels_), speedup);
}

bool sort_kernel_rows(std::vector<KernelRow>& rows, const std::string& field_in) {
  std::string field = field_in;
  if (field.size() > 3 && field.compare(field.size() - 3, 3, "_ns") == 0)
    field.resize(field.size() - 3);
  if (field == "name" || field == "kernel") {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const KernelRow& a, const KernelRow& b) { return a.name < b.name; });
    return true;
  }
  if (field == "order" || field == "first") {
    std::stable_sort(rows.begin(), rows.end(), [](const KernelRow& a, const KernelRow& b) {
      return a.first_order < b.first_order;
    });
    return true;
  }
  int64_t (*key)(const KernelRow&) = nullptr;
  if (field == "count")
    key = [](const KernelRow& r) { return static_cast<int64_t>(r.stats.count); };
  else if (field == "total" || field == "percent")
    key = [](const KernelRow& r) { return r.stats.total_ns; };
  else if (field == "mean")
    key = [](const KernelRow& r) { return r.stats.mean_ns; };
  else if (field == "median")
    key = [](const KernelRow& r) { return r.stats.median_ns; };
  else if (field == "min")
    key = [](const KernelRow& r) { return r.stats.min_ns; };
  else if (field == "max")
    key = [](const KernelRow& r) { return r.stats.max_ns; };
  else if (field == "stddev")
    key = [](const KernelRow& r) { return r.stats.stddev_ns; };
  else if (field == "est_total")
    key = [](const KernelRow& r) { return r.est_total_ns.value_or(r.stats.total_ns); };
  else if (field == "enqueue")
    key = [](const KernelRow& r) { return r.enqueue_ns.value_or(-1); };
  else
    return false;
  sort_by_key_descending(rows, key,
                         [](const KernelRow& r) -> const std::string& { return r.name; });
  return true;
}

}  // namespace clprof::analyses
