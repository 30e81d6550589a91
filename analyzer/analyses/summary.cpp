#include "analyses/summary.hpp"

#include <algorithm>
#include <stdexcept>

#include "analyses/stats.hpp"
#include "analyses/transfers.hpp"

namespace clprof::analyses {

using model::kNoTime;

namespace {

// Widens spans[process] to [begin, end] (either kNoTime: the other alone).
void extend_span(std::map<uint32_t, std::pair<int64_t, int64_t>>& spans, uint32_t process,
                 int64_t begin, int64_t end) {
  if (begin == kNoTime && end == kNoTime) return;
  if (begin == kNoTime) begin = end;
  if (end == kNoTime) end = begin;
  auto [it, fresh] = spans.try_emplace(process, begin, end);
  if (!fresh) {
    it->second.first = std::min(it->second.first, begin);
    it->second.second = std::max(it->second.second, end);
  }
}

}  // namespace

void SummaryAnalysis::PerDevice::add(PerDevice&& o) {
  launches += o.launches;
  add_to(kernel_ns, o.kernel_ns);
  intervals.merge(std::move(o.intervals));
  add_to(union_ns, o.union_ns);
  add_to(busy_extra_ns, o.busy_extra_ns);
  transfers += o.transfers;
  add_to(transfer_bytes, o.transfer_bytes);
  add_to(mapped_bytes, o.mapped_bytes);
  add_to(transfer_ns, o.transfer_ns);
  add_to(timed_moved_bytes, o.timed_moved_bytes);
  add_to(timed_moved_ns, o.timed_moved_ns);
}

void SummaryAnalysis::extend(uint32_t process, int64_t begin, int64_t end) {
  extend_span(spans_, process, begin, end);
}

void SummaryAnalysis::add_launch(const model::Launch& l) {
  auto& d = devices_[l.device];
  ++d.launches;
  auto& on = names_[l.name];
  if (std::find(on.begin(), on.end(), l.device) == on.end()) on.push_back(l.device);
  if (auto t = l.duration_ns()) {
    add_to(d.kernel_ns, *t);
    if (l.has_device_times() && !l.duration_override_ns) {
      d.intervals.add(l.start_ns, l.end_ns);  // duration_ns(): end >= start
    } else
      add_to(d.busy_extra_ns, *t);
  }
  extend(l.process, l.host_begin_ns, l.host_end_ns);
}

void SummaryAnalysis::add_transfer(const model::Transfer& t) {
  auto& d = devices_[t.device];
  ++d.transfers;
  const bool map = is_map(t.op);
  add_to(map ? d.mapped_bytes : d.transfer_bytes, t.bytes);
  if (t.start_ns != kNoTime && t.end_ns != kNoTime && t.end_ns >= t.start_ns) {
    add_to(d.transfer_ns, sub_ns(t.end_ns, t.start_ns));
    if (!map) {
      add_to(d.timed_moved_bytes, t.bytes);
      add_to(d.timed_moved_ns, sub_ns(t.end_ns, t.start_ns));
    }
  }
  extend(t.process, t.host_begin_ns, t.host_end_ns);
}

void SummaryAnalysis::merge(Analysis&& other) {
  auto& o = dynamic_cast<SummaryAnalysis&>(other);
  for (auto& [id, od] : o.devices_) devices_[id].add(std::move(od));
  for (const auto& [n, devices] : o.names_) {
    auto& on = names_[n];
    for (uint32_t d : devices)
      if (std::find(on.begin(), on.end(), d) == on.end()) on.push_back(d);
  }
  for (const auto& [p, s] : o.spans_) {
    extend(p, s.first, s.second);
  }
  o.devices_.clear();
}

std::optional<double> utilization_or_warn(int64_t busy_ns, std::optional<int64_t> wall_ns,
                                          const std::string& what,
                                          std::vector<std::string>& warnings) {
  if (!wall_ns || *wall_ns <= 0) return std::nullopt;
  const double percent = 100.0 * static_cast<double>(busy_ns) / static_cast<double>(*wall_ns);
  // A union of intervals on one clock cannot exceed the span it lies in; busy over the wall
  // time (past rounding: 0.01 %) means the device clock and the host clock disagree.
  if (percent > 100.01) {
    warnings.push_back(what + ": device busy " + std::to_string(busy_ns) +
                       " ns exceeds the wall time " + std::to_string(*wall_ns) +
                       " ns: its device timestamps and the host clock disagree (two clocks "
                       "mixed, or inconsistent device times in the input); utilization not shown");
    return std::nullopt;
  }
  return percent;
}

int64_t union_length(std::vector<std::pair<int64_t, int64_t>>& iv) {
  if (iv.empty()) return 0;
  std::sort(iv.begin(), iv.end());
  int64_t total = 0;
  int64_t cur_begin = iv[0].first, cur_end = iv[0].second;
  for (size_t i = 1; i < iv.size(); ++i) {
    if (iv[i].first <= cur_end) {
      cur_end = std::max(cur_end, iv[i].second);
    } else {
      add_to(total, sub_ns(cur_end, cur_begin));
      cur_begin = iv[i].first;
      cur_end = iv[i].second;
    }
  }
  return add_ns(total, sub_ns(cur_end, cur_begin));
}

std::map<uint32_t, std::pair<int64_t, int64_t>> absolute_host_spans(const SummaryAnalysis& a,
                                                                    const model::Run& run) {
  std::map<uint32_t, std::pair<int64_t, int64_t>> spans = a.host_spans();
  auto extend = [&](uint32_t p, int64_t b, int64_t e) { extend_span(spans, p, b, e); };
  for (const auto& r : run.ranges) extend(r.process, r.host_begin_ns, r.host_end_ns);
  for (uint32_t p = 0; p < run.processes.size(); ++p) {
    const auto folded = run.folded_ranges.span(p);
    extend(p, folded.begin_ns, folded.end_ns);
  }
  for (const auto& b : run.builds) extend(b.process, b.host_begin_ns, b.host_end_ns);
  for (const auto& y : run.syncs) extend(y.process, y.host_begin_ns, y.host_end_ns);
  for (const auto& m : run.marks) extend(m.process, m.host_ns, m.host_ns);
  for (auto& [p, span] : spans) {
    int64_t base = 0;
    if (p < run.processes.size() && run.processes[p].host_start_ns != kNoTime)
      base = run.processes[p].host_start_ns;
    span = {add_ns(base, span.first), add_ns(base, span.second)};
  }
  return spans;
}

SummaryInputs summary_inputs(SummaryAnalysis& a, const model::Run& run,
                             std::map<uint32_t, std::vector<double>> gflop_terms,
                             std::map<uint32_t, uint64_t> unsized_gemm_calls,
                             std::optional<std::pair<int64_t, int64_t>> window_ns) {
  SummaryInputs in;
  in.processes = run.processes.size();
  for (const auto& p : run.processes) {
    in.truncated_processes += p.truncated ? 1 : 0;
    in.traces |= p.source_format == "clprof-trace";
    for (int64_t w : p.iteration_wall_ns)
      in.iteration_wall_ns = add_ns(in.iteration_wall_ns.value_or(0), w);
  }
  in.builds = !run.builds.empty();
  for (const auto& b : run.builds)
    if (b.host_begin_ns != kNoTime && b.host_end_ns != kNoTime && b.host_end_ns > b.host_begin_ns)
      add_to(in.build_ns, sub_ns(b.host_end_ns, b.host_begin_ns));
  in.spans = absolute_host_spans(a, run);
  for (const auto& d : run.devices) {
    SummaryInputs::DeviceName n;
    n.name = d.name;
    if (d.process < run.processes.size()) n.pid = run.processes[d.process].pid;
    in.device_names.push_back(std::move(n));
  }
  in.devices = std::move(a.mutable_devices());
  a.mutable_devices().clear();
  in.kernel_names = a.kernel_names();
  in.gflop_terms = std::move(gflop_terms);
  in.unsized_gemm_calls = std::move(unsized_gemm_calls);
  in.window_ns = window_ns;
  return in;
}

void merge_summary_inputs(SummaryInputs& into, SummaryInputs&& later) {
  if (into.window_ns != later.window_ns)
    throw std::invalid_argument("partials of different --time-window");
  const auto process_shift = static_cast<uint32_t>(into.processes);
  const auto device_shift = static_cast<uint32_t>(into.device_names.size());
  const auto device = [device_shift](uint32_t id) { return id == 0 ? 0 : id + device_shift; };
  into.processes += later.processes;
  into.truncated_processes += later.truncated_processes;
  into.traces |= later.traces;
  into.builds |= later.builds;
  add_to(into.build_ns, later.build_ns);
  if (later.iteration_wall_ns)
    into.iteration_wall_ns = add_ns(into.iteration_wall_ns.value_or(0), *later.iteration_wall_ns);
  for (const auto& [p, span] : later.spans)
    extend_span(into.spans, p + process_shift, span.first, span.second);
  for (auto& n : later.device_names) into.device_names.push_back(std::move(n));
  for (auto& [id, od] : later.devices) into.devices[device(id)].add(std::move(od));
  for (const auto& [n, devices] : later.kernel_names) {
    auto& on = into.kernel_names[n];
    for (uint32_t d : devices)
      if (std::find(on.begin(), on.end(), device(d)) == on.end()) on.push_back(device(d));
  }
  for (auto& [id, terms] : later.gflop_terms) {
    auto& mine = into.gflop_terms[device(id)];
    mine.insert(mine.end(), terms.begin(), terms.end());
  }
  for (const auto& [id, n] : later.unsized_gemm_calls) into.unsized_gemm_calls[device(id)] += n;
}

Summary finish_summary(SummaryInputs& in) {
  Summary s;
  s.processes = in.processes;
  s.truncated_processes = in.truncated_processes;
  s.launches_known = s.transfers_known = s.builds_known = in.traces;
  s.builds_known |= in.builds;
  for (const auto& [id, d] : in.devices) {
    s.launches_known |= d.launches > 0;
    s.transfers_known |= d.transfers > 0;
  }

  // Wall time: from the earliest to the latest host event of the run, on the absolute
  // host clock so that several processes line up; importers without host times give
  // the sum of their per-iteration wall times instead.
  bool have_span = false;
  int64_t lo = 0, hi = 0;
  for (const auto& [p, span] : in.spans) {
    if (!have_span) {
      lo = span.first;
      hi = span.second;
      have_span = true;
    } else {
      lo = std::min(lo, span.first);
      hi = std::max(hi, span.second);
    }
  }
  if (have_span && in.window_ns) {
    lo = std::max(lo, in.window_ns->first);
    hi = std::min(hi, in.window_ns->second);
  }
  if (have_span && hi > lo)
    s.run.wall_ns = sub_ns(hi, lo);
  else
    s.run.wall_ns = in.iteration_wall_ns;
  s.run.build_ns = in.build_ns;
  s.run.kernels_distinct = in.kernel_names.size();
  std::map<uint32_t, uint64_t> distinct_per_device;
  for (const auto& [name, devices] : in.kernel_names)
    for (uint32_t d : devices) ++distinct_per_device[d];

  uint64_t timed_moved_bytes = 0;
  int64_t timed_moved_ns = 0;
  for (auto& [id, d] : in.devices) {
    DeviceSummary ds;
    ds.device = id;
    if (id > 0 && id <= in.device_names.size()) {
      const auto& dev = in.device_names[id - 1];
      ds.name = dev.name;
      // Two processes' devices of one name would read as two identical rows: say whose.
      size_t same = 0;
      for (const auto& other : in.device_names) same += other.name == dev.name ? 1 : 0;
      if (same > 1 && dev.pid)
        ds.name += " (pid " + std::to_string(dev.pid) + ")";
      else if (same > 1)
        ds.name += " (#" + std::to_string(id) + ")";
    }
    auto& f = ds.figures;
    f.wall_ns = s.run.wall_ns;
    f.launches = d.launches;
    auto nd = distinct_per_device.find(id);
    f.kernels_distinct = nd == distinct_per_device.end() ? 0 : nd->second;
    f.kernel_ns = d.kernel_ns;
    // A device's own clock orders its kernels, so the union is per device; durations
    // without timestamps (importers) cannot overlap-check and are added as they are.
    f.device_busy_ns = add_ns(add_ns(d.intervals.length_ns(), d.union_ns), d.busy_extra_ns);
    f.transfers = d.transfers;
    f.transfer_bytes = d.transfer_bytes;
    f.mapped_bytes = d.mapped_bytes;
    f.transfer_ns = d.transfer_ns;
    if (d.timed_moved_ns > 0)
      f.transfer_gbps =
          static_cast<double>(d.timed_moved_bytes) / static_cast<double>(d.timed_moved_ns);
    add_to(timed_moved_bytes, d.timed_moved_bytes);
    add_to(timed_moved_ns, d.timed_moved_ns);
    auto g = in.gflop_terms.find(id);
    auto unsized = in.unsized_gemm_calls.find(id);
    f.gemm_calls_unsized = unsized == in.unsized_gemm_calls.end() ? 0 : unsized->second;
    if (g != in.gflop_terms.end()) {
      double sum = 0.0;  // in the records' order, as finish_gemm sums them
      for (double t : g->second) sum += t;
      f.gflop_total = sum;
    } else {
      f.gflop_total = f.gemm_calls_unsized ? std::nullopt : std::optional<double>(0.0);
    }
    f.utilization = utilization_or_warn(
        f.device_busy_ns, f.wall_ns,
        "device " + (ds.name.empty() ? "#" + std::to_string(id) : "'" + ds.name + "'"), s.warnings);
    s.run.launches += f.launches;
    add_to(s.run.kernel_ns, f.kernel_ns);
    add_to(s.run.device_busy_ns, f.device_busy_ns);
    s.run.transfers += f.transfers;
    add_to(s.run.transfer_bytes, f.transfer_bytes);
    add_to(s.run.mapped_bytes, f.mapped_bytes);
    add_to(s.run.transfer_ns, f.transfer_ns);
    s.run.gemm_calls_unsized += f.gemm_calls_unsized;
    if (f.gflop_total) s.run.gflop_total = *s.run.gflop_total + *f.gflop_total;
    s.devices.push_back(std::move(ds));
  }
  if (timed_moved_ns > 0)
    s.run.transfer_gbps =
        static_cast<double>(timed_moved_bytes) / static_cast<double>(timed_moved_ns);
  // The run's busy time sums the devices' (each a union on its own clock), so with
  // several devices it may exceed the wall time legitimately: it is compared only with one.
  if (s.devices.size() <= 1)
    s.run.utilization = s.devices.empty() ? std::nullopt : s.devices[0].figures.utilization;
  else if (s.run.wall_ns && *s.run.wall_ns > 0)
    s.run.utilization =
        100.0 * static_cast<double>(s.run.device_busy_ns) / static_cast<double>(*s.run.wall_ns);
  // The run's GEMM work is unknown only when it has GEMM calls and none of known size
  // (whatever order the devices come in); a device without GEMMs adds a known 0.
  if (in.gflop_terms.empty() && s.run.gemm_calls_unsized) s.run.gflop_total = std::nullopt;
  if (s.run.gemm_calls_unsized)
    s.warnings.push_back(std::to_string(s.run.gemm_calls_unsized) +
                         " GEMM call(s) of unknown size: their work is not in the GEMM GFLOP" +
                         (s.run.gflop_total ? "" : " (unknown: no call of known size)"));
  return s;
}

Summary make_summary(SummaryAnalysis& a, const model::Run& run,
                     const std::map<uint32_t, double>& gflop_per_device,
                     std::optional<std::pair<int64_t, int64_t>> window_ns,
                     const std::map<uint32_t, uint64_t>& unsized_gemm_calls_per_device) {
  std::map<uint32_t, std::vector<double>> terms;
  for (const auto& [id, g] : gflop_per_device) terms[id] = {g};  // 0.0 + g == g
  auto in = summary_inputs(a, run, std::move(terms), unsized_gemm_calls_per_device, window_ns);
  auto s = finish_summary(in);
  a.mutable_devices() = std::move(in.devices);  // `a` as it was, its intervals sorted
  return s;
}

}  // namespace clprof::analyses
