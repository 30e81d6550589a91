// The SVG writer's pieces: escaping, SI numbers, nice ticks, scales, clipping, elements.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "occurrences.hpp"
#include "output/views/svg.hpp"
#include "output/views/svg_charts.hpp"

using clprof::test::occurrences;
using namespace clprof::output;

TEST_CASE("svg: escape makes markup text and control characters visible") {
  CHECK(svg::escape("<script>alert('x') & \"y\"</script>") ==
        "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
  CHECK(svg::escape("a\nb\x01") == "a\\nb\\x01");
  CHECK(svg::escape("µs") == "µs");  // UTF-8 passes through
}

TEST_CASE("svg: SI numbers") {
  CHECK(svg::si(1.5e-6, "s") == "1.5 µs");
  CHECK(svg::si(2.5e9, "FLOP") == "2.5 GFLOP");
  CHECK(svg::si(0, "s") == "0 s");
  CHECK(svg::si(12, "%") == "12 %");
  CHECK(svg::si(1234, "%") == "1234 %");  // percentages keep their scale
  CHECK(svg::si(999.96, "B") == "1 kB");  // rounds up into the next prefix
  CHECK(svg::si(0.25, "s") == "250 ms");
  CHECK(svg::si(-3e-3, "s") == "-3 ms");
  CHECK(svg::si(123456, "", 3) == "123k");
  CHECK(svg::si_ns(1.5e6) == "1.5 ms");
  CHECK(svg::si(std::nan(""), "s") == "-");
}

TEST_CASE("svg: nice ticks are 1, 2, 5 x 10^k and cover the range") {
  auto t = svg::nice_ticks(0, 9.3, 5);
  CHECK(t.step == doctest::Approx(2));
  CHECK(t.lo == 0);
  CHECK(t.hi == doctest::Approx(10));
  REQUIRE(t.values.size() == 6);
  CHECK(t.values.back() == doctest::Approx(10));
  t = svg::nice_ticks(0.0013, 0.0071, 4);
  CHECK(t.step == doctest::Approx(0.002));
  CHECK(t.lo == doctest::Approx(0.0));
  CHECK(t.hi == doctest::Approx(0.008));
  t = svg::nice_ticks(5, 5, 5);  // a single value gets a range around it
  CHECK(t.lo <= 5);
  CHECK(t.hi > 5);
  t = svg::nice_ticks(0, 0, 5);
  CHECK(t.hi > 0);
  auto l = svg::log_ticks(3e4, 2e8);
  CHECK(l.lo == doctest::Approx(1e4));
  CHECK(l.hi == doctest::Approx(1e9));
  CHECK(l.values.size() == 6);
}

TEST_CASE("svg: scales") {
  const auto lin = svg::Scale::linear(0, 10, 100, 200);
  CHECK(lin(5) == doctest::Approx(150));
  const auto inv = svg::Scale::linear(0, 10, 200, 100);  // y axes run upwards
  CHECK(inv(10) == doctest::Approx(100));
  const auto lg = svg::Scale::log(1, 1000, 0, 300);
  CHECK(lg(10) == doctest::Approx(100));
  CHECK(lg(0) == 0);  // non-positive values land at the start
}

TEST_CASE("svg: clip keeps both ends and whole characters") {
  CHECK(svg::clip("gemmlowp_mm_reshaped_only_rhs_t", 11) == "gemml…rhs_t");
  CHECK(svg::clip("short", 10) == "short");
  CHECK(svg::clip("αβγδεζηθικλ", 5) == "αβ…κλ");
}

TEST_CASE("svg: a writer's elements, tooltips and escaped text") {
  svg::Writer w(100, 50, "a <chart>");
  w.rect(1, 2, 3, 4, "#123456", "tip <b>", "bar");
  w.text(5, 6, "<script>x</script>", svg::Writer::Anchor::End, "label");
  w.begin_group("g");
  w.circle(1, 1, 2, "red");
  const std::string s = w.finish();  // closes the open group
  CHECK(s.rfind("<svg viewBox=\"0 0 100 50\"", 0) == 0);
  CHECK(s.find("aria-label=\"a &lt;chart&gt;\"") != std::string::npos);
  CHECK(s.find("<rect x=\"1\" y=\"2\" width=\"3\" height=\"4\" fill=\"#123456\" "
               "class=\"bar\"><title>tip &lt;b&gt;</title></rect>") != std::string::npos);
  CHECK(s.find("&lt;script&gt;x&lt;/script&gt;") != std::string::npos);
  CHECK(s.find("<script") == std::string::npos);
  CHECK(occurrences(s, "<g") == occurrences(s, "</g>"));
  CHECK(s.size() > 10);
  CHECK(s.substr(s.size() - 6) == "</svg>");
}

TEST_CASE("svg charts: one mark per datum, with its class") {
  std::vector<svg::Bar> bars = {{"a", 1e-3, "1 ms", "", nullptr}, {"b", 2e-3, "2 ms", "", nullptr}};
  CHECK(occurrences(svg::bar_chart("t", bars, "s"), "class=\"bar\"") == 2);
  svg::StackedColumns c;
  c.categories = {"1", "2", "3"};
  c.series = {"x", "y"};
  c.values = {{1, 2}, {1, 0}, {0, 0}};  // zero parts are not drawn
  c.unit = "s";
  CHECK(occurrences(svg::stacked_columns(c), "class=\"seg\"") == 3);
  svg::Scatter sc;
  sc.series = {"k"};
  sc.points = {{1e6, 1e9, std::nullopt, 0, "p"}, {1e8, 5e9, 6e9, 0, "q"}};
  sc.peak = 2e10;
  const std::string scatter = svg::scatter_log_x(sc);
  CHECK(occurrences(scatter, "class=\"point\"") == 2);
  CHECK(occurrences(scatter, "class=\"peak\"") == 1);
  CHECK(occurrences(scatter, "class=\"whisker\"") == 1);
  std::vector<svg::Box> boxes(3);
  for (auto& b : boxes) b = {"k", 1, 2, 3, 4, 5, {0.5, 9}, ""};
  const std::string bp = svg::box_plot("t", boxes, "s", false);
  CHECK(occurrences(bp, "class=\"box\"") == 3);
  CHECK(occurrences(bp, "class=\"outlier\"") == 6);
  std::vector<svg::Lane> lanes = {{"q1", {{0, 1, nullptr, ""}, {2, 3, nullptr, ""}}}, {"q2", {}}};
  CHECK(occurrences(svg::timeline_chart("t", lanes, 0, 3, "s", {{"k", "#000"}}),
                    "class=\"span\"") == 2);
}
