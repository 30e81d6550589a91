// CLI golden tests: `clprof kernels|layers --format csv` on imported profiles, compared with
// what the other tools print for the same files (vison's listing and totals, seed 000).
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "helpers.hpp"

namespace {

struct Result {
  int status = -1;
  std::string out;  // stdout and stderr
};

Result run_clprof(const std::string& args) {
  std::string cmd = std::string("'") + CLPROF_BIN + "' " + args + " 2>&1";
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  r.status = pclose(p);
  return r;
}

std::string data(const std::string& name) { return std::string("'") + CLPROF_IMPORTER_DATA + "/" + name + "'"; }

// CSV rows as maps column -> text (clprof quotes fields only when needed).
std::vector<std::map<std::string, std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields.emplace_back();
      } else {
        fields.back() += c;
      }
    }
    rows.push_back(std::move(fields));
  }
  std::vector<std::map<std::string, std::string>> out;
  for (size_t r = 1; r < rows.size(); ++r) {
    std::map<std::string, std::string> m;
    for (size_t c = 0; c < rows[0].size() && c < rows[r].size(); ++c) m[rows[0][c]] = rows[r][c];
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

TEST_CASE("cli: clprof layers on the Arm NN MobileNet stdout lists what vison lists") {
  Result r = run_clprof("layers --format csv " + data("armnn_executenetwork_stdout_mobilenet_v2.txt"));
  REQUIRE(r.status == 0);
  auto rows = parse_csv(r.out);
  std::vector<std::string> expected, actual;
  for (const auto& w : clprof::test::parse_vison_listing(clprof::test::fixture("vison_mobilenet_v2_expected.txt")))
    for (const auto& [ns, kernel] : w.kernels) expected.push_back(w.name + " | " + kernel + " | 1 | " + std::to_string(ns));
  for (const auto& row : rows) {
    CHECK(row.at("iteration") == "1");
    CHECK(row.at("wall_ns") == "557918542");  // vison: Inference time: 557918.542 us
    actual.push_back(row.at("layer") + " | " + row.at("kernel") + " | " + row.at("count") + " | " + row.at("total_ns"));
  }
  CHECK(actual.size() == 102);
  CHECK(actual == expected);
}

TEST_CASE("cli: clprof kernels on the Arm NN MobileNet stdout gives vison's totals and shares") {
  Result r = run_clprof("kernels --format csv " + data("armnn_executenetwork_stdout_mobilenet_v2.txt"));
  REQUIRE(r.status == 0);
  std::map<std::string, std::map<std::string, std::string>> by_name;
  int64_t total = 0;
  for (auto& row : parse_csv(r.out)) {
    total += std::stoll(row.at("total_ns"));
    by_name[row.at("name")] = row;
  }
  CHECK(total == 546727719);  // vison: Total kernel time 546727.7189999997 us
  auto totals = clprof::test::parse_vison_totals(clprof::test::fixture("vison_mobilenet_v2_expected.txt"));
  REQUIRE(totals.size() == 7);
  CHECK(by_name.size() == totals.size());
  for (const auto& [kernel, t] : totals) {
    CAPTURE(kernel);
    REQUIRE(by_name.count(kernel) == 1);
    CHECK(std::stoll(by_name[kernel].at("total_ns")) == t.first);
    // vison prints the fraction with 8 decimals and labels it "%"; clprof prints percent.
    CHECK(std::fabs(std::stod(by_name[kernel].at("percent")) - 100.0 * t.second) < 1e-6);
  }
}

TEST_CASE("cli: every inference of a multi-inference Arm NN profile is reported") {
  Result r = run_clprof("layers --format csv " + data("armnn_profile_small_constructed.json"));
  REQUIRE(r.status == 0);
  std::map<std::string, std::string> wall;
  std::map<std::string, int64_t> kernel_ns;
  for (const auto& row : parse_csv(r.out)) {
    wall[row.at("iteration")] = row.at("wall_ns");
    kernel_ns[row.at("iteration")] += std::stoll(row.at("total_ns"));
  }
  CHECK(wall == std::map<std::string, std::string>{{"1", "11612500"}, {"2", "11530000"}});
  CHECK(kernel_ns["1"] == 600648 + 202434 + 6158540 + 3352214 + 179066 + 28107 + 14828);
  CHECK(kernel_ns["2"] == 598100 + 199870 + 6101250 + 3340500 + 177500 + 27900 + 14200);
}

TEST_CASE("cli: imported dvdt-prof, Chrome and forced formats; errors carry file:line:column") {
  Result k = run_clprof("kernels --format csv " + data("dvdt_prof_sample_small.json"));
  REQUIRE(k.status == 0);
  auto rows = parse_csv(k.out);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].at("name") == "direct_convolution3x3");
  CHECK(rows[0].at("total_ns") == std::to_string(315018692272950 - 315018685913158));

  Result c = run_clprof("kernels --format csv --input-format chrome " + data("itrex_engine_profiling_trace_sample.json"));
  REQUIRE(c.status == 0);
  std::map<std::string, std::string> ops;
  for (const auto& row : parse_csv(c.out)) ops[row.at("name")] = row.at("count") + "/" + row.at("total_ns");
  CHECK(ops["MatMul_52"] == "2/385000");
  CHECK(ops["padding_sequence"] == "2/42000");

  Result forced = run_clprof("kernels --input-format armnn " + data("dvdt_prof_sample_small.json"));
  CHECK(forced.status != 0);
  CHECK(forced.out.find("dvdt_prof_sample_small.json:2:3: expected an Arm NN profile") != std::string::npos);
}
