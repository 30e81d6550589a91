#include "analyses/grouping.hpp"
#include "analyses/stats.hpp"

#include <set>
#include <stdexcept>

namespace clprof::analyses {

namespace {

constexpr std::pair<GroupBy, std::string_view> kNames[] = {
    {GroupBy::Queue, "queue"},   {GroupBy::Thread, "thread"}, {GroupBy::Process, "process"},
    {GroupBy::Device, "device"}, {GroupBy::Layer, "layer"},   {GroupBy::Program, "program"},
};

std::string basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

const std::vector<GroupBy>& launch_groupings() {
  static const std::vector<GroupBy> g = {GroupBy::Queue, GroupBy::Thread, GroupBy::Process,
                                         GroupBy::Device, GroupBy::Program};
  return g;
}

const std::vector<GroupBy>& transfer_groupings() {
  static const std::vector<GroupBy> g = {GroupBy::Layer, GroupBy::Queue, GroupBy::Thread,
                                         GroupBy::Process, GroupBy::Device};
  return g;
}

const std::vector<GroupBy>& api_groupings() {
  static const std::vector<GroupBy> g = {GroupBy::Thread, GroupBy::Process};
  return g;
}

std::string_view group_by_name(GroupBy by) {
  for (const auto& [b, name] : kNames)
    if (b == by) return name;
  return "";
}

GroupBy parse_group_by(std::string_view text, const std::vector<GroupBy>& allowed) {
  std::string list;
  for (GroupBy b : allowed) {
    if (group_by_name(b) == text) return b;
    list += (list.empty() ? "" : ", ") + std::string(group_by_name(b));
  }
  throw std::invalid_argument("unknown grouping '" + std::string(text) + "' (" + list + ")");
}

GroupKey group_key(GroupBy by, uint32_t process, uint64_t tid) {
  switch (by) {
    case GroupBy::Thread:
      return {process, tid};
    case GroupBy::Process:
      return {process, 0};
    default:
      return {};
  }
}

GroupKey group_key(GroupBy by, const model::Launch& l) {
  switch (by) {
    case GroupBy::Queue:
      return {l.process, l.queue_id};
    case GroupBy::Device:
      return {0, l.device};
    case GroupBy::Layer:
      return {0, innermost_range(l)};
    case GroupBy::Program:
      return {l.process, l.program_id};
    default:
      return group_key(by, l.process, l.tid);
  }
}

GroupKey group_key(GroupBy by, const model::Transfer& t) {
  switch (by) {
    case GroupBy::Queue:
      return {t.process, t.queue_id};
    case GroupBy::Device:
      return {0, t.device};
    case GroupBy::Layer:
      return {0, t.ranges.empty() ? 0 : t.ranges.back()};
    default:
      return group_key(by, t.process, t.tid);
  }
}

GroupLabels::GroupLabels(const model::Run& run, GroupBy by,
                         const std::map<GroupKey, uint32_t>* queue_devices)
    : run_(run),
      by_(by),
      ranges_(run),
      several_processes_(run.processes.size() > 1),
      queue_devices_(queue_devices) {}

std::string GroupLabels::operator()(const GroupKey& k) const {
  const auto pid = [&]() -> std::string {
    if (k.process >= run_.processes.size()) return "process " + std::to_string(k.process);
    return "pid " + std::to_string(run_.processes[k.process].pid);
  };
  const auto device_name = [&](uint32_t id) -> std::string {
    if (id == 0 || id > run_.devices.size()) return "";
    const std::string& name = run_.devices[id - 1].name;
    if (name.empty()) return "device " + std::to_string(id);
    for (const auto& d : run_.devices)
      if (d.id != id && d.name == name) return name + " #" + std::to_string(id);
    return name;
  };
  const std::string in_process = several_processes_ ? pid() + " " : "";
  switch (by_) {
    case GroupBy::Queue: {
      if (k.id == 0) return in_process + "(unknown queue)";
      uint32_t device = 0;
      if (queue_devices_) {
        auto it = queue_devices_->find(k);
        if (it != queue_devices_->end()) device = it->second;
      }
      const std::string d = device_name(device);
      return in_process + "queue " + std::to_string(k.id) + (d.empty() ? "" : " (" + d + ")");
    }
    case GroupBy::Thread:
      return in_process + (k.id == 0 ? "(unknown thread)" : "tid " + std::to_string(k.id));
    case GroupBy::Process: {
      std::string label = pid();
      if (k.process < run_.processes.size() && !run_.processes[k.process].command_line.empty())
        label += " (" + basename(run_.processes[k.process].command_line.front()) + ")";
      return label;
    }
    case GroupBy::Device: {
      const std::string d = device_name(static_cast<uint32_t>(k.id));
      return d.empty() ? "(unknown device)" : d;
    }
    case GroupBy::Layer:
      return ranges_.path(k.id);
    case GroupBy::Program: {
      if (k.id == 0) return in_process + "(unknown program)";
      std::string label = in_process + "program " + std::to_string(k.id);
      for (const auto& p : run_.programs)
        if (p.process == k.process && p.id == k.id && !p.options.empty())
          return label + " [" + p.options + "]";
      return label;
    }
    case GroupBy::None:
      break;
  }
  return "";
}

void GroupedAnalysis::add_launch(const model::Launch& l) {
  const GroupKey key = group_key(by_, l);
  if (l.device) devices_.try_emplace(key, l.device);
  group(key).add_launch(l);
}

void GroupedAnalysis::add_transfer(const model::Transfer& t) {
  const GroupKey key = group_key(by_, t);
  if (t.device) devices_.try_emplace(key, t.device);
  group(key).add_transfer(t);
}

Analysis& GroupedAnalysis::group(const GroupKey& key) {
  auto it = groups_.find(key);
  if (it == groups_.end()) it = groups_.emplace(key, make_()).first;
  return *it->second;
}

void GroupedAnalysis::merge(Analysis&& other) {
  auto& o = dynamic_cast<GroupedAnalysis&>(other);
  for (auto& [key, a] : o.groups_) {
    auto it = groups_.find(key);
    if (it == groups_.end())
      groups_.emplace(key, std::move(a));
    else
      it->second->merge(std::move(*a));
  }
  o.groups_.clear();
  devices_.insert(o.devices_.begin(), o.devices_.end());
}

std::vector<KernelRow> grouped_kernel_rows(const GroupedAnalysis& a, const GroupLabels& labels,
                                           const model::Run& run, const Speedup* speedup,
                                           int64_t& total_ns, uint64_t& kernels) {
  total_ns = 0;
  // Variants are named over every group, so that one variant has one name in all of them.
  const ProgramVariants programs(run);
  std::vector<VariantKernels> per_group;
  VariantKernels all;
  for (const auto& [key, g] : a.groups()) {
    const auto& k = static_cast<const KernelsAnalysis&>(*g);
    add_to(total_ns, total_kernel_ns(k.accumulators()));
    per_group.emplace_back();
    add_variants(k.accumulators(), programs, per_group.back());
    for (const auto& [v, acc] : per_group.back()) all[v];
  }
  // By program, a group holds one program: its label says which, the kernels keep their names.
  auto names = labels_of(all);
  if (a.by() == GroupBy::Program)
    for (auto& [v, name] : names) name = v.name;
  kernels = names.size();
  std::vector<KernelRow> rows;
  size_t i = 0;
  for (const auto& [key, g] : a.groups()) {
    const std::string label = labels(key);
    for (auto& r :
         make_kernel_rows(by_row_name(std::move(per_group[i++]), names), total_ns, speedup)) {
      r.group = label;
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

std::unique_ptr<Analysis> maybe_grouped(GroupBy by, GroupedAnalysis::Make make) {
  if (by == GroupBy::None) return make();
  return std::make_unique<GroupedAnalysis>(by, std::move(make));
}

KernelTable kernel_table(const Analysis& analysis, GroupBy by, const model::Run& run,
                         const Speedup* speedup) {
  KernelTable t;
  if (by == GroupBy::None) {
    const auto& a = static_cast<const KernelsAnalysis&>(analysis);
    t.rows = a.rows(run, speedup);
    t.total_ns = total_kernel_ns(a.accumulators());
    t.kernels = t.rows.size();
  } else {
    const auto& g = static_cast<const GroupedAnalysis&>(analysis);
    t.rows = grouped_kernel_rows(g, GroupLabels(run, by, &g.devices()), run, speedup, t.total_ns,
                                 t.kernels);
  }
  if (speedup) {
    t.estimated_total_ns = 0;
    for (const auto& k : t.rows) *t.estimated_total_ns += k.est_total_ns.value_or(k.stats.total_ns);
  }
  return t;
}

std::vector<LayerRow> grouped_layer_rows(const GroupedAnalysis& a, const GroupLabels& labels,
                                         const model::Run& run, const Speedup* speedup) {
  std::vector<LayerRow> rows;
  int64_t total = 0;
  for (const auto& [key, g] : a.groups()) {
    const std::string label = labels(key);
    for (auto& r : layer_rows(static_cast<const LayersAnalysis&>(*g), run, speedup)) {
      add_to(total, r.total_ns);
      r.group = label;
      rows.push_back(std::move(r));
    }
  }
  // layer_rows gave shares of each group's total; the shares are of the whole selection.
  auto share = [total](int64_t t) -> std::optional<double> {
    if (total <= 0) return std::nullopt;
    return 100.0 * static_cast<double>(t) / static_cast<double>(total);
  };
  for (auto& r : rows) {
    r.percent = share(r.total_ns);
    for (auto& k : r.kernels) k.percent = share(k.stats.total_ns);
  }
  return rows;
}

std::vector<TransferRow> grouped_transfer_rows(const GroupedAnalysis& a, const GroupLabels& labels,
                                               const model::Run& run) {
  std::vector<TransferRow> rows;
  for (const auto& [key, g] : a.groups()) {
    const std::string label = labels(key);
    for (auto& r : transfer_rows(static_cast<const TransfersAnalysis&>(*g), run)) {
      r.group = label;
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

}  // namespace clprof::analyses
