// `clprof advise` on real traces: advise_cases (advise_cases.cpp) recorded on the device in
// its bad and its good mode; each rule of the program's header fires at warning on the bad
// trace and not at all on the good one.
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <map>
#include <set>
#include <string>

#include "e2e_support.hpp"

using namespace clprof::e2e;

namespace {

// rule -> the highest severity it reported ("warning" above "info").
std::map<std::string, std::string> advise_rules(const std::vector<std::string>& traces,
                                                const fs::path& dir, const std::string& tag) {
  std::vector<std::string> argv = {paths().clprof_cli.string(), "advise", "--merge", "--format",
                                   "json"};
  argv.insert(argv.end(), traces.begin(), traces.end());
  const RunResult r = run_program(argv, {}, dir, tag, 60);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  rapidjson::Document doc;
  doc.Parse(r.out.c_str());
  REQUIRE(!doc.HasParseError());
  REQUIRE(doc.IsArray());
  std::map<std::string, std::string> out;
  for (const auto& f : doc.GetArray()) {
    const std::string rule = f["rule"].GetString(), severity = f["severity"].GetString();
    if (out[rule] != "warning") out[rule] = severity;
  }
  return out;
}

}  // namespace

TEST_CASE("advise_cases") {
  REQUIRE_MESSAGE(fs::exists(paths().clprof_cli), "clprof is not built: " << paths().clprof_cli);
  const fs::path dir = fresh_work_dir("advise_cases");
  const std::string app = (paths().bin_dir / "advise_cases").string();
  std::map<std::string, std::map<std::string, std::string>> found;
  for (const std::string mode : {"bad", "good"}) {
    const fs::path trace = dir / (mode + ".json");
    const RunResult rec =
        run_program({paths().clprof_cli.string(), "record", "-o", trace.string(), "--", app, mode},
                    {}, dir, "record-" + mode, 240);
    INFO(rec.out << rec.err);
    REQUIRE(rec.exit_code == 0);
    CHECK(rec.out.rfind("ok ", 0) == 0);
    found[mode] = advise_rules({trace.string()}, dir, "advise-" + mode);
    // --fail-on warning: exit 3 on the bad trace; on the good one 3 exactly when some other
    // rule warns (device-idle can, on a loaded machine: the host is slow to enqueue), else 0.
    bool warned = false;
    for (const auto& [rule, severity] : found[mode]) warned = warned || severity == "warning";
    const RunResult gate = run_program({paths().clprof_cli.string(), "advise", "--fail-on",
                                        "warning", "--format", "csv", trace.string()},
                                       {}, dir, "gate-" + mode, 60);
    CAPTURE(gate.err);
    CHECK(gate.exit_code == (warned ? 3 : 0));
    if (mode == "bad") CHECK(warned);
  }
  for (const std::string rule : {"sync-after-each-launch", "blocking-transfer",
                                 "default-local-size", "repeated-build", "api-errors"}) {
    CAPTURE(rule);
    CHECK(found["bad"][rule] == "warning");
    CHECK(found["good"].count(rule) == 0);
  }
}

// advise_more.cpp: one rule per case, its bad mode fires it at warning, its good mode does
// not fire it at all. The rank case runs twice, as ranks 0 and 1 of a 2-rank job (the
// OMPI_COMM_WORLD_* variables the shim reads into the header; one CLPROF_SESSION_ID).
TEST_CASE("advise_more") {
  REQUIRE_MESSAGE(fs::exists(paths().clprof_cli), "clprof is not built: " << paths().clprof_cli);
  const fs::path dir = fresh_work_dir("advise_more");
  const std::string app = (paths().bin_dir / "advise_more").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"leak", "object-leak"},
      {"local", "local-size-not-multiple"},
      {"copy", "transfer-bound"},
      {"tiny", "launch-bound"},
      {"rank", "rank-imbalance"}};
  for (const auto& [which, rule] : cases) {
    for (const std::string mode : {"bad", "good"}) {
      CAPTURE(which);
      CAPTURE(mode);
      std::vector<std::string> traces;
      for (int rank = 0; rank < (which == "rank" ? 2 : 1); ++rank) {
        const std::string tag = which + "-" + mode + "-" + std::to_string(rank);
        const fs::path trace = dir / (tag + ".json");
        EnvChanges env;
        if (which == "rank")
          env = {{"OMPI_COMM_WORLD_RANK", std::to_string(rank)},
                 {"OMPI_COMM_WORLD_SIZE", "2"},
                 {"CLPROF_SESSION_ID", mode == "bad" ? "00000000000000b1" : "00000000000000b2"}};
        const RunResult rec = run_program(
            {paths().clprof_cli.string(), "record", "-o", trace.string(), "--", app, which, mode},
            env, dir, "record-" + tag, 120);
        INFO(rec.out << rec.err);
        REQUIRE(rec.exit_code == 0);
        CHECK(rec.out.rfind("ok", 0) == 0);
        traces.push_back(trace.string());
      }
      const auto found = advise_rules(traces, dir, "advise-" + which + "-" + mode);
      const auto it = found.find(rule);
      if (mode == "bad") {
        CHECK(it != found.end());
        if (it != found.end()) CHECK(it->second == "warning");
      } else {
        // The bar: the good program does not fire the rule at warning level. An info
        // finding of a timing rule (rank-imbalance from 10 %) can come from noise under load
        // or a sanitizer build (seen once under ASan), which no program can rule out.
        if (it != found.end()) CHECK(it->second != "warning");
      }
    }
  }
}
