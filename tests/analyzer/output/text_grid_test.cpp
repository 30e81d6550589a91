// The text layout of tables (output/text_grid.hpp): alignment, shortening to a width by
// character, control characters made visible.
#include <doctest/doctest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "output/text_grid.hpp"

using namespace clprof;
using output::Align;
using output::GridColumn;

namespace {

std::string grid(const std::vector<GridColumn>& cols,
                 const std::vector<std::vector<std::string>>& rows, size_t width,
                 bool markdown = false) {
  std::string out;
  auto get = [&rows](size_t i) -> const std::vector<std::string>& { return rows[i]; };
  auto sink = [&out](std::string_view s) { out.append(s); };
  if (markdown)
    output::render_grid_markdown(cols, rows.size(), get, sink);
  else
    output::render_grid_text(cols, rows.size(), get, width, sink);
  return out;
}

// The many-rows cases: a name, a layer path (shortened from its head) and a time.
std::vector<GridColumn> long_columns() {
  return {{"Name", Align::Left, true},
          {"Layer", Align::Left, true, output::Shorten::Head, 12},
          {"Time"}};
}
// Row i: "kernel_with_a_rather_long_name_number_<i>", "network_with_a_long_name/block<i>/
// a_long_layer_name_<i>", "<i> us"; each call counted in `asked`.
output::GridRows long_rows(size_t& asked) {
  auto row = std::make_shared<std::vector<std::string>>();
  return [row, &asked](size_t i) -> const std::vector<std::string>& {
    ++asked;
    *row = {"kernel_with_a_rather_long_name_number_" + std::to_string(i),
            "network_with_a_long_name/block" + std::to_string(i) + "/a_long_layer_name_" +
                std::to_string(i),
            std::to_string(i) + " us"};
    return *row;
  };
}

}  // namespace

TEST_CASE("grid: aligned text, shrinking the name column to the width") {
  const std::vector<GridColumn> cols = {{"Name", Align::Left, true}, {"Count"}};
  const std::string text =
      grid(cols, {{std::string(100, 'x') + "END", "7"}, {"short", "12345"}}, 40);
  CHECK(text ==
        "Name                               Count\n"
        "---------------------------------  -----\n"
        "xxxxxxxxxxxxxxxx..xxxxxxxxxxxxEND      7\n"
        "short                              12345\n");
  CHECK(output::shorten_middle("abcdefghij", 6) == "ab..ij");
  // No width limit: nothing is shortened.
  CHECK(grid(cols, {{std::string(100, 'x'), "7"}}, SIZE_MAX).find(std::string(100, 'x')) !=
        std::string::npos);
}

TEST_CASE("grid: markdown escapes '|' and right-aligns numbers") {
  const std::vector<GridColumn> cols = {{"Name", Align::Left}, {"Time"}};
  CHECK(grid(cols, {{"x|y", "-"}}, 80, true) == "| Name | Time |\n|---|---:|\n| x\\|y | - |\n");
}

TEST_CASE("grid: names from the trace with control characters and non-ASCII letters") {
  // A range name with a newline, a tab and an ANSI colour sequence keeps to one row and
  // sends the terminal no escape; UTF-8 names are measured and cut by character, so the
  // columns stay aligned and no character is split.
  CHECK(output::visible_text("a\nb\tc\x1b[31m\x7f\r") == "a\\nb\\tc\\x1b[31m\\x7f\\r");
  CHECK(output::display_width("caf\xC3\xA9") == 4);
  CHECK(output::display_width("\xE5\x8D\xB7\xE7\xA7\xAF") == 2);  // two CJK characters
  const std::vector<GridColumn> cols = {{"Layer", Align::Left, true}, {"Calls"}};
  const std::vector<std::vector<std::string>> rows = {{"conv\n1\x1b[0m", "1"},
                                                      {"caf\xC3\xA9", "22"}};
  CHECK(grid(cols, rows, 80) ==
        "Layer           Calls\n"
        "--------------  -----\n"
        "conv\\n1\\x1b[0m      1\n"
        "caf\xC3\xA9               22\n");
  CHECK(grid(cols, rows, 80, true).find("| conv\\n1\\x1b[0m | 1 |") != std::string::npos);
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

TEST_CASE("shorten_head keeps the tail, cut at a '/' when that keeps half of the width") {
  CHECK(output::shorten_head("inference/conv1", 15) == "inference/conv1");
  // Tail "ence/block3/conv2" (17 = 19 - 2): from its '/', "/block3/conv2" keeps 12 >= 9.
  CHECK(output::shorten_head("inference/block3/conv2", 19) == "../block3/conv2");
  // The innermost name alone would keep too little: the cut stays inside a name.
  CHECK(output::shorten_head("resnet50_v1_inference_iteration/fc", 25) ==
        ".._inference_iteration/fc");
  CHECK(output::shorten_head("abcdefghij", 6) == "..ghij");
  CHECK(output::shorten_head("abcdefghij", 3) == "hij");
}

TEST_CASE("grid: many rows asked on demand, three times when shortened, in chunks") {
  const std::vector<GridColumn> cols = long_columns();
  size_t asked = 0;
  const auto get = long_rows(asked);
  std::string text;
  size_t chunks = 0;
  output::render_grid_text(cols, 5000, get, 80, [&](std::string_view s) {
    text.append(s);
    ++chunks;
  });
  // Three passes over the 5,000 rows: the widths, the distinct texts of the two shortened
  // columns, the lines.
  CHECK(asked == 15000);
  CHECK(chunks > 1);  // > 64 KiB
  // Widths 42 + 57 + 7 + 4 gaps = 110 in 80: the widest give way first, both capped at one
  // width: 2 * cap + 11 <= 80 gives cap 34 (79 columns), the one left over to the first:
  // name 35, layer 34 (by hand). The layer keeps its tail from a '/'.
  const size_t rule = text.find("\n-");
  REQUIRE(rule != std::string::npos);
  CHECK(text.substr(rule + 1, 35 + 2 + 34 + 2) ==
        std::string(35, '-') + "  " + std::string(34, '-') + "  ");
  CHECK(text.find("  ../block4999/a_long_layer_name_4999") == std::string::npos);  // 35 chars
  CHECK(text.find("network_with_a_long_name/block4999") == std::string::npos);
  for (size_t b = 0, e; (e = text.find('\n', b)) != std::string::npos; b = e + 1)
    CHECK(e - b <= 80);
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

TEST_CASE("grid: rows whose shortened names would read alike stay distinguishable") {
  const std::vector<GridColumn> cols = {{"Kernel", Align::Left, true}, {"Calls"}};
  CHECK(grid(cols,
             {{"global_bandwidth_v1_global_offset", "22"},
              {"global_bandwidth_v2_global_offset", "22"}},
             25) ==
        "Kernel              Calls\n"
        "------------------  -----\n"
        "..v1_global_offset     22\n"
        "..v2_global_offset     22\n");
}

TEST_CASE("grid: the widest shrinkable column gives way first (builds at 200 columns)") {
  // Issue 34: `builds` at 200 columns cut its 14-character options ("-cl-..CL1.1") and kept
  // a 150-character kernel list. By hand: 14 + 2 + 190 = 206 > 200; capping both at 184
  // leaves the options whole and cuts the kernel list by 6.
  const std::vector<GridColumn> cols = {{"Options", Align::Left, true, output::Shorten::Middle, 12},
                                        {"Kernels", Align::Left, true}};
  const std::vector<std::string> row = {" -cl-std=CL1.1", std::string(190, 'k')};
  std::string text;
  output::render_grid_text(
      cols, 1, [&](size_t) -> const std::vector<std::string>& { return row; }, 200,
      [&](std::string_view s) { text.append(s); });
  CHECK(text.find(" -cl-std=CL1.1  ") != std::string::npos);
  const size_t data = text.find(" -cl-std");
  REQUIRE(data != std::string::npos);
  const std::string line = text.substr(data, text.find('\n', data) - data);
  CHECK(line.size() == 200);          // 14 + 2 + 184
  CHECK(line.find("..") == 16 + 91);  // the kernel list cut in its middle: 91 + ".." + 91
}

TEST_CASE("grid: a table not cut to a width asks each row twice and shortens nothing") {
  // The rows of the case above, 2,000 of them: no width (SIZE_MAX) and a width they fit in
  // (the widest line: 42 + 57 + 7 + 4 gaps = 110, by hand) need no third pass.
  const std::vector<GridColumn> cols = long_columns();
  for (const size_t width : {SIZE_MAX, size_t{110}}) {
    size_t asked = 0;
    const auto get = long_rows(asked);
    std::string text;
    output::render_grid_text(cols, 2000, get, width, [&](std::string_view s) { text.append(s); });
    CHECK(asked == 4000);
    CHECK(text.find("network_with_a_long_name/block1999/a_long_layer_name_1999") !=
          std::string::npos);
    CHECK(text.find("..") == std::string::npos);
  }
}

TEST_CASE("grid: past 65,536 distinct long texts a column's texts are shortened each its way") {
  // 70,000 distinct 30-character names, "a", i in 10 digits, 19 'z', in a 20-character column
  // (width 26 = 20 + 2 + the Time column's 4): shorten_middle keeps 9 + ".." + 9 characters,
  // "a00000000..zzzzzzzzz" for every i < 100. Under the ceiling those would be told apart;
  // over it each reads as its own shortening: rows 0 and 1 read alike.
  const std::vector<GridColumn> cols = {{"Name", Align::Left, true, output::Shorten::Middle, 20},
                                        {"Time"}};
  std::vector<std::string> row;
  auto name = [](size_t i) {
    std::string n = std::to_string(i);
    return "a" + std::string(10 - n.size(), '0') + n + std::string(19, 'z');
  };
  auto get = [&](size_t i) -> const std::vector<std::string>& {
    row = {name(i), "1 us"};
    return row;
  };
  std::string text;
  output::render_grid_text(cols, 70000, get, 26, [&](std::string_view s) { text.append(s); });
  const std::string alike = "\na00000000..zzzzzzzzz  1 us\na00000000..zzzzzzzzz  1 us\n";
  CHECK(text.find(alike) != std::string::npos);
  for (size_t b = 0, e; (e = text.find('\n', b)) != std::string::npos; b = e + 1)
    CHECK(e - b <= 26);
}
