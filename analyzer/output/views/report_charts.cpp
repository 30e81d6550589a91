#include "output/views/report_charts.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "format.hpp"
#include "output/views/svg.hpp"
#include "output/views/svg_charts.hpp"

namespace clprof::output::report {

namespace {

using svg::si_ns;

double seconds(double ns) {
  return ns * 1e-9;
}

std::string count_text(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string percent_text(double p) {
  return format_fixed(p, p < 10 ? 1 : 0) + "%";
}

std::string signed_percent(double p) {
  return (p > 0 ? "+" : "") + format_fixed(p, 1) + "%";
}

}  // namespace

std::string note(const std::string& text) {
  return "<p class=\"note\">" + svg::escape(text) + "</p>";
}

std::string kernels_chart(const RunReport& r) {
  if (r.kernels.empty()) return note("No kernel launches in this run.");
  int64_t total = 0;
  for (const auto& k : r.kernels) total += k.stats.total_ns;
  std::vector<svg::Bar> bars;
  int64_t rest = 0;
  uint64_t rest_launches = 0;
  for (size_t i = 0; i < r.kernels.size(); ++i) {
    const auto& k = r.kernels[i];
    if (i >= kMaxBars) {
      rest += k.stats.total_ns;
      rest_launches += k.stats.count;
      continue;
    }
    svg::Bar b;
    b.label = k.name;
    b.value = seconds(static_cast<double>(k.stats.total_ns));
    b.value_text =
        si_ns(static_cast<double>(k.stats.total_ns)) +
        (total > 0 ? " · " + percent_text(100.0 * static_cast<double>(k.stats.total_ns) / total)
                   : "") +
        " · ×" + std::to_string(k.stats.count);
    b.tip = k.name + "\n" + count_text(k.stats.count, "launch", "launches") + ", total " +
            format_ns(k.stats.total_ns) + "\nmedian " + format_ns(k.stats.median_ns) + ", min " +
            format_ns(k.stats.min_ns) + ", max " + format_ns(k.stats.max_ns);
    bars.push_back(std::move(b));
  }
  std::string h;
  if (r.kernels.size() > kMaxBars) {
    const size_t n = r.kernels.size() - kMaxBars;
    svg::Bar b;
    b.label = count_text(n, "other kernel", "other kernels");
    b.value = seconds(static_cast<double>(rest));
    b.value_text = si_ns(static_cast<double>(rest)) + " · ×" + std::to_string(rest_launches);
    b.colour = svg::kOtherColour;
    bars.push_back(std::move(b));
  }
  h += svg::bar_chart("Device time per kernel", bars, "s");
  if (r.kernels.size() > kMaxBars)
    h += note("The " + std::to_string(kMaxBars) + " kernels with the most time of " +
              std::to_string(r.kernels.size()) + "; the other " +
              std::to_string(r.kernels.size() - kMaxBars) + " are summed in the last bar.");
  return h;
}

std::string layers_chart(const RunReport& r) {
  // Stacked columns need iterations to set side by side; one iteration reads better as bars.
  if (r.iterations.size() >= 2) {
    // Series: the layers with the most time over the iterations shown; the rest summed.
    const size_t shown = std::min(r.iterations.size(), kMaxIterations);
    std::map<std::string, int64_t> totals;
    for (size_t i = 0; i < shown; ++i)
      for (const auto& l : r.iterations[i].layers)
        totals[l.layer.empty() ? r.iteration_range : l.layer] += l.total_ns;
    std::vector<std::pair<int64_t, std::string>> by_time;
    for (const auto& [name, t] : totals)
      if (t > 0) by_time.emplace_back(-t, name);
    std::sort(by_time.begin(), by_time.end());
    if (by_time.empty())
      return note("No kernel time inside the iterations of '" + r.iteration_range + "'.");
    svg::StackedColumns c;
    c.title = "Kernel time per iteration, by layer";
    c.unit = "s";
    c.x_label = "iteration of '" + r.iteration_range + "'";
    std::unordered_map<std::string, size_t> series;
    for (size_t s = 0; s < by_time.size() && s < kMaxLayerSeries; ++s) {
      series[by_time[s].second] = s;
      c.series.push_back(by_time[s].second);
    }
    if (by_time.size() > kMaxLayerSeries) {
      c.series.push_back(
          count_text(by_time.size() - kMaxLayerSeries, "other layer", "other layers"));
      c.last_is_other = true;
    }
    for (size_t i = 0; i < shown; ++i) {
      const auto& d = r.iterations[i];
      c.categories.push_back(std::to_string(d.index));
      std::vector<double> v(c.series.size(), 0);
      for (const auto& l : d.layers) {
        auto it = series.find(l.layer.empty() ? r.iteration_range : l.layer);
        v[it == series.end() ? c.series.size() - 1 : it->second] +=
            seconds(static_cast<double>(l.total_ns));
      }
      c.values.push_back(std::move(v));
    }
    std::string h = svg::stacked_columns(c);
    if (r.iterations.size() > shown)
      h +=
          note("The first " + std::to_string(shown) + " of " + std::to_string(r.iterations.size()) +
               " iterations (use --iteration to choose others).");
    return h;
  }
  std::vector<svg::Bar> bars;
  size_t layers = 0;
  for (const auto& l : r.layers) {
    if (l.layer == "(no layer)") continue;
    if (++layers > kMaxBars) continue;
    svg::Bar b;
    b.label = l.layer + (l.direction.empty() ? "" : " (" + l.direction + ")");
    b.value = seconds(static_cast<double>(l.total_ns));
    b.value_text = si_ns(static_cast<double>(l.total_ns)) +
                   (l.percent ? " · " + percent_text(*l.percent) : "");
    bars.push_back(std::move(b));
  }
  if (bars.empty())
    return note(
        "No layers: the run has no range markers (clprof_range_push / clprof_range_pop, or an "
        "importer's "
        "workloads), so every launch is outside any layer.");
  std::string h = svg::bar_chart("Kernel time per layer", bars, "s");
  h += note(r.iterations.size() == 1
                ? "One iteration of '" + r.iteration_range +
                      "', nothing to stack: one bar per layer over the whole run."
                : "The run has no repeated iteration range: one bar per layer over the whole run.");
  if (layers > kMaxBars)
    h += note("The first " + std::to_string(kMaxBars) + " of " + std::to_string(layers) +
              " layers (the table has them all).");
  return h;
}

std::string gemm_chart(const RunReport& r, double peak_gflops) {
  const auto& groups = r.gemm.groups;
  if (groups.empty())
    return note(
        "No GEMM launches decoded (the built-in rules cover CLBlast, clBLAS, ViennaCL and the Arm "
        "Compute "
        "Library; docs/gemm-rules.md).");
  svg::Scatter c;
  c.title = "GEMM throughput against problem size";
  c.x_unit = "FLOP";
  c.y_unit = "FLOP/s";
  c.x_label = "problem size: 2·M·N·K·batch (log scale)";
  c.y_label = "median GFLOPS (whisker: best launch)";
  std::map<std::string, int64_t> by_name;
  for (const auto& g : groups) by_name[g.name] += g.total_ns;
  std::vector<std::pair<int64_t, std::string>> ranked;
  for (const auto& [n, t] : by_name) ranked.emplace_back(-t, n);
  std::sort(ranked.begin(), ranked.end());
  std::unordered_map<std::string, size_t> series;
  for (size_t i = 0; i < ranked.size() && i < svg::kSeriesColours; ++i) {
    series[ranked[i].second] = i;
    c.series.push_back(ranked[i].second);
  }
  if (ranked.size() > svg::kSeriesColours)
    c.series.push_back(
        count_text(ranked.size() - svg::kSeriesColours, "other kernel", "other kernels"));
  size_t undecoded = 0;
  for (const auto& g : groups) {
    if (!g.m || !g.n || !g.k || !g.batch || !g.gflops_median) {
      ++undecoded;
      continue;
    }
    if (c.points.size() >= kMaxPoints) continue;
    svg::Point p;
    p.x = 2.0 * static_cast<double>(*g.m) * static_cast<double>(*g.n) * static_cast<double>(*g.k) *
          static_cast<double>(*g.batch);
    p.y = *g.gflops_median * 1e9;
    if (g.gflops_best) p.y_best = *g.gflops_best * 1e9;
    auto s = series.find(g.name);
    p.series = s == series.end() ? svg::kSeriesColours : s->second;
    p.tip = g.name + "\nM " + std::to_string(*g.m) + ", N " + std::to_string(*g.n) + ", K " +
            std::to_string(*g.k) + ", batch " + std::to_string(*g.batch) + "\n" +
            format_fixed(*g.gflops_median, 1) + " GFLOPS median, " +
            (g.gflops_best ? format_fixed(*g.gflops_best, 1) : std::string("-")) + " best, " +
            count_text(g.count, "call", "calls");
    c.points.push_back(std::move(p));
  }
  if (peak_gflops > 0) {
    c.peak = peak_gflops * 1e9;
    c.peak_label = "peak " + svg::si(peak_gflops * 1e9, "FLOP/s") + " (--peak)";
  }
  const size_t decodable = groups.size() - undecoded;
  if (decodable == 0)
    return note(count_text(groups.size(), "GEMM shape", "GEMM shapes") +
                " found, none with known M, N, K and time (an importer without kernel arguments "
                "cannot decode them).");
  std::string h = svg::scatter_log_x(c);
  if (decodable > kMaxPoints)
    h += note("The " + std::to_string(kMaxPoints) + " shapes with the most time of " +
              std::to_string(decodable) + ".");
  if (undecoded)
    h += note(count_text(undecoded, "shape", "shapes") + " with unknown sizes or time not drawn.");
  if (peak_gflops <= 0)
    h += note("Give --peak GFLOPS (e.g. from clpeak) to draw the device's peak.");
  return h;
}

std::string distributions_chart(const RunReport& r) {
  if (r.distributions.empty()) return note("No timed kernel launches.");
  double lo = 0, hi = 0;
  bool first = true;
  std::vector<svg::Box> boxes;
  uint64_t hidden = 0;
  for (const auto& d : r.distributions) {
    svg::Box b;
    b.label = d.name;
    b.whisker_lo = seconds(d.whisker_lo);
    b.q1 = seconds(d.q1);
    b.median = seconds(d.median);
    b.q3 = seconds(d.q3);
    b.whisker_hi = seconds(d.whisker_hi);
    for (double o : d.outliers) b.outliers.push_back(seconds(o));
    hidden += d.outliers_total - d.outliers.size();
    b.tip = d.name + "\n" + count_text(d.count, "launch", "launches") + "; median " +
            si_ns(d.median, 4) + "\nquartiles " + si_ns(d.q1, 4) + " – " + si_ns(d.q3, 4) +
            "; whiskers " + si_ns(d.whisker_lo, 4) + " – " + si_ns(d.whisker_hi, 4) + "\nmin " +
            si_ns(d.min, 4) + ", max " + si_ns(d.max, 4) + "; " +
            count_text(d.outliers_total, "outlier", "outliers");
    lo = first ? d.min : std::min(lo, d.min);
    hi = first ? d.max : std::max(hi, d.max);
    first = false;
    boxes.push_back(std::move(b));
  }
  // A log axis when the kernels' times span more than two decades (as they usually do).
  const bool log_scale = lo > 0 && hi / lo > 100;
  std::string h = svg::box_plot("Launch-time distribution per kernel", boxes, "s", log_scale);
  std::string what =
      "Boxes: the middle half of the launches (quartiles), the line the median; whiskers reach the "
      "most extreme launches within 1.5 box lengths, dots are the launches beyond";
  if (log_scale) what += "; log scale";
  h += note(what + ".");
  if (r.kernels.size() > r.distributions.size())
    h += note("The " + std::to_string(r.distributions.size()) + " kernels with the most time of " +
              std::to_string(r.kernels.size()) + ".");
  if (hidden)
    h += note(std::to_string(hidden) + " outlying launches not drawn (at most " +
              std::to_string(kMaxOutliers) + " per kernel: the lowest and the highest).");
  return h;
}

std::string timeline_overview(const RunReport& r) {
  const Timeline& t = r.timeline;
  if (t.lanes.empty())
    return note("No device timestamps in this input (importers of durations only have none).");
  const size_t lanes = std::min(t.lanes.size(), kMaxLanes);
  // Without a host clock each device keeps its own clock: its lanes start at its first event.
  std::map<uint32_t, int64_t> origin;
  for (size_t i = 0; i < lanes; ++i)
    for (const auto& iv : t.lanes[i].intervals) {
      const uint32_t key = t.host_clock ? 0 : t.lanes[i].device;
      auto [it, fresh] = origin.try_emplace(key, iv.begin);
      if (!fresh) it->second = std::min(it->second, iv.begin);
    }
  int64_t end = 0;
  std::vector<int64_t> busy(t.names.size(), 0);
  for (size_t i = 0; i < lanes; ++i)
    for (const auto& iv : t.lanes[i].intervals) {
      end = std::max(end, iv.end - origin[t.host_clock ? 0 : t.lanes[i].device]);
      busy[iv.name] += iv.end - iv.begin;
    }
  // Colours: the kernels with most time get the palette (as listed), the rest grey.
  // Host activity (the host lanes): one colour per kind, listed after the kernels.
  static const std::pair<const char*, std::pair<const char*, const char*>> kHostKinds[] = {
      {"range: ", {"ranges (top level)", "#C9D3E0"}},
      {"build: ", {"program builds", "#EE7733"}},
      {"wait: ", {"waits (clFinish, ...)", "#BBBBBB"}},
      {"call: ", {"library calls", "#33BBEE"}}};
  auto host_kind = [](const std::string& n) -> int {
    for (int k = 0; k < 4; ++k)
      if (n.rfind(kHostKinds[k].first, 0) == 0) return k;
    return -1;
  };
  std::vector<std::pair<int64_t, uint32_t>> ranked;
  for (uint32_t n = 0; n < t.names.size(); ++n)
    if (t.names[n].rfind("transfer: ", 0) != 0 && host_kind(t.names[n]) < 0)
      ranked.emplace_back(-busy[n], n);
  std::sort(ranked.begin(), ranked.end());
  std::vector<const char*> colour(t.names.size(), svg::kOtherColour);
  std::vector<svg::LegendItem> legend;
  for (size_t i = 0; i < ranked.size() && i < svg::kSeriesColours - 1; ++i) {
    colour[ranked[i].second] = svg::series_colour(i);
    legend.push_back({t.names[ranked[i].second], colour[ranked[i].second]});
  }
  if (ranked.size() > svg::kSeriesColours - 1)
    legend.push_back(
        {count_text(ranked.size() - (svg::kSeriesColours - 1), "other kernel", "other kernels"),
         svg::kOtherColour});
  bool transfers = false;
  for (uint32_t n = 0; n < t.names.size(); ++n)
    if (t.names[n].rfind("transfer: ", 0) == 0) colour[n] = svg::kMuted, transfers = true;
  if (transfers) legend.push_back({"transfers", svg::kMuted});
  bool kinds_seen[4] = {false, false, false, false};
  for (uint32_t n = 0; n < t.names.size(); ++n)
    if (const int k = host_kind(t.names[n]); k >= 0) {
      colour[n] = kHostKinds[k].second.second;
      kinds_seen[k] = true;
    }
  for (int k = 0; k < 4; ++k)
    if (kinds_seen[k]) legend.push_back({kHostKinds[k].second.first, kHostKinds[k].second.second});
  // Intervals narrower than about a pixel are drawn together, in the colour of the one
  // with the most time among them: the chart stays ~1000 rectangles a lane.
  const double px_ns = static_cast<double>(std::max<int64_t>(end, 1)) / 700.0;
  std::vector<svg::Lane> out;
  for (size_t i = 0; i < lanes; ++i) {
    const auto& lane = t.lanes[i];
    const int64_t o = origin[t.host_clock ? 0 : lane.device];
    svg::Lane l;
    l.label = lane.label;
    size_t a = 0;
    while (a < lane.intervals.size()) {
      size_t b = a + 1;
      int64_t group_end = lane.intervals[a].end;
      while (b < lane.intervals.size() &&
             static_cast<double>(lane.intervals[b].begin - lane.intervals[a].begin) < px_ns) {
        group_end = std::max(group_end, lane.intervals[b].end);
        ++b;
      }
      std::unordered_map<uint32_t, int64_t> time;
      for (size_t k = a; k < b; ++k)
        time[lane.intervals[k].name] += lane.intervals[k].end - lane.intervals[k].begin;
      uint32_t top = lane.intervals[a].name;
      for (const auto& [n, v] : time)
        if (v > time[top] || (v == time[top] && n < top)) top = n;
      svg::Span s;
      s.begin = seconds(static_cast<double>(lane.intervals[a].begin - o));
      s.end = seconds(static_cast<double>(group_end - o));
      s.colour = colour[top];
      s.tip = b - a == 1 ? t.names[top] + "\n" +
                               format_ns(lane.intervals[a].end - lane.intervals[a].begin) + " at " +
                               si_ns(static_cast<double>(lane.intervals[a].begin - o), 4)
                         : std::to_string(b - a) + " intervals from " +
                               si_ns(static_cast<double>(lane.intervals[a].begin - o), 4) +
                               ", mostly " + t.names[top];
      l.spans.push_back(std::move(s));
      a = b;
    }
    out.push_back(std::move(l));
  }
  std::string h = svg::timeline_chart("Device activity per queue", out, 0,
                                      seconds(static_cast<double>(end)), "s", legend);
  h += note(
      t.host_clock
          ? "Device intervals placed on the host clock with the recorded device-to-host clock "
            "offset; each process's host lanes show its top-level ranges, library calls, builds "
            "and waits, so host time the device did not fill is explained."
          : "Device clock: the run records no device-to-host clock offset, so each device's lanes "
            "start at its first interval (lanes of different devices are not aligned).");
  if (t.lanes.size() > lanes)
    h += note("The first " + std::to_string(lanes) + " of " + std::to_string(t.lanes.size()) +
              " queues.");
  if (t.dropped)
    h += note(std::to_string(t.dropped) + " intervals past the first " +
              std::to_string(kMaxTimelineSpans) + " read are not drawn.");
  return h;
}

namespace {

std::vector<svg::PairedBar> paired(const analyses::CompareSection& s, size_t cap) {
  std::vector<svg::PairedBar> bars;
  for (const auto& it : s.items) {
    if (bars.size() >= cap) break;
    svg::PairedBar b;
    b.label = it.name;
    if (it.base) b.base = seconds(static_cast<double>(it.base->time_ns));
    if (it.other) b.other = seconds(static_cast<double>(it.other->time_ns));
    const auto d = it.delta_percent();
    b.note = !it.base ? "new" : !it.other ? "vanished" : d ? signed_percent(*d) : "";
    b.slower = d && *d > 0;
    b.faster = d && *d < 0;
    b.tip = it.name + (d ? " (" + signed_percent(*d) + ")" : "");
    bars.push_back(std::move(b));
  }
  return bars;
}

const analyses::CompareSection* section(const analyses::Comparison& c, analyses::Section s) {
  for (const auto& x : c.sections)
    if (x.section == s) return &x;
  return nullptr;
}

}  // namespace

std::string ranks_chart(const RunReport& r) {
  if (!r.ranks) return "";
  const auto& t = *r.ranks;
  std::vector<svg::Bar> bars;
  uint64_t outliers = 0;
  for (size_t i = 0; i < t.rows.size() && i < kMaxBars; ++i) {
    const auto& row = t.rows[i];
    svg::Bar b;
    b.label = (row.rank ? "rank " + std::to_string(*row.rank) : "pid " + std::to_string(row.pid)) +
              (row.host.empty() ? "" : " · " + row.host);
    b.value = seconds(static_cast<double>(row.kernel_ns));
    b.value_text = si_ns(static_cast<double>(row.kernel_ns)) +
                   (row.deviation_percent ? " · " + signed_percent(*row.deviation_percent) : "") +
                   (row.outlier ? " · outlier" : "");
    b.tip = b.label + "\nkernel time " + format_ns(row.kernel_ns) + ", busy " +
            format_ns(row.busy_ns) + "\n" + count_text(row.launches, "launch", "launches") +
            (row.top_kernel.empty() ? "" : ", top kernel " + row.top_kernel);
    if (row.outlier) b.colour = svg::kSlowerColour;
    outliers += row.outlier ? 1 : 0;
    bars.push_back(std::move(b));
  }
  std::string h = svg::bar_chart("Kernel time per rank", bars, "s");
  h += note(std::to_string(outliers) +
            " outlier(s): more than 3 MADs and 10 % from the median rank" +
            (t.median_ns ? " (" + format_ns(*t.median_ns) + ")" : std::string()) +
            "; clprof ranks lists them.");
  if (t.rows.size() > kMaxBars)
    h += note("The first " + std::to_string(kMaxBars) + " of " + std::to_string(t.rows.size()) +
              " ranks.");
  return h;
}

std::string compare_kernels_chart(const analyses::Comparison& c) {
  const auto* s = section(c, analyses::Section::Kernels);
  if (!s || s->items.empty()) return note("No kernels in either run.");
  std::string h = svg::paired_bar_chart("Time per kernel, BASE against OTHER", paired(*s, kMaxBars),
                                        "s", c.base_label, c.other_label);
  h += note("Time " + s->unit + " (" + analyses::stat_name(c.stat) +
            "); kernels by time, the larger of the two runs.");
  if (s->items.size() > kMaxBars)
    h += note("The first " + std::to_string(kMaxBars) + " of " + std::to_string(s->items.size()) +
              " kernels.");
  return h;
}

std::string compare_layers_chart(const analyses::Comparison& c) {
  const auto* s = section(c, analyses::Section::Layers);
  if (!s || s->items.empty()) return note("No layers in either run.");
  std::string h =
      svg::paired_bar_chart("Time per layer, BASE against OTHER", paired(*s, kMaxCompareLayers),
                            "s", c.base_label, c.other_label);
  h += note("Time " + s->unit + " (" + analyses::stat_name(c.stat) +
            "); layers in the base's execution order, new ones last.");
  if (s->items.size() > kMaxCompareLayers)
    h += note("The first " + std::to_string(kMaxCompareLayers) + " of " +
              std::to_string(s->items.size()) + " layers.");
  return h;
}

}  // namespace clprof::output::report
