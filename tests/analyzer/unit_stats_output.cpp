// Statistics and output rendering.
#include <doctest/doctest.h>

#include "analyses/stats.hpp"
#include "output/format.hpp"
#include "output/json_writer.hpp"
#include "output/table.hpp"

using namespace clprof;

TEST_CASE("median: odd, even (mean of the middle two, rounded), empty") {
  std::vector<int64_t> odd = {5, 1, 3};
  CHECK(analyses::median_of(odd) == 3);
  std::vector<int64_t> even = {400, 600};
  CHECK(analyses::median_of(even) == 500);
  std::vector<int64_t> half = {1, 2};
  CHECK(analyses::median_of(half) == 2);  // 1.5 rounds away from zero
  std::vector<int64_t> four = {10, 1, 7, 3};
  CHECK(analyses::median_of(four) == 5);
  std::vector<int64_t> none;
  CHECK(analyses::median_of(none) == 0);
}

TEST_CASE("compute_stats: exact values") {
  std::vector<int64_t> v = {100, 200, 300};
  auto s = analyses::compute_stats(v);
  CHECK(s.count == 3);
  CHECK(s.total_ns == 600);
  CHECK(s.mean_ns == 200);
  CHECK(s.median_ns == 200);
  CHECK(s.min_ns == 100);
  CHECK(s.max_ns == 300);
  CHECK(s.stddev_ns == 100);  // sample stddev: sqrt((100^2 + 0 + 100^2) / 2)
  std::vector<int64_t> one = {42};
  auto o = analyses::compute_stats(one);
  CHECK(o.stddev_ns == 0);
  CHECK(o.median_ns == 42);
  std::vector<int64_t> big = {4'000'000'000'000'000'000, 4'000'000'000'000'000'002};
  auto b = analyses::compute_stats(big);
  CHECK(b.median_ns == 4'000'000'000'000'000'001);  // no overflow averaging the middle two
}

TEST_CASE("format_ns: adaptive units") {
  CHECK(output::format_ns(0) == "0 ns");
  CHECK(output::format_ns(950) == "950 ns");
  CHECK(output::format_ns(1234) == "1.234 us");
  CHECK(output::format_ns(12345) == "12.35 us");
  CHECK(output::format_ns(123456) == "123.5 us");
  CHECK(output::format_ns(12345678) == "12.35 ms");
  CHECK(output::format_ns(2'500'000'000) == "2.500 s");
  CHECK(output::format_ns(-1500) == "-1.500 us");
  CHECK(output::format_bytes(512) == "512 B");
  CHECK(output::format_bytes(4096) == "4.0 KiB");
  CHECK(output::format_general(0.000262144) == "0.0002621");
}

TEST_CASE("table: aligned text, shrinking the name column to 80 characters") {
  output::Table t({{"Name", "name", output::Align::Left, true}, {"Count", "count"}});
  t.add_row({output::text_cell(std::string(100, 'x') + "END"), output::int_cell(7)});
  t.add_row({output::text_cell("short"), output::int_cell(12345)});
  const auto text = output::render_text(t, 40);
  CHECK(text == "Name                               Count\n"
                "---------------------------------  -----\n"
                "xxxxxxxxxxxxxxxx..xxxxxxxxxxxxEND      7\n"
                "short                              12345\n");
  CHECK(output::shorten_middle("abcdefghij", 6) == "ab..ij");
}

TEST_CASE("table: csv quoting and raw values; markdown escaping") {
  output::Table t({{"Name", "name", output::Align::Left}, {"Time", "time_ns"}, {"Pct", "percent"}});
  t.add_row({output::text_cell("a,\"b\""), output::ns_cell(1500), output::fixed_cell(12.5, 1)});
  t.add_row({output::text_cell("x|y"), output::ns_cell(std::nullopt), output::fixed_cell(std::nullopt, 1)});
  CHECK(output::render_csv(t) == "name,time_ns,percent\n\"a,\"\"b\"\"\",1500,12.5\nx|y,,\n");
  CHECK(output::render_markdown(t) ==
        "| Name | Time | Pct |\n|---|---:|---:|\n| a,\"b\" | 1.500 us | 12.5 |\n| x\\|y | - | - |\n");
  CHECK_THROWS(t.add_row({output::text_cell("too short")}));
}

TEST_CASE("json writer: optional as null, non-finite as null") {
  output::JsonWriter j;
  j.begin_object();
  j.field("a", std::optional<int64_t>{});
  j.field("b", 1.0 / 0.0);
  j.field("c", int64_t{-3});
  j.end_object();
  CHECK(j.str() == "{\n  \"a\": null,\n  \"b\": null,\n  \"c\": -3\n}\n");
}
