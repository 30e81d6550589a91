// Kernel variants on PoCL (docs/cli.md, kernels): variants_app (variants_app.cpp) builds one
// source as three programs, -D OP=1, -D OP=2 and -D OP=1 again, and launches their `op` 3, 5
// and 4 times inside the range "stage". Expected, from those loop counts alone:
//   "op [-D OP=1]": 3 + 4 = 7 launches (the third build has the first's source and options:
//                   the same row), "op [-D OP=2]": 5 launches; no row named plain "op".
// kernels, kernels --partial/--from-partials, layers (the nested kernels of "stage"), compare
// of the trace against itself (each variant matched to itself: 7/7 and 5/5) and the HTML
// report all show that split.
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "e2e_support.hpp"

using namespace clprof::e2e;

namespace {

// name -> count of an array of kernel rows ("name", "count").
std::map<std::string, uint64_t> counts_of(const Json& rows) {
  REQUIRE(rows.IsArray());
  std::map<std::string, uint64_t> out;
  for (const auto& r : rows.GetArray()) out[r["name"].GetString()] = r["count"].GetUint64();
  return out;
}

const std::map<std::string, uint64_t> kExpected = {{"op [-D OP=1]", 7}, {"op [-D OP=2]", 5}};

}  // namespace

TEST_CASE("kernel_variants") {
  REQUIRE_MESSAGE(fs::exists(paths().clprof_cli), "clprof is not built: " << paths().clprof_cli);
  const fs::path dir = fresh_work_dir("kernel_variants");
  const fs::path trace = dir / "variants.json";
  const RunResult rec =
      clprof_ok({"record", "-o", trace.string(), "--", (paths().bin_dir / "variants_app").string()},
                dir, "record");
  INFO(rec.out << rec.err);
  CHECK(rec.out.rfind("ok 100", 0) == 0);

  // The trace itself: three programs, two of them with one source hash and options.
  {
    const Trace t(trace);
    CHECK(t.records("program").size() == 3);
    CHECK(t.launches().size() == 12);  // 3 + 5 + 4
  }

  const auto kernels =
      parse_json(clprof_ok({"kernels", "--format", "json", trace.string()}, dir, "kernels").out);
  CHECK(counts_of(kernels) == kExpected);

  // A partial keeps the variants apart (name, source_hash, options), and reads back as one.
  const fs::path partial = dir / "kernels.partial.json";
  {
    const RunResult p = clprof_ok({"kernels", "--partial", trace.string()}, dir, "partial");
    std::ofstream(partial) << p.out;
  }
  const auto merged =
      parse_json(clprof_ok({"kernels", "--from-partials", "--format", "json", partial.string()},
                           dir, "from-partials")
                     .out);
  CHECK(counts_of(merged) == kExpected);

  // layers: every launch is in "stage", whose nested kernels are the two variants.
  const auto layers =
      parse_json(clprof_ok({"layers", "--format", "json", trace.string()}, dir, "layers").out);
  REQUIRE(layers.IsArray());
  REQUIRE(layers.Size() == 1);
  CHECK(std::string(layers[0]["layer"].GetString()) == "stage");
  CHECK(counts_of(layers[0]["kernels"]) == kExpected);

  // compare against itself: each variant matched to itself, 7/7 and 5/5, none new or vanished.
  const auto compare = parse_json(
      clprof_ok({"compare", "--format", "json", trace.string(), trace.string()}, dir, "compare")
          .out);
  REQUIRE(compare.IsArray());
  bool seen = false;
  for (const auto& section : compare.GetArray()) {
    if (std::string(section["section"].GetString()) != "kernels") continue;
    seen = true;
    std::map<std::string, std::pair<uint64_t, uint64_t>> items;
    for (const auto& it : section["items"].GetArray()) {
      REQUIRE(it["base_count"].IsUint64());
      REQUIRE(it["other_count"].IsUint64());
      items[it["name"].GetString()] = {it["base_count"].GetUint64(), it["other_count"].GetUint64()};
    }
    const std::map<std::string, std::pair<uint64_t, uint64_t>> want = {{"op [-D OP=1]", {7, 7}},
                                                                       {"op [-D OP=2]", {5, 5}}};
    CHECK(items == want);
  }
  CHECK(seen);

  // The report lists both variants.
  const fs::path html = dir / "report.html";
  clprof_ok({"report", "-o", html.string(), trace.string()}, dir, "report");
  std::ifstream in(html);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(page.find("op [-D OP=1]") != std::string::npos);
  CHECK(page.find("op [-D OP=2]") != std::string::npos);
}
