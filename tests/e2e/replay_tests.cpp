// CLPROF_CAPTURE and `clprof replay` on the real device (PoCL): replay_app's launches are
// captured, the app's output, reference counts and event states are the same with the
// capture as without the shim, and the replays of its 1-D and 2-D kernels verify; an
// altered capture does not (exit 4); --sweep local includes the app's own size; captures
// from several threads; bad input fails with a sentence naming the file, launch or device.
//
// The expected values are the app's arithmetic, done here: saxpy's y = 2.5 * x + y with
// x[i] = i, y[i] = 2i over i < 1000 (small integers: exact in float, with or without FMA).
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "e2e_support.hpp"

using namespace clprof::e2e;

namespace {

std::string app() {
  return (paths().bin_dir / "replay_app").string();
}

std::vector<float> floats_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<float> out(bytes.size() / 4);
  std::memcpy(out.data(), bytes.data(), out.size() * 4);
  return out;
}

// replay_app under the shim with CLPROF_CAPTURE=`pattern`, checked against a run without
// it (same exit code and stdout); returns the trace's path.
fs::path record(const fs::path& dir, const std::string& pattern,
                const std::vector<std::string>& args = {}, const std::string& limit = "1") {
  const fs::path trace = dir / "t.json";
  std::vector<std::string> argv{app()};
  argv.insert(argv.end(), args.begin(), args.end());
  const RunResult r = run_with_and_without_shim(
      argv, dir, trace, 240, {{"CLPROF_CAPTURE", pattern}, {"CLPROF_CAPTURE_LIMIT", limit}});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("capture is off") == std::string::npos);
  return trace;
}

struct Replayed {
  RunResult run;
  rapidjson::Document json;
};

Replayed replay(const fs::path& trace, const std::vector<std::string>& args, const fs::path& dir,
                const std::string& tag, bool parse = true) {
  std::vector<std::string> argv{paths().clprof_cli.string(), "replay", trace.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  Replayed out;
  out.run = run_program(argv, {}, dir, tag, 240);
  if (parse) {
    INFO(out.run.out << out.run.err);
    out.json.Parse(out.run.out.c_str());
    REQUIRE(!out.json.HasParseError());
    REQUIRE(out.json.IsObject());
  }
  return out;
}

const Json* capture_record(const Trace& t, uint64_t id) {
  for (const Json* c : t.records("capture"))
    if (get_uint(*c, "id") == id) return c;
  return nullptr;
}

}  // namespace

TEST_CASE("replay_capture") {
  const fs::path dir = fresh_work_dir("replay_capture");
  const fs::path trace = record(dir, "^(saxpy|stencil2d)$");
  const Trace t(trace);
  check_trace_invariants(t);
  // The two kernels' first launches are captured (limit 1), the second saxpy is not.
  const auto saxpy = t.launches_of("saxpy");
  const auto stencil = t.launches_of("stencil2d");
  REQUIRE(saxpy.size() == 2);
  REQUIRE(stencil.size() == 1);
  REQUIRE(has_member(*saxpy[0].record, "capture"));
  CHECK_FALSE(has_member(*saxpy[1].record, "capture"));
  REQUIRE(has_member(*stencil[0].record, "capture"));
  const uint64_t saxpy_id = get_uint(*saxpy[0].record, "capture");
  const uint64_t stencil_id = get_uint(*stencil[0].record, "capture");
  CHECK(saxpy_id == 1);
  CHECK(stencil_id == 2);
  const Json* rec = capture_record(t, saxpy_id);
  REQUIRE(rec);
  CHECK(get_string(*rec, "status") == "captured");
  CHECK(get_string(*rec, "kernel") == "saxpy");
  CHECK(get_string(*rec, "dir") == "t.json.capture/1");

  // The captured contents, against the app's own arithmetic: y before is 2i; after it is
  // 2.5i + 2i below n = 1000 and 2i from there; x is the sub-buffer's parent, whole.
  const fs::path cap = dir / "t.json.capture" / "1";
  const std::vector<float> y_before = floats_of(cap / "buffer0.before.bin");
  const std::vector<float> y_after = floats_of(cap / "buffer0.after.bin");
  const std::vector<float> xs = floats_of(cap / "buffer1.before.bin");
  REQUIRE(y_before.size() == 1024);
  REQUIRE(y_after.size() == 1024);
  REQUIRE(xs.size() == 2048);
  for (int i = 0; i < 1024; ++i) {
    INFO("i = " << i);
    CHECK(y_before[i] == static_cast<float>(2 * i));
    CHECK(y_after[i] == (i < 1000 ? static_cast<float>(4.5 * i) : static_cast<float>(2 * i)));
    CHECK(xs[1024 + i] == static_cast<float>(i));
  }

  // 1-D, by kernel name.
  Replayed r1 =
      replay(trace, {"--kernel", "saxpy", "--repeat", "3", "--format", "json"}, dir, "r1");
  CHECK(r1.run.exit_code == 0);
  CHECK(std::string(r1.json["kernel"].GetString()) == "saxpy");
  CHECK(r1.json["seq"].GetUint64() == saxpy[0].seq);
  CHECK(r1.json["verified"].IsBool());
  CHECK(r1.json["verified"].GetBool());
  CHECK(r1.json["recorded_ns"].IsInt64());
  CHECK(r1.json["replay_min_ns"].GetInt64() <= r1.json["replay_ns"].GetInt64());
  CHECK(r1.json["replay_ns"].GetInt64() <= r1.json["replay_max_ns"].GetInt64());
  CHECK(std::string(r1.json["device"].GetString()).find("CPU") != std::string::npos);

  // 2-D, by seq, the table format too.
  Replayed r2 = replay(
      trace, {"--launch", std::to_string(stencil[0].seq), "--repeat", "3", "--format", "json"}, dir,
      "r2");
  CHECK(r2.run.exit_code == 0);
  CHECK(std::string(r2.json["kernel"].GetString()) == "stencil2d");
  CHECK(r2.json["verified"].GetBool());
  CHECK(r2.json["lws"].Size() == 2);
  Replayed r3 = replay(trace, {"--launch", std::to_string(stencil[0].seq), "--repeat", "2"}, dir,
                       "r3", false);
  CHECK(r3.run.exit_code == 0);
  CHECK(r3.run.out.find("stencil2d") != std::string::npos);
}

TEST_CASE("replay_altered") {
  const fs::path dir = fresh_work_dir("replay_altered");
  const fs::path trace = record(dir, "^saxpy$");
  // One float of y's captured result changed: 4.5 * 10 becomes 46.
  const fs::path after = dir / "t.json.capture" / "1" / "buffer0.after.bin";
  std::vector<float> y = floats_of(after);
  REQUIRE(y.size() == 1024);
  REQUIRE(y[10] == 45.0f);
  y[10] = 46.0f;
  {
    std::ofstream out(after, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(y.data()), static_cast<std::streamsize>(y.size() * 4));
  }
  Replayed r = replay(trace, {"--kernel", "saxpy", "--repeat", "2", "--format", "json"}, dir, "r");
  CHECK(r.run.exit_code == 4);
  CHECK(r.json["verified"].IsBool());
  CHECK_FALSE(r.json["verified"].GetBool());
}

TEST_CASE("replay_sweep") {
  const fs::path dir = fresh_work_dir("replay_sweep");
  const fs::path trace = record(dir, "^stencil2d$");
  Replayed r = replay(
      trace, {"--kernel", "stencil2d", "--repeat", "2", "--sweep", "local", "--format", "json"},
      dir, "r");
  INFO(r.run.out << r.run.err);
  CHECK(r.run.exit_code == 0);
  REQUIRE(r.json.HasMember("candidates"));
  const Json& c = r.json["candidates"];
  REQUIRE(c.Size() >= 3);
  int apps = 0, nulls = 0;
  int64_t last = -1;
  for (const Json& k : c.GetArray()) {
    // The kernel's output does not depend on the local size: every candidate verifies.
    CHECK(k["verified"].GetBool());
    CHECK(k["median_ns"].GetInt64() >= last);  // fastest first
    last = k["median_ns"].GetInt64();
    if (k["lws"].IsNull()) {
      ++nulls;
      continue;
    }
    // Each divides the global size 64x32 in each dimension.
    REQUIRE(k["lws"].Size() == 2);
    CHECK(64 % k["lws"][0].GetUint64() == 0);
    CHECK(32 % k["lws"][1].GetUint64() == 0);
    if (k["app"].GetBool()) {
      ++apps;
      CHECK(k["lws"][0].GetUint64() == 8);
      CHECK(k["lws"][1].GetUint64() == 4);
    }
  }
  CHECK(apps == 1);
  CHECK(nulls == 1);
  // --options: the captured options and the given ones, both verified.
  Replayed o = replay(trace,
                      {"--kernel", "stencil2d", "--repeat", "2", "--options",
                       "-cl-fast-relaxed-math", "--format", "json"},
                      dir, "o");
  CHECK(o.run.exit_code == 0);
  REQUIRE(o.json["candidates"].Size() == 2);
}

TEST_CASE("replay_threads") {
  const fs::path dir = fresh_work_dir("replay_threads");
  const fs::path trace = record(dir, "saxpy", {"threads", "4"}, "3");
  const Trace t(trace);
  check_trace_invariants(t);
  // 4 threads x 3 launches, 3 captured (the limit is per name), ids 1..3, distinct.
  const auto launches = t.launches_of("saxpy");
  REQUIRE(launches.size() == 12);
  std::vector<uint64_t> ids;
  for (const auto& l : launches)
    if (has_member(*l.record, "capture")) ids.push_back(get_uint(*l.record, "capture"));
  REQUIRE(ids.size() == 3);
  CHECK(ids == std::vector<uint64_t>{1, 2, 3});  // in seq order: captures are serialised
  for (const auto& l : launches) {
    if (!has_member(*l.record, "capture")) continue;
    Replayed r =
        replay(trace, {"--launch", std::to_string(l.seq), "--repeat", "1", "--format", "json"}, dir,
               "r" + std::to_string(l.seq));
    CHECK(r.run.exit_code == 0);
    CHECK(r.json["verified"].GetBool());
  }
}

TEST_CASE("replay_bad_input") {
  const fs::path dir = fresh_work_dir("replay_bad_input");
  const fs::path trace = record(dir, "^saxpy$");
  const Trace t(trace);
  const auto saxpy = t.launches_of("saxpy");
  REQUIRE(saxpy.size() == 2);
  // A launch that was not captured.
  Replayed a = replay(trace, {"--launch", std::to_string(saxpy[1].seq)}, dir, "a", false);
  CHECK(a.run.exit_code == 2);
  CHECK(a.run.err.find("was not captured") != std::string::npos);
  CHECK(a.run.err.find(std::to_string(saxpy[0].seq) + " (saxpy)") != std::string::npos);
  // A device that cannot build the program: exit 5, naming the device.
  Replayed b = replay(trace, {"--kernel", "saxpy", "--options", "-DBROKEN"}, dir, "b", false);
  CHECK(b.run.exit_code == 5);
  CHECK(b.run.err.find("does not build") != std::string::npos);
  CHECK(b.run.err.find("on device") != std::string::npos);
  // A damaged manifest: exit 2, naming the file.
  const fs::path manifest = dir / "t.json.capture" / "1" / "capture.json";
  std::string text;
  {
    std::ifstream in(manifest);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  {
    std::ofstream out(manifest, std::ios::trunc);
    out << text.substr(0, text.size() / 2);
  }
  Replayed c = replay(trace, {"--kernel", "saxpy"}, dir, "c", false);
  CHECK(c.run.exit_code == 2);
  CHECK(c.run.err.find(manifest.string()) != std::string::npos);
  // A buffer file cut short.
  {
    std::ofstream out(manifest, std::ios::trunc);
    out << text;
  }
  fs::resize_file(dir / "t.json.capture" / "1" / "buffer0.before.bin", 100);
  Replayed d = replay(trace, {"--kernel", "saxpy"}, dir, "d", false);
  CHECK(d.run.exit_code == 2);
  CHECK(d.run.err.find("buffer0.before.bin") != std::string::npos);
  // The folder missing.
  fs::remove_all(dir / "t.json.capture");
  Replayed e = replay(trace, {"--kernel", "saxpy"}, dir, "e", false);
  CHECK(e.run.exit_code == 2);
  CHECK(e.run.err.find("t.json.capture/1") != std::string::npos);
  // A kernel never captured; neither --launch nor --kernel.
  Replayed f = replay(trace, {"--kernel", "nope"}, dir, "f", false);
  CHECK(f.run.exit_code == 2);
  Replayed g = replay(trace, {}, dir, "g", false);
  CHECK(g.run.exit_code == 2);
}
