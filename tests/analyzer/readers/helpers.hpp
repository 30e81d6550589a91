// Shared helpers of the importer tests: fixture loading and one-call reading.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model.hpp"
#include "readers/reader.hpp"

namespace clprof::test {

// The folder of tests/analyzer/readers whose data/ holds fixture `name` (named after the
// format: armnn_*, vison_* (vison's output for Arm NN), caffe_*, chrome_*, itrex_* (a
// Chrome trace), dvdt_*).
inline std::string fixture_dir(const std::string& name) {
  const std::pair<const char*, const char*> by_prefix[] = {
      {"armnn_", "armnn"},   {"vison_", "armnn"},  {"caffe_", "caffe"},
      {"chrome_", "chrome"}, {"itrex_", "chrome"}, {"dvdt_", "dvdt_prof"}};
  for (const auto& [prefix, dir] : by_prefix)
    if (name.rfind(prefix, 0) == 0) return dir;
  throw std::runtime_error("test fixture " + name + " has no format prefix");
}

// The bytes of tests/analyzer/readers/<format>/data/<name>; fails the test loudly when missing.
inline std::string fixture(const std::string& name) {
  std::string path = std::string(CLPROF_READER_TESTS) + "/" + fixture_dir(name) + "/data/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("missing test fixture " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Reads `content` with `reader` into a fresh Run.
inline model::Run read_with(const readers::Reader& reader, const std::string& content,
                            readers::Diagnostics* diagnostics = nullptr,
                            const std::string& path = "input") {
  model::Run run;
  readers::Diagnostics local;
  reader.read(path, content, run, diagnostics ? *diagnostics : local);
  return run;
}

// The message of the InputError `reader` throws on `content` ("" if none is thrown).
inline std::string error_of(const readers::Reader& reader, const std::string& content,
                            const std::string& path = "bad.json") {
  try {
    read_with(reader, content, nullptr, path);
  } catch (const readers::InputError& e) {
    return e.what();
  }
  return "";
}

// The fixture `name` read by `reader` (its warnings in `diag`): one process, of `format`.
inline model::Run read_one_process(const readers::Reader& reader, const std::string& name,
                                   readers::Diagnostics& diag, const std::string& format) {
  model::Run run = read_with(reader, fixture(name), &diag);
  REQUIRE(run.processes.size() == 1);
  CHECK(run.processes[0].source_format == format);
  return run;
}

// An input `reader` refuses and the message of its InputError (the file named bad.json).
struct BadInput {
  std::string content;
  std::string message;
};
// Each of `inputs` gives its message.
inline void check_errors(const readers::Reader& reader, const std::vector<BadInput>& inputs) {
  for (const BadInput& in : inputs) {
    CAPTURE(in.content);
    CHECK(error_of(reader, in.content) == in.message);
  }
}

// `reader` is named `name`, its sniffer takes each of `taken` and none of `refused`.
inline void check_sniff(const readers::Reader& reader, const std::string& name,
                        const std::vector<std::string>& taken,
                        const std::vector<std::string>& refused) {
  CHECK(reader.name() == name);
  for (const std::string& head : taken) {
    CAPTURE(head);
    CHECK(reader.sniff(head));
  }
  for (const std::string& head : refused) {
    CAPTURE(head);
    CHECK_FALSE(reader.sniff(head));
  }
}

inline const model::Range* range_by_id(const model::Run& run, uint64_t id) {
  for (const auto& r : run.ranges)
    if (r.id == id) return &r;
  return nullptr;
}

// One workload of vison's printed listing (seed 000, data/vison_mobilenet_v2_expected.txt).
struct VisonWorkload {
  std::string name;
  std::vector<std::pair<int64_t, std::string>> kernels;  // (ns, kernel) in print order
};

// vison's per-workload listing: a workload line, then one "\t<time> us \t<kernel>" line per
// kernel, up to the blank line before the totals. vison prints Python floats with at most
// 3 decimals here, so the ns are exact.
inline std::vector<VisonWorkload> parse_vison_listing(const std::string& text) {
  std::vector<VisonWorkload> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) break;
    if (line[0] != '\t') {
      out.push_back({line, {}});
      continue;
    }
    std::istringstream fields(line);
    std::string us_text, unit, kernel;
    fields >> us_text >> unit >> kernel;
    REQUIRE(unit == "us");
    REQUIRE(!out.empty());
    out.back().kernels.emplace_back(std::llround(std::stod(us_text) * 1000.0), kernel);
  }
  return out;
}

// vison's "Total time per kernel" table: kernel -> (total ns, share as printed: a fraction).
inline std::vector<std::pair<std::string, std::pair<int64_t, double>>> parse_vison_totals(
    const std::string& text) {
  std::vector<std::pair<std::string, std::pair<int64_t, double>>> out;
  std::istringstream in(text);
  std::string line;
  bool in_table = false;
  while (std::getline(in, line)) {
    if (line.rfind("Total time per kernel", 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table || line.empty()) continue;
    std::istringstream fields(line);
    std::string us_text, unit, percent_sign, fraction, kernel;
    fields >> us_text >> unit >> percent_sign >> fraction >> kernel;
    REQUIRE(percent_sign == "%");
    out.push_back({kernel, {std::llround(std::stod(us_text) * 1000.0), std::stod(fraction)}});
  }
  return out;
}

}  // namespace clprof::test
