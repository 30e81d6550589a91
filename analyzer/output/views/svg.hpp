// A small SVG writer for the HTML report's charts: escaping, numbers with SI prefixes,
// "nice" axis ticks, linear and log scales, a colour palette, and the few elements the
// charts draw (rectangles, lines, circles, text, groups), each with an optional tooltip.
// Coordinates are user units of the viewBox (the page scales the SVG to its width).
// Everything from the trace (kernel names, layer paths) goes through escape(): a name
// holding "<script>" stays text. Not thread-safe per Writer; the free functions are pure.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace clprof::output::svg {

// `text` for HTML/SVG text content and attribute values: & < > " ' as entities, control
// characters as \n, \t, \xHH (output/text_grid.hpp visible_text).
std::string escape(std::string_view text);

// A number with an SI prefix (p n µ m, k M G T P) and `unit`, `significant` digits at most,
// trailing zeros dropped: si(1.5e-6, "s") = "1.5 µs", si(2.5e9, "FLOP") = "2.5 GFLOP",
// si(0, "s") = "0 s", si(12.0, "%") = "12 %".
std::string si(double value, std::string_view unit, int significant = 3);
// A duration given in nanoseconds: si_ns(1.5e6) = "1.5 ms".
std::string si_ns(double ns, int significant = 3);

// Axis ticks at multiples of 1, 2 or 5 x 10^k covering [lo, hi] with about `target` steps;
// lo and hi are widened to the outer ticks. lo == hi gets a range around it.
struct Ticks {
  double lo = 0, hi = 1, step = 1;
  std::vector<double> values;
};
Ticks nice_ticks(double lo, double hi, int target = 5);
// Powers of ten covering [lo, hi] (lo > 0): lo and hi are widened to decades.
Ticks log_ticks(double lo, double hi);

// Domain -> range, linear or logarithmic (a log domain must be > 0; values at or below 0
// map to the range's start).
class Scale {
 public:
  static Scale linear(double d0, double d1, double r0, double r1);
  static Scale log(double d0, double d1, double r0, double r1);
  double operator()(double v) const;

 private:
  double d0_ = 0, d1_ = 1, r0_ = 0, r1_ = 1;
  bool log_ = false;
};

// Paul Tol's "muted" scheme: nine colours told apart with the common colour-vision
// deficiencies, dark enough for white text-free bars and for print. Cycles past nine.
const char* series_colour(size_t index);
inline constexpr size_t kSeriesColours = 9;
inline constexpr const char* kOtherColour = "#BBBBBB";     // "other" aggregates
inline constexpr const char* kSingleColour = "#4477AA";    // one-series charts
inline constexpr const char* kBaseColour = "#4477AA";      // compare: BASE
inline constexpr const char* kOtherRunColour = "#EE7733";  // compare: OTHER
inline constexpr const char* kFasterColour = "#117733";
inline constexpr const char* kSlowerColour = "#CC3311";
inline constexpr const char* kInk = "#222222";
inline constexpr const char* kGrid = "#E3E3E3";
inline constexpr const char* kMuted = "#666666";

// Width in user units of `text` at `font_size` (an estimate for a sans-serif font: the
// charts size their margins with it).
double text_width(std::string_view text, double font_size);
// `text` cut to at most `chars` characters, its middle replaced by "…".
std::string clip(std::string_view text, size_t chars);

class Writer {
 public:
  enum class Anchor { Start, Middle, End };
  // An <svg> of `width` x `height` user units; `label` is its accessible name.
  Writer(double width, double height, std::string_view label, std::string_view cls = "chart");
  // `tip` (plain text) becomes a <title>: the browser shows it on hover.
  void rect(double x, double y, double w, double h, std::string_view fill,
            std::string_view tip = "", std::string_view cls = "");
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1,
            std::string_view dash = "", std::string_view cls = "");
  void circle(double cx, double cy, double r, std::string_view fill, std::string_view tip = "",
              std::string_view cls = "");
  void text(double x, double y, std::string_view text, Anchor anchor = Anchor::Start,
            std::string_view cls = "", std::string_view tip = "");
  void begin_group(std::string_view cls, std::string_view tip = "");
  void end_group();
  // The document (the writer is empty afterwards).
  std::string finish();

 private:
  void shape_end(std::string_view element, std::string_view tip);
  std::string out_;
  int open_groups_ = 0;
};

// Horizontal value axis: grid lines from `top` to `bottom` at each tick, labels under
// `bottom` (`label_of` formats a tick value).
template <class F>
void x_axis(Writer& w, const Scale& x, const Ticks& ticks, double top, double bottom, F label_of) {
  for (double t : ticks.values) {
    w.line(x(t), top, x(t), bottom, kGrid, 1, "", "grid");
    w.text(x(t), bottom + 14, label_of(t), Writer::Anchor::Middle, "tick");
  }
}

// Vertical value axis: grid lines from `left` to `right`, labels left of `left`.
template <class F>
void y_axis(Writer& w, const Scale& y, const Ticks& ticks, double left, double right, F label_of) {
  for (double t : ticks.values) {
    w.line(left, y(t), right, y(t), kGrid, 1, "", "grid");
    w.text(left - 6, y(t) + 4, label_of(t), Writer::Anchor::End, "tick");
  }
}

}  // namespace clprof::output::svg
