// The report's charts, each an <svg> string drawn with svg::Writer: horizontal bars, paired
// bars (BASE against OTHER), stacked columns, a scatter plot on a log x axis, box plots and
// a timeline of lanes. Inputs are plain numbers and names; callers cap their size (the
// report's limits): these functions draw what they are given. Values are in `unit` (SI
// prefixes are added on the axes: "s" for seconds, "FLOP/s", ...). Pure functions.
//
// Elements carry classes the browser test counts: rect.bar, rect.seg (stacked), rect.box,
// circle.point, rect.span (timeline), line.peak.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clprof::output::svg {

inline constexpr double kChartWidth = 960;

struct Bar {
  std::string label;
  double value = 0;
  std::string value_text;  // right of the bar
  std::string tip;
  const char* colour = nullptr;  // nullptr: the single-series colour
};
std::string bar_chart(const std::string& title, const std::vector<Bar>& bars,
                      const std::string& unit);

struct PairedBar {
  std::string label;
  std::optional<double> base, other;    // unset: absent from that run
  std::string note;                     // right of the bars ("-16.2%", "new")
  bool slower = false, faster = false;  // colours the note
  std::string tip;
};
std::string paired_bar_chart(const std::string& title, const std::vector<PairedBar>& bars,
                             const std::string& unit, const std::string& base_name,
                             const std::string& other_name);

// values[c][s]: series s in column c. A last series named in `other_series` is drawn grey.
struct StackedColumns {
  std::string title;
  std::vector<std::string> categories;
  std::vector<std::string> series;
  std::vector<std::vector<double>> values;
  std::string unit;
  std::string x_label;
  bool last_is_other = false;
};
std::string stacked_columns(const StackedColumns& chart);

struct Point {
  double x = 0, y = 0;
  std::optional<double> y_best;  // drawn as a whisker up to it (e.g. best-launch GFLOPS)
  size_t series = 0;
  std::string tip;
};
struct Scatter {
  std::string title;
  std::vector<std::string> series;  // names; index kSeriesColours and above are drawn grey
  std::vector<Point> points;
  std::string x_unit, y_unit, x_label, y_label;
  std::optional<double> peak;  // a horizontal line at this y
  std::string peak_label;
};
std::string scatter_log_x(const Scatter& chart);

struct Box {
  std::string label;
  double whisker_lo = 0, q1 = 0, median = 0, q3 = 0, whisker_hi = 0;
  std::vector<double> outliers;  // the ones drawn
  std::string tip;
};
// Horizontal boxes on one value axis, logarithmic when `log_scale`.
std::string box_plot(const std::string& title, const std::vector<Box>& boxes,
                     const std::string& unit, bool log_scale);

struct Span {
  double begin = 0, end = 0;
  const char* colour = nullptr;
  std::string tip;
};
struct Lane {
  std::string label;
  std::vector<Span> spans;
};
struct LegendItem {
  std::string name;
  const char* colour;
};
// Lanes over [t0, t1] (in `unit`, shown relative to t0), with a colour legend under them.
std::string timeline_chart(const std::string& title, const std::vector<Lane>& lanes, double t0,
                           double t1, const std::string& unit,
                           const std::vector<LegendItem>& legend);

}  // namespace clprof::output::svg
