// `clprof advise` on real traces: advise_cases (advise_cases.cpp) recorded on the device in
// its bad and its good mode; each rule of the program's header fires at warning on the bad
// trace and not at all on the good one.
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "e2e_support.hpp"

using namespace clprof::e2e;

namespace {

// rule -> the highest severity it reported ("warning" above "info").
std::map<std::string, std::string> advise_rules(const std::vector<std::string>& traces,
                                                const fs::path& dir, const std::string& tag,
                                                const std::vector<std::string>& options = {}) {
  std::vector<std::string> argv = {paths().clprof_cli.string(), "advise", "--merge", "--format",
                                   "json"};
  argv.insert(argv.end(), options.begin(), options.end());
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

// advise_more.cpp: one rule per case, its bad mode fires it (at warning, except
// queue-serialisation, whose only level is info), its good mode does not fire it at warning
// level. The rank case runs twice, as ranks 0 and 1 of a 2-rank job (the OMPI_COMM_WORLD_*
// variables the shim reads into the header; one CLPROF_SESSION_ID). The build case runs each
// program with an empty POCL_CACHE_DIR of its own (PoCL's binary cache would hide the
// compile: the bad build took 5-8 s cold, 0.1 s warm here); its good mode first runs once
// unrecorded to write the app's binary, then recorded, loading it. Measured here (load
// average 14 on 2 cores): bad build 17.9 s of an 18.4 s wall (warning from 1 s); good, from
// the binary, 0.39 s (info: 33% of a 1.2 s wall); on an idle machine 2000 functions took 7 s
// from source and 0.27 s from their binary.
TEST_CASE("advise_more") {
  REQUIRE_MESSAGE(fs::exists(paths().clprof_cli), "clprof is not built: " << paths().clprof_cli);
  const fs::path dir = fresh_work_dir("advise_more");
  const std::string app = (paths().bin_dir / "advise_more").string();
  struct Case {
    std::string which, rule, bad_severity;
  };
  const std::vector<Case> cases = {
      {"leak", "object-leak", "warning"},        {"local", "local-size-not-multiple", "warning"},
      {"copy", "transfer-bound", "warning"},     {"tiny", "launch-bound", "warning"},
      {"rank", "rank-imbalance", "warning"},     {"idle", "device-idle", "warning"},
      {"queues", "queue-serialisation", "info"}, {"build", "build-dominates", "warning"}};
  for (const auto& [which, rule, bad_severity] : cases) {
    for (const std::string mode : {"bad", "good"}) {
      CAPTURE(which);
      CAPTURE(mode);
      std::vector<std::string> extra;
      if (which == "build" && mode == "good") {
        const fs::path binary = dir / "build-good.bin";
        extra = {binary.string()};
        const RunResult fill =
            run_program({app, which, mode, binary.string()},
                        {{"POCL_CACHE_DIR", fresh_work_dir("advise_more_pocl_fill").string()}}, dir,
                        "fill-binary", 240);
        INFO(fill.out << fill.err);
        REQUIRE(fill.exit_code == 0);
        CHECK(fill.out == "ok (program from source)\n");
      }
      std::vector<std::string> traces;
      for (int rank = 0; rank < (which == "rank" ? 2 : 1); ++rank) {
        const std::string tag = which + "-" + mode + "-" + std::to_string(rank);
        const fs::path trace = dir / (tag + ".json");
        EnvChanges env;
        if (which == "rank")
          env = {{"OMPI_COMM_WORLD_RANK", std::to_string(rank)},
                 {"OMPI_COMM_WORLD_SIZE", "2"},
                 {"CLPROF_SESSION_ID", mode == "bad" ? "00000000000000b1" : "00000000000000b2"}};
        if (which == "build")
          env = {{"POCL_CACHE_DIR", fresh_work_dir("advise_more_pocl_" + mode).string()}};
        std::vector<std::string> argv = {
            paths().clprof_cli.string(), "record", "-o", trace.string(), "--", app, which, mode};
        argv.insert(argv.end(), extra.begin(), extra.end());
        const RunResult rec = run_program(argv, env, dir, "record-" + tag, 240);
        INFO(rec.out << rec.err);
        REQUIRE(rec.exit_code == 0);
        CHECK(rec.out.rfind("ok", 0) == 0);
        if (which == "build")
          CHECK(rec.out ==
                (mode == "bad" ? "ok (program from source)\n" : "ok (program from binary)\n"));
        traces.push_back(trace.string());
      }
      const auto found = advise_rules(traces, dir, "advise-" + which + "-" + mode);
      const auto it = found.find(rule);
      if (mode == "bad") {
        CHECK(it != found.end());
        if (it != found.end()) CHECK(it->second == bad_severity);
      } else {
        // The bar: the good program does not fire the rule at warning level. An info
        // finding of a timing rule (rank-imbalance from 10 %) can come from noise under load
        // or a sanitizer build (seen once under ASan), which no program can rule out; the
        // queue case, whose rule has only the info level, must not fire at all.
        if (it != found.end()) CHECK(it->second != "warning");
        if (which == "queues") CHECK(it == found.end());
      }
    }
  }
}

// advise_gemm.cpp (built with CLBlast): gemm-padding and gemm-below-peak, bad and good.
// pad: the bad trace's helpers took 23.2-40.1% of the indirect GEMM time here (the rule's
// default: 20%; the share moves with the load: 23.2% once, too close to the line for a
// loaded CI machine), so both pad traces are read with the share at 10%
// (--threshold gemm-padding.share=0.1), 2.3x under the lowest share seen; the good one runs
// XgemmDirect only, no helper kernel, so it cannot fire at any share.
// peak: the peak given to both peak traces is the best rate of the good program's three
// 128^3 calls, from their own events (the program prints it; independent of clprof): the best
// any GEMM of the test reached on this device, so a lower bound of its true peak (4.5 GFLOPS
// here, load average 14 on 2 cores). The rule fires below 25% of it: the good trace's calls
// reach it by definition (the same events' times), 4x above the line unless the other two
// calls ran 4x slower; the bad trace's 8^3 calls reached 2.7-12% of the peak in five runs here
// (0.25-0.55 GFLOPS against 4.5-7.8; a tiny launch's time is its fixed cost).
TEST_CASE("advise_gemm") {
  REQUIRE_MESSAGE(fs::exists(paths().clprof_cli), "clprof is not built: " << paths().clprof_cli);
  const fs::path dir = fresh_work_dir("advise_gemm");
  const std::string app = (paths().bin_dir / "advise_gemm").string();
  REQUIRE_MESSAGE(fs::exists(app), "advise_gemm is not built: " << app);
  std::map<std::string, fs::path> trace;
  std::string peak;
  for (const std::string which : {"pad", "peak"})
    for (const std::string mode : {"good", "bad"}) {
      const std::string tag = which + "-" + mode;
      trace[tag] = dir / (tag + ".json");
      const RunResult rec = run_program({paths().clprof_cli.string(), "record", "-o",
                                         trace[tag].string(), "--", app, which, mode},
                                        {}, dir, "record-" + tag, 300);
      INFO(rec.out << rec.err);
      REQUIRE(rec.exit_code == 0);
      REQUIRE(rec.out.rfind("ok", 0) == 0);
      if (tag == "peak-good") {
        peak = rec.out.substr(3, rec.out.find('\n') - 3);
        REQUIRE(std::strtod(peak.c_str(), nullptr) > 0);
      }
    }
  for (const std::string which : {"pad", "peak"})
    for (const std::string mode : {"bad", "good"}) {
      CAPTURE(which);
      CAPTURE(mode);
      const std::string rule = which == "pad" ? "gemm-padding" : "gemm-below-peak";
      std::vector<std::string> options = {"--peak", peak};
      if (which == "pad") options.insert(options.end(), {"--threshold", "gemm-padding.share=0.1"});
      const auto found = advise_rules({trace[which + "-" + mode].string()}, dir,
                                      "advise-" + which + "-" + mode, options);
      CAPTURE(peak);
      const auto it = found.find(rule);
      if (mode == "bad") {
        CHECK(it != found.end());
        if (it != found.end()) CHECK(it->second == "warning");
      } else {
        CHECK(it == found.end());
      }
      // Evaluated, not skipped: the peak was given and the calls have sizes and device times.
      const RunResult table = run_program({paths().clprof_cli.string(), "advise", "--peak", peak,
                                           trace[which + "-" + mode].string()},
                                          {}, dir, "advise-table-" + which + "-" + mode, 60);
      CHECK(table.exit_code == 0);
      CHECK((table.out + table.err).find("not evaluated: " + rule) == std::string::npos);
    }
}
