#include "output/views/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "output/text_grid.hpp"

namespace clprof::output::svg {

std::string escape(std::string_view text) {
  const std::string visible = visible_text(text);
  std::string out;
  out.reserve(visible.size() + 16);
  for (char ch : visible) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string si(double value, std::string_view unit, int significant) {
  if (!std::isfinite(value)) return "-";
  const std::string u(unit);
  const std::string sep = u.empty() ? "" : " ";
  if (value == 0) return "0" + sep + u;
  static const struct {
    double factor;
    const char* prefix;
  } prefixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"},  {1e6, "M"},  {1e3, "k"},
                  {1, ""},     {1e-3, "m"}, {1e-6, "µ"}, {1e-9, "n"}, {1e-12, "p"}};
  const double a = std::fabs(value);
  // Percentages and plain counts below a thousand keep their own scale.
  size_t p = 5;
  if (u != "%") {
    p = sizeof prefixes / sizeof prefixes[0] - 1;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; ++i)
      if (a >= prefixes[i].factor * 0.9995) {
        p = i;
        break;
      }
  }
  const double scaled = value / prefixes[p].factor;
  const int digits =
      std::max(0, significant - 1 - static_cast<int>(std::floor(std::log10(std::fabs(scaled)))));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, scaled);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s + sep + prefixes[p].prefix + u;
}

std::string si_ns(double ns, int significant) {
  return si(ns * 1e-9, "s", significant);
}

Ticks nice_ticks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {
    const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo -= lo == 0 ? 0 : pad;
    hi += pad;
  }
  target = std::max(1, target);
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag * 1.0000001) {
      step = m * mag;
      break;
    }
  Ticks t;
  t.step = step;
  t.lo = std::floor(lo / step + 1e-9) * step;
  t.hi = std::ceil(hi / step - 1e-9) * step;
  for (double v = t.lo; v <= t.hi + step * 1e-6 && t.values.size() < 100; v += step)
    t.values.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return t;
}

Ticks log_ticks(double lo, double hi) {
  Ticks t;
  if (!(lo > 0) || !std::isfinite(lo)) lo = 1;
  if (!(hi > lo) || !std::isfinite(hi)) hi = lo * 10;
  const int a = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  const int b = std::max(a + 1, static_cast<int>(std::ceil(std::log10(hi) - 1e-9)));
  t.lo = std::pow(10.0, a);
  t.hi = std::pow(10.0, b);
  t.step = 10;
  for (int e = a; e <= b && t.values.size() < 40; ++e) t.values.push_back(std::pow(10.0, e));
  return t;
}

Scale Scale::linear(double d0, double d1, double r0, double r1) {
  Scale s;
  s.d0_ = d0;
  s.d1_ = d1 == d0 ? d0 + 1 : d1;
  s.r0_ = r0;
  s.r1_ = r1;
  return s;
}

Scale Scale::log(double d0, double d1, double r0, double r1) {
  Scale s;
  s.log_ = true;
  s.d0_ = std::log10(d0 > 0 ? d0 : 1e-30);
  s.d1_ = std::log10(d1 > d0 ? d1 : d0 * 10);
  s.r0_ = r0;
  s.r1_ = r1;
  return s;
}

double Scale::operator()(double v) const {
  double d = v;
  if (log_) {
    if (!(v > 0)) return r0_;
    d = std::log10(v);
  }
  return r0_ + (d - d0_) / (d1_ - d0_) * (r1_ - r0_);
}

const char* series_colour(size_t index) {
  static const char* muted[kSeriesColours] = {"#332288", "#88CCEE", "#44AA99", "#117733", "#999933",
                                              "#DDCC77", "#CC6677", "#882255", "#AA4499"};
  return muted[index % kSeriesColours];
}

double text_width(std::string_view text, double font_size) {
  return static_cast<double>(display_width(text)) * font_size * 0.64;
}

std::string clip(std::string_view text, size_t chars) {
  std::vector<size_t> starts;  // byte offset of each code point
  for (size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  if (starts.size() <= chars || chars < 3) return std::string(text);
  const size_t head = (chars - 1) / 2, tail = chars - 1 - head;
  return std::string(text.substr(0, starts[head])) + "…" +
         std::string(text.substr(starts[starts.size() - tail]));
}

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", std::isfinite(v) ? v : 0.0);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s == "-0" ? "0" : s;
}

std::string attr(std::string_view name, std::string_view value) {
  if (value.empty()) return "";
  return " " + std::string(name) + "=\"" + escape(value) + "\"";
}

}  // namespace

Writer::Writer(double width, double height, std::string_view label, std::string_view cls) {
  // Inline in HTML: no xmlns needed (the page names no URL at all).
  out_ = "<svg viewBox=\"0 0 " + num(width) + " " + num(height) + "\" width=\"" + num(width) +
         "\" height=\"" + num(height) + "\" role=\"img\"" + attr("class", cls) +
         attr("aria-label", label) + "><title>" + escape(label) + "</title>";
}

void Writer::shape_end(std::string_view element, std::string_view tip) {
  if (tip.empty()) {
    out_ += "/>";
    return;
  }
  out_ += "><title>" + escape(tip) + "</title></" + std::string(element) + ">";
}

void Writer::rect(double x, double y, double w, double h, std::string_view fill,
                  std::string_view tip, std::string_view cls) {
  out_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(0.0, w)) +
          "\" height=\"" + num(std::max(0.0, h)) + "\"" + attr("fill", fill) + attr("class", cls);
  shape_end("rect", tip);
}

void Writer::line(double x1, double y1, double x2, double y2, std::string_view stroke, double width,
                  std::string_view dash, std::string_view cls) {
  out_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
          num(y2) + "\"" + attr("stroke", stroke) +
          (width != 1 ? " stroke-width=\"" + num(width) + "\"" : "") +
          attr("stroke-dasharray", dash) + attr("class", cls) + "/>";
}

void Writer::circle(double cx, double cy, double r, std::string_view fill, std::string_view tip,
                    std::string_view cls) {
  out_ += "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"" + num(r) + "\"" +
          attr("fill", fill) + attr("class", cls);
  shape_end("circle", tip);
}

void Writer::text(double x, double y, std::string_view t, Anchor anchor, std::string_view cls,
                  std::string_view tip) {
  const char* a = anchor == Anchor::Middle ? "middle" : anchor == Anchor::End ? "end" : "";
  out_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" + attr("text-anchor", a) +
          attr("class", cls) + ">";
  if (!tip.empty()) out_ += "<title>" + escape(tip) + "</title>";
  out_ += escape(t) + "</text>";
}

void Writer::begin_group(std::string_view cls, std::string_view tip) {
  out_ += "<g" + attr("class", cls) + ">";
  if (!tip.empty()) out_ += "<title>" + escape(tip) + "</title>";
  ++open_groups_;
}

void Writer::end_group() {
  if (open_groups_ == 0) return;
  out_ += "</g>";
  --open_groups_;
}

std::string Writer::finish() {
  while (open_groups_ > 0) end_group();
  out_ += "</svg>";
  std::string done;
  done.swap(out_);
  return done;
}

}  // namespace clprof::output::svg
