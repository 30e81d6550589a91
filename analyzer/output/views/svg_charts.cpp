#include "output/views/svg_charts.hpp"

#include <algorithm>
#include <cmath>

#include "output/views/svg.hpp"

namespace clprof::output::svg {

namespace {

constexpr double kLabelFont = 12, kSmallFont = 11;

// The width of the label column for `labels`, at most `cap` (longer names lose their
// middle: fit_label; the whole name is the tooltip).
double label_width(const std::vector<std::string>& labels, double cap) {
  double w = 0;
  for (const auto& l : labels) w = std::max(w, text_width(l, kLabelFont));
  return std::min(w, cap) + 10;
}

// `label` cut to what fits left of `x0` (a label column from label_width).
std::string fit_label(const std::string& label, double x0) {
  const double per_char = text_width("x", kLabelFont);
  return clip(label, static_cast<size_t>(std::max(4.0, (x0 - 10) / per_char)));
}

// A legend laid out in rows within `width`: swatch, name.
struct LegendLayout {
  struct At {
    double x, y;
  };
  std::vector<At> at;
  double height = 0;
};

LegendLayout layout_legend(const std::vector<LegendItem>& items, double x, double y, double width) {
  LegendLayout l;
  double cx = x, cy = y;
  for (const auto& it : items) {
    const double w = 16 + text_width(clip(it.name, 40), kLabelFont) + 18;
    if (cx + w > x + width && cx > x) {
      cx = x;
      cy += 18;
    }
    l.at.push_back({cx, cy});
    cx += w;
  }
  l.height = items.empty() ? 0 : cy - y + 20;
  return l;
}

void draw_legend(Writer& w, const std::vector<LegendItem>& items, const LegendLayout& l) {
  for (size_t i = 0; i < items.size(); ++i) {
    w.rect(l.at[i].x, l.at[i].y - 9, 11, 11, items[i].colour, "", "swatch");
    w.text(l.at[i].x + 15, l.at[i].y, clip(items[i].name, 40), Writer::Anchor::Start, "legend",
           items[i].name);
  }
}

std::string axis_label(double v, const std::string& unit) {
  return si(v, unit, 3);
}

}  // namespace

std::string bar_chart(const std::string& title, const std::vector<Bar>& bars,
                      const std::string& unit) {
  constexpr double row = 22, bar_h = 14, top = 6;
  std::vector<std::string> labels;
  double value_w = 0, max_v = 0;
  for (const auto& b : bars) {
    labels.push_back(b.label);
    value_w = std::max(value_w, text_width(b.value_text, kSmallFont));
    max_v = std::max(max_v, b.value);
  }
  const double x0 = label_width(labels, 380), x1 = kChartWidth - std::min(value_w, 200.0) - 16;
  const Ticks t = nice_ticks(0, max_v > 0 ? max_v : 1, 6);
  const Scale x = Scale::linear(0, t.hi, x0, x1);
  const double bottom = top + row * static_cast<double>(bars.size());
  Writer w(kChartWidth, bottom + 24, title);
  x_axis(w, x, t, top, bottom, [&unit](double v) { return axis_label(v, unit); });
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double y = top + row * static_cast<double>(i);
    w.text(x0 - 8, y + row / 2 + 4, fit_label(b.label, x0), Writer::Anchor::End, "label", b.label);
    const double end = x(std::max(0.0, b.value));
    w.rect(x0, y + (row - bar_h) / 2, std::max(1.0, end - x0), bar_h,
           b.colour ? b.colour : kSingleColour,
           b.tip.empty() ? b.label + ": " + b.value_text : b.tip, "bar");
    w.text(end + 6, y + row / 2 + 4, b.value_text, Writer::Anchor::Start, "value");
  }
  w.line(x0, top, x0, bottom, kMuted, 1, "", "axis");
  return w.finish();
}

std::string paired_bar_chart(const std::string& title, const std::vector<PairedBar>& bars,
                             const std::string& unit, const std::string& base_name,
                             const std::string& other_name) {
  constexpr double row = 30, bar_h = 11, top = 30;
  std::vector<std::string> labels;
  double note_w = 0, max_v = 0;
  for (const auto& b : bars) {
    labels.push_back(b.label);
    note_w = std::max(note_w, text_width(b.note, kSmallFont));
    max_v = std::max({max_v, b.base.value_or(0), b.other.value_or(0)});
  }
  const double x0 = label_width(labels, 360), x1 = kChartWidth - std::min(note_w, 160.0) - 20;
  const Ticks t = nice_ticks(0, max_v > 0 ? max_v : 1, 6);
  const Scale x = Scale::linear(0, t.hi, x0, x1);
  const double bottom = top + row * static_cast<double>(bars.size());
  Writer w(kChartWidth, bottom + 24, title);
  const std::vector<LegendItem> legend = {{"BASE " + base_name, kBaseColour},
                                          {"OTHER " + other_name, kOtherRunColour}};
  draw_legend(w, legend, layout_legend(legend, x0, 14, x1 - x0));
  x_axis(w, x, t, top, bottom, [&unit](double v) { return axis_label(v, unit); });
  for (size_t i = 0; i < bars.size(); ++i) {
    const PairedBar& b = bars[i];
    const double y = top + row * static_cast<double>(i);
    w.text(x0 - 8, y + row / 2 + 4, fit_label(b.label, x0), Writer::Anchor::End, "label", b.label);
    double right = x0;
    if (b.base) {
      right = std::max(right, x(*b.base));
      w.rect(x0, y + 3, std::max(1.0, x(*b.base) - x0), bar_h, kBaseColour,
             b.tip + " — BASE " + si(*b.base, unit, 4), "bar");
    }
    if (b.other) {
      right = std::max(right, x(*b.other));
      w.rect(x0, y + 4 + bar_h, std::max(1.0, x(*b.other) - x0), bar_h, kOtherRunColour,
             b.tip + " — OTHER " + si(*b.other, unit, 4), "bar");
    }
    w.text(right + 6, y + row / 2 + 4, b.note, Writer::Anchor::Start,
           b.slower   ? "value slower"
           : b.faster ? "value faster"
                      : "value");
  }
  w.line(x0, top, x0, bottom, kMuted, 1, "", "axis");
  return w.finish();
}

std::string stacked_columns(const StackedColumns& c) {
  constexpr double left = 72, top = 10, plot_h = 260;
  const double right = kChartWidth - 16, plot_w = right - left;
  const size_t n = c.categories.size();
  double max_v = 0;
  for (const auto& col : c.values) {
    double sum = 0;
    for (double v : col) sum += std::max(0.0, v);
    max_v = std::max(max_v, sum);
  }
  std::vector<LegendItem> legend;
  for (size_t s = 0; s < c.series.size(); ++s)
    legend.push_back({c.series[s], c.last_is_other && s + 1 == c.series.size() ? kOtherColour
                                                                               : series_colour(s)});
  const double axis_y = top + plot_h;
  const LegendLayout ll = layout_legend(legend, left, axis_y + 50, plot_w);
  Writer w(kChartWidth, axis_y + 50 + ll.height, c.title);
  const Ticks t = nice_ticks(0, max_v > 0 ? max_v : 1, 5);
  const Scale y = Scale::linear(0, t.hi, axis_y, top);
  y_axis(w, y, t, left, right, [&c](double v) { return axis_label(v, c.unit); });
  const double slot = n ? plot_w / static_cast<double>(n) : plot_w;
  const double col_w = std::min(56.0, slot * 0.72);
  const size_t every =
      std::max<size_t>(1, static_cast<size_t>(std::ceil(static_cast<double>(n) * 34 / plot_w)));
  for (size_t i = 0; i < n; ++i) {
    const double x = left + slot * static_cast<double>(i) + (slot - col_w) / 2;
    double acc = 0;
    for (size_t s = 0; s < c.series.size() && s < c.values[i].size(); ++s) {
      const double v = c.values[i][s];
      if (!(v > 0)) continue;
      w.rect(x, y(acc + v), col_w, y(acc) - y(acc + v), legend[s].colour,
             c.series[s] + " — " + c.categories[i] + ": " + si(v, c.unit, 4), "seg");
      acc += v;
    }
    if (i % every == 0)
      w.text(x + col_w / 2, axis_y + 16, c.categories[i], Writer::Anchor::Middle, "tick");
  }
  w.line(left, axis_y, right, axis_y, kMuted, 1, "", "axis");
  w.text(left + plot_w / 2, axis_y + 34, c.x_label, Writer::Anchor::Middle, "axis-label");
  draw_legend(w, legend, ll);
  return w.finish();
}

std::string scatter_log_x(const Scatter& c) {
  constexpr double left = 80, top = 22, plot_h = 300;
  const double right = kChartWidth - 24, plot_w = right - left, axis_y = top + plot_h;
  double x_lo = 0, x_hi = 0, y_lo = 0, y_hi = c.peak.value_or(0);
  for (const auto& p : c.points) {
    if (!(p.x > 0)) continue;
    x_lo = x_lo > 0 ? std::min(x_lo, p.x) : p.x;
    x_hi = std::max(x_hi, p.x);
    if (p.y > 0) y_lo = y_lo > 0 ? std::min(y_lo, p.y) : p.y;
    y_hi = std::max({y_hi, p.y, p.y_best.value_or(0)});
  }
  // A log y axis when the points (and the peak) span more than ~1.5 decades: points far
  // below the peak stay apart instead of lying on the axis.
  const bool log_y = y_lo > 0 && y_hi / y_lo > 30;
  std::vector<LegendItem> legend;
  for (size_t s = 0; s < c.series.size(); ++s)
    legend.push_back({c.series[s], s < kSeriesColours ? series_colour(s) : kOtherColour});
  const LegendLayout ll = layout_legend(legend, left, axis_y + 52, plot_w);
  Writer w(kChartWidth, axis_y + 52 + ll.height, c.title);
  const Ticks xt = log_ticks(x_lo > 0 ? x_lo : 1, x_hi > x_lo ? x_hi : (x_lo > 0 ? x_lo * 10 : 10));
  const Ticks yt = log_y ? log_ticks(y_lo, y_hi) : nice_ticks(0, y_hi > 0 ? y_hi * 1.04 : 1, 5);
  const Scale x = Scale::log(xt.lo, xt.hi, left + 8, right - 8);
  const Scale y =
      log_y ? Scale::log(yt.lo, yt.hi, axis_y, top) : Scale::linear(0, yt.hi, axis_y, top);
  y_axis(w, y, yt, left, right, [&c](double v) { return axis_label(v, c.y_unit); });
  x_axis(w, x, xt, top, axis_y, [&c](double v) { return axis_label(v, c.x_unit); });
  w.line(left, axis_y, right, axis_y, kMuted, 1, "", "axis");
  w.text(left + plot_w / 2, axis_y + 34, c.x_label, Writer::Anchor::Middle, "axis-label");
  w.text(left - 6, top - 9, c.y_label + (log_y ? " (log scale)" : ""), Writer::Anchor::Start,
         "axis-label");
  if (c.peak) {
    w.line(left, y(*c.peak), right, y(*c.peak), kSlowerColour, 1.5, "6 4", "peak");
    w.text(right - 4, y(*c.peak) - 5, c.peak_label, Writer::Anchor::End, "peak-label");
  }
  for (const auto& p : c.points) {
    const char* colour = p.series < kSeriesColours ? series_colour(p.series) : kOtherColour;
    if (p.y_best && *p.y_best > p.y)
      w.line(x(p.x), y(p.y), x(p.x), y(*p.y_best), colour, 1.5, "", "whisker");
    w.circle(x(p.x), y(p.y), 4.5, colour, p.tip, "point");
  }
  draw_legend(w, legend, ll);
  return w.finish();
}

std::string box_plot(const std::string& title, const std::vector<Box>& boxes,
                     const std::string& unit, bool log_scale) {
  constexpr double row = 26, box_h = 14, top = 6;
  std::vector<std::string> labels;
  double lo = 0, hi = 0;
  bool first = true;
  for (const auto& b : boxes) {
    labels.push_back(b.label);
    double l = b.whisker_lo, h = b.whisker_hi;
    for (double o : b.outliers) l = std::min(l, o), h = std::max(h, o);
    if (log_scale && !(l > 0)) l = h > 0 ? h / 1e6 : 1e-9;
    lo = first ? l : std::min(lo, l);
    hi = first ? h : std::max(hi, h);
    first = false;
  }
  const double x0 = label_width(labels, 380), x1 = kChartWidth - 24;
  const Ticks t = log_scale ? log_ticks(lo, hi) : nice_ticks(lo, hi, 6);
  const Scale x = log_scale ? Scale::log(t.lo, t.hi, x0, x1) : Scale::linear(t.lo, t.hi, x0, x1);
  const double bottom = top + row * static_cast<double>(boxes.size());
  Writer w(kChartWidth, bottom + 24, title);
  x_axis(w, x, t, top, bottom, [&unit](double v) { return axis_label(v, unit); });
  for (size_t i = 0; i < boxes.size(); ++i) {
    const Box& b = boxes[i];
    const double cy = top + row * static_cast<double>(i) + row / 2;
    w.text(x0 - 8, cy + 4, fit_label(b.label, x0), Writer::Anchor::End, "label", b.label);
    w.begin_group("boxplot", b.tip);
    w.line(x(b.whisker_lo), cy, x(b.q1), cy, kMuted, 1, "", "whisker");
    w.line(x(b.q3), cy, x(b.whisker_hi), cy, kMuted, 1, "", "whisker");
    w.line(x(b.whisker_lo), cy - 5, x(b.whisker_lo), cy + 5, kMuted, 1, "", "whisker");
    w.line(x(b.whisker_hi), cy - 5, x(b.whisker_hi), cy + 5, kMuted, 1, "", "whisker");
    w.rect(x(b.q1), cy - box_h / 2, std::max(1.5, x(b.q3) - x(b.q1)), box_h, "#BBCCEE", "", "box");
    w.line(x(b.median), cy - box_h / 2, x(b.median), cy + box_h / 2, kInk, 2, "", "median");
    for (double o : b.outliers) w.circle(x(o), cy, 2.5, "none", "", "outlier");
    w.end_group();
  }
  w.line(x0, top, x0, bottom, kMuted, 1, "", "axis");
  return w.finish();
}

std::string timeline_chart(const std::string& title, const std::vector<Lane>& lanes, double t0,
                           double t1, const std::string& unit,
                           const std::vector<LegendItem>& legend) {
  constexpr double row = 26, span_h = 18, top = 6;
  std::vector<std::string> labels;
  for (const auto& l : lanes) labels.push_back(l.label);
  const double x0 = label_width(labels, 240), x1 = kChartWidth - 16;
  const double bottom = top + row * static_cast<double>(lanes.size());
  const LegendLayout ll = layout_legend(legend, x0, bottom + 54, x1 - x0);
  Writer w(kChartWidth, bottom + 54 + ll.height, title);
  const Ticks t = nice_ticks(0, t1 > t0 ? t1 - t0 : 1, 8);
  const Scale rel = Scale::linear(0, t.hi, x0, x1);
  x_axis(w, rel, t, top, bottom, [&unit](double v) { return axis_label(v, unit); });
  for (size_t i = 0; i < lanes.size(); ++i) {
    const double y = top + row * static_cast<double>(i);
    w.text(x0 - 8, y + row / 2 + 4, fit_label(lanes[i].label, x0), Writer::Anchor::End, "label",
           lanes[i].label);
    w.rect(x0, y + (row - span_h) / 2, x1 - x0, span_h, "#F3F3F3", "", "lane");
    for (const auto& s : lanes[i].spans) {
      const double a = rel(s.begin - t0), b = rel(s.end - t0);
      w.rect(a, y + (row - span_h) / 2, std::max(0.8, b - a), span_h,
             s.colour ? s.colour : kSingleColour, s.tip, "span");
    }
  }
  w.text(x0 + (x1 - x0) / 2, bottom + 32, "time since the first event shown",
         Writer::Anchor::Middle, "axis-label");
  draw_legend(w, legend, ll);
  return w.finish();
}

}  // namespace clprof::output::svg
