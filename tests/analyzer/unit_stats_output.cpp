// Statistics and output rendering.
#include <doctest/doctest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

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

TEST_CASE("table: names from the trace with control characters and non-ASCII letters") {
  // A range name with a newline, a tab and an ANSI colour sequence keeps to one row and
  // sends the terminal no escape; UTF-8 names are measured and cut by character, so the
  // columns stay aligned and no character is split.
  CHECK(output::visible_text("a\nb\tc\x1b[31m\x7f\r") == "a\\nb\\tc\\x1b[31m\\x7f\\r");
  CHECK(output::display_width("caf\xC3\xA9") == 4);
  CHECK(output::display_width("\xE5\x8D\xB7\xE7\xA7\xAF") == 2);  // two CJK characters
  output::Table t({{"Layer", "layer", output::Align::Left, true}, {"Calls", "calls"}});
  t.add_row({output::text_cell("conv\n1\x1b[0m"), output::int_cell(1)});
  t.add_row({output::text_cell("caf\xC3\xA9"), output::int_cell(22)});
  CHECK(output::render_text(t, 80) ==
        "Layer           Calls\n"
        "--------------  -----\n"
        "conv\\n1\\x1b[0m      1\n"
        "caf\xC3\xA9               22\n");
  CHECK(output::render_markdown(t).find("| conv\\n1\\x1b[0m | 1 |") != std::string::npos);
  CHECK(output::render_csv(t).find("\"conv\n1\x1b[0m\",1") != std::string::npos);  // raw
  // Shortening counts characters and never splits one (each "\xC3\xA9" is one).
  const std::string e = "\xC3\xA9";
  std::string long_name;
  for (int i = 0; i < 30; ++i) long_name += e;
  CHECK(output::shorten_middle(long_name, 8) == e + e + e + ".." + e + e + e);
  CHECK(output::shorten_head(long_name, 5) == ".." + e + e + e);
  const std::vector<std::string> alike = {"a" + long_name + "1" + long_name,
                                          "a" + long_name + "2" + long_name};
  for (const std::string& shown : output::shorten_column(alike, 20, output::Shorten::Middle)) {
    CHECK(output::display_width(shown) <= 20);
    CHECK(shown.find("..") != std::string::npos);
    for (size_t i = 0; i < shown.size(); ++i)  // bytes of "\xC3\xA9" stay in pairs
      if (static_cast<unsigned char>(shown[i]) == 0xC3)
        CHECK(static_cast<unsigned char>(shown[i + 1]) == 0xA9);
  }
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

TEST_CASE("shorten_head keeps the tail, cut at a '/' when that keeps half of the width") {
  CHECK(output::shorten_head("inference/conv1", 15) == "inference/conv1");
  // Tail "ence/block3/conv2" (17 = 19 - 2): from its '/', "/block3/conv2" keeps 12 >= 9.
  CHECK(output::shorten_head("inference/block3/conv2", 19) == "../block3/conv2");
  // The innermost name alone would keep too little: the cut stays inside a name.
  CHECK(output::shorten_head("resnet50_v1_inference_iteration/fc", 25) == ".._inference_iteration/fc");
  CHECK(output::shorten_head("abcdefghij", 6) == "..ghij");
  CHECK(output::shorten_head("abcdefghij", 3) == "hij");
}

TEST_CASE("render_stream renders like render, asking rows on demand, in every format") {
  std::vector<output::Column> cols = {{"Name", "name", output::Align::Left, true},
                                      {"Layer", "layer", output::Align::Left, true, output::Shorten::Head, 12},
                                      {"Time", "time_ns"}};
  output::Table t(cols);
  auto cells = [](size_t i) {
    return std::vector<output::Cell>{
        output::text_cell("kernel_with_a_rather_long_name_number_" + std::to_string(i)),
        output::text_cell("network_with_a_long_name/block" + std::to_string(i) + "/a_long_layer_name_" +
                          std::to_string(i)),
        output::ns_cell(static_cast<int64_t>(1000 * i))};
  };
  for (size_t i = 0; i < 5000; ++i) t.add_row(cells(i));  // > 64 KiB: several chunks
  size_t asked = 0;
  const output::RowSource source = [&](size_t i, std::vector<output::Cell>& row) {
    ++asked;
    row = cells(i);
  };
  for (auto format : {output::Format::Table, output::Format::Csv, output::Format::Markdown}) {
    std::string streamed;
    size_t chunks = 0;
    asked = 0;
    output::render_stream(cols, 5000, source, format, 80, [&](std::string_view s) {
      streamed.append(s);
      ++chunks;
    });
    CHECK(streamed == output::render(t, format, 80));
    CHECK(chunks > 1);
    CHECK(asked == (format == output::Format::Table ? 10000 : 5000));
  }
  // Widths 42 + 57 + 8 + 4: the name column gives 26 (down to 16), the layer column the
  // remaining 5 (57 -> 52), keeping its tail from a '/'; every line fits in 80 columns.
  const std::string text = output::render(t, output::Format::Table, 80);
  CHECK(text.find("kernel_..er_4999  ../block4999/a_long_layer_name_4999") != std::string::npos);
  CHECK(text.find("network_with_a_long_name/block0/a_long_layer_name_0 ") != std::string::npos);
  CHECK(text.find("network_with_a_long_name/block4999") == std::string::npos);
  for (size_t b = 0, e; (e = text.find('\n', b)) != std::string::npos; b = e + 1) CHECK(e - b <= 80);
  const output::RowSource bad = [](size_t, std::vector<output::Cell>& row) { row.resize(2); };
  CHECK_THROWS_AS(output::render_stream(cols, 1, bad, output::Format::Csv, 80, [](std::string_view) {}),
                  std::logic_error);
}

TEST_CASE("json writer: drain() streams a document in pieces") {
  output::JsonWriter whole, parts;
  std::string streamed;
  for (auto* j : {&whole, &parts}) j->begin_array();
  for (int i = 0; i < 10; ++i) {
    for (auto* j : {&whole, &parts}) {
      j->begin_object();
      j->field("i", i);
      j->end_object();
    }
    if (i % 3 == 0) streamed += parts.drain();
  }
  for (auto* j : {&whole, &parts}) j->end_array();
  streamed += parts.drain();
  CHECK(streamed + "\n" == whole.str());
  CHECK(parts.drain().empty());
}

TEST_CASE("shorten_column: names that would read alike are shortened so that they differ") {
  // clpeak's kernels: the middle is cut, and v1/v2/v4 ... all read "global_bandwi..lobal_offset".
  std::vector<std::string> names;
  for (const char* v : {"v1", "v2", "v4", "v8", "v16"})
    for (const char* o : {"global", "local"})
      names.push_back(std::string("global_bandwidth_") + v + "_" + o + "_offset");
  names.push_back("short_kernel");
  names.push_back("a_kernel_with_a_rather_long_unique_name");
  const std::vector<std::string> shown = output::shorten_column(names, 27, output::Shorten::Middle);
  REQUIRE(shown.size() == names.size());
  CHECK(std::set<std::string>(shown.begin(), shown.end()).size() == names.size());
  for (const std::string& s : shown) CHECK(s.size() <= 27);
  CHECK(shown[0] == "..andwidth_v1_global_offset");  // the ends differ: the tail is kept
  CHECK(shown[9] == "..andwidth_v16_local_offset");
  // Names that read alike with no other: shortened the column's way, or not at all.
  CHECK(shown[10] == "short_kernel");
  CHECK(shown[11] == output::shorten_middle(names[11], 27));

  // Alike at both ends, different only in the middle: the part that differs is shown.
  const std::string head = "conv2d_winograd_nchw_", tail = "_fp16_relu_batch_norm_fused";
  const std::vector<std::string> convs = {head + "3x3" + tail, head + "5x5" + tail};
  const std::vector<std::string> c = output::shorten_column(convs, 24, output::Shorten::Middle);
  CHECK(c[0] == "conv2d..chw_3x3_fp16_r..");
  CHECK(c[1] == "conv2d..chw_5x5_fp16_r..");
  CHECK(c[0].find("3x3") != std::string::npos);
  CHECK(c[1].find("5x5") != std::string::npos);

  // Layer paths (shortened from the head): alike at the end, told apart by their start.
  const std::vector<std::string> paths = {"encoder/block_one/attention/softmax",
                                          "decoder/block_one/attention/softmax"};
  const std::vector<std::string> p = output::shorten_column(paths, 20, output::Shorten::Head);
  CHECK(p[0] != p[1]);
  CHECK(p[0].rfind("encoder", 0) == 0);

  // Too narrow to tell apart any other way: shown whole (wider than the column, but true).
  const std::vector<std::string> tight = {"aaaaaaaaaaXbbbbbbbbbb", "aaaaaaaaaaYbbbbbbbbbb"};
  CHECK(output::shorten_column(tight, 8, output::Shorten::Middle) == tight);
}

TEST_CASE("table: rows whose shortened names would read alike stay distinguishable") {
  output::Table t({{"Kernel", "name", output::Align::Left, true}, {"Calls", "count"}});
  t.add_row({output::text_cell("global_bandwidth_v1_global_offset"), output::int_cell(22)});
  t.add_row({output::text_cell("global_bandwidth_v2_global_offset"), output::int_cell(22)});
  CHECK(output::render_text(t, 25) ==
        "Kernel              Calls\n"
        "------------------  -----\n"
        "..v1_global_offset     22\n"
        "..v2_global_offset     22\n");
}
