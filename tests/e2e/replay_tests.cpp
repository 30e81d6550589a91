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

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "e2e_support.hpp"
#include "replay/replay.hpp"

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
  // The sweep is stored beside the capture, the same candidates in the same order.
  const fs::path sweep = dir / "t.json.capture" / "1" / "sweep.json";
  REQUIRE(fs::exists(sweep));
  rapidjson::Document stored;
  {
    std::ifstream in(sweep);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    stored.Parse(text.c_str());
  }
  REQUIRE(stored.IsObject());
  CHECK(std::string(stored["kernel"].GetString()) == "stencil2d");
  CHECK(stored["capture"].GetUint64() == 1);
  REQUIRE(stored["candidates"].Size() == c.Size());
  for (rapidjson::SizeType i = 0; i < c.Size(); ++i) {
    CHECK(stored["candidates"][i]["median_ns"].GetInt64() == c[i]["median_ns"].GetInt64());
    CHECK(stored["candidates"][i]["app"].GetBool() == c[i]["app"].GetBool());
  }
  // advise reads it: local-size-sweep is evaluated (no "not evaluated" note for it).
  const RunResult a =
      run_program({paths().clprof_cli.string(), "advise", trace.string()}, {}, dir, "a", 60);
  INFO(a.out << a.err);
  CHECK(a.exit_code == 0);
  CHECK((a.out + a.err).find("not evaluated: local-size-sweep") == std::string::npos);
  // --options: the captured options and the given ones, both verified.
  Replayed o = replay(trace,
                      {"--kernel", "stencil2d", "--repeat", "2", "--options",
                       "-cl-fast-relaxed-math", "--format", "json"},
                      dir, "o");
  CHECK(o.run.exit_code == 0);
  REQUIRE(o.json["candidates"].Size() == 2);
}

// clprof advise over a stored sweep whose times are written here by hand (the measured
// ones are the device's: which size wins is not the test's to know). The trace has one
// stencil2d launch (global 64x32, local 8x4), the one captured.
TEST_CASE("replay_sweep_advise") {
  const fs::path dir = fresh_work_dir("replay_sweep_advise");
  const fs::path trace = record(dir, "^stencil2d$");
  const fs::path sweep = dir / "t.json.capture" / "1" / "sweep.json";
  auto store = [&](int64_t app_ns, int64_t best_ns, const char* best_verified) {
    std::ofstream out(sweep, std::ios::trunc);
    out << R"({"format":"clprof-sweep","version":1,"capture":1,"kernel":"stencil2d",)"
        << R"j("device":"cpu (Portable Computing Language, CPU)","repeat":5,"candidates":[)j"
        // A faster candidate whose outputs differ: never advised.
        << R"({"lws":[64,1],"median_ns":10,"min_ns":10,"verified":false,"app":false},)"
        << R"({"lws":[16,4],"median_ns":)" << best_ns << R"(,"min_ns":)" << best_ns
        << R"(,"verified":)" << best_verified << R"(,"app":false},)"
        << R"({"lws":[8,4],"median_ns":)" << app_ns << R"(,"min_ns":)" << app_ns
        << R"(,"verified":true,"app":true}]})";
  };
  // 1400 / 1000 = 1.40x: info (from 1.1, below 1.5); impact 1 launch x 400 ns.
  store(1400, 1000, "true");
  {
    const RunResult a =
        run_program({paths().clprof_cli.string(), "advise", trace.string(), "--format", "json"}, {},
                    dir, "i", 60);
    INFO(a.out << a.err);
    REQUIRE(a.exit_code == 0);
    CHECK(a.out.find("stencil2d: local size 16x4 is 1.40x faster than the app's 8x4") !=
          std::string::npos);
    CHECK(a.out.find("\"impact_ns\": 400,") != std::string::npos);
    CHECK(a.out.find("64x1") == std::string::npos);
    // The report's advice reads it too (HTML: the apostrophe escaped).
    const fs::path page = dir / "r.html";
    const RunResult h =
        run_program({paths().clprof_cli.string(), "report", trace.string(), "-o", page.string()},
                    {}, dir, "h", 60);
    CHECK(h.exit_code == 0);
    std::ifstream in(page);
    const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(html.find("local size 16x4 is 1.40x faster than the app&#39;s 8x4") != std::string::npos);
  }
  // 2000 / 1000 = 2.00x: a warning, --fail-on warning exits 3.
  store(2000, 1000, "true");
  {
    const RunResult a =
        run_program({paths().clprof_cli.string(), "advise", trace.string(), "--fail-on", "warning"},
                    {}, dir, "w", 60);
    INFO(a.out << a.err);
    CHECK(a.exit_code == 3);
    CHECK(a.err.find("local-size-sweep (warning)") != std::string::npos);
  }
  // The faster size's outputs unverified (null): no finding.
  store(2000, 1000, "null");
  {
    const RunResult a =
        run_program({paths().clprof_cli.string(), "advise", trace.string(), "--format", "json"}, {},
                    dir, "n", 60);
    CHECK(a.exit_code == 0);
    CHECK(a.out.find("faster than the app's") == std::string::npos);
  }
  // A damaged sweep: exit 2, naming the file.
  {
    std::ofstream out(sweep, std::ios::trunc);
    out << R"({"format":"clprof-sweep","version":1,"capture":1)";
  }
  const RunResult b =
      run_program({paths().clprof_cli.string(), "advise", trace.string()}, {}, dir, "b", 60);
  CHECK(b.exit_code == 2);
  CHECK(b.err.find(sweep.string()) != std::string::npos);
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

// Images and a sampler (replay_app image: the header comment of replay_app.cpp). The
// expected contents are the app's arithmetic: in(x, y) channel c = x + 100y + c/4 (exact
// in float), out = 2 * in(min(x + 1, 36), y) + 1 (CLAMP_TO_EDGE: column 36 reads itself).
TEST_CASE("replay_image") {
  const fs::path dir = fresh_work_dir("replay_image");
  const fs::path trace = record(dir, "^shift_image$", {"image"});
  const Trace t(trace);
  check_trace_invariants(t);
  const auto launches = t.launches_of("shift_image");
  REQUIRE(launches.size() == 1);
  REQUIRE(has_member(*launches[0].record, "capture"));
  const Json* rec = capture_record(t, get_uint(*launches[0].record, "capture"));
  REQUIRE(rec);
  INFO(
      get_string(*rec, "status") << " "
                                 << (has_member(*rec, "reason") ? get_string(*rec, "reason") : ""));
  REQUIRE(get_string(*rec, "status") == "captured");

  const fs::path cap = dir / "t.json.capture" / "1";
  rapidjson::Document m;
  {
    std::ifstream in(cap / "capture.json");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    m.Parse(text.c_str());
  }
  REQUIRE(m.IsObject());
  // Two images: the app's in and out, 2-D 37x19, CL_RGBA (0x10B5) of CL_FLOAT (0x10DE):
  // 16 bytes a pixel, 37 * 19 * 16 = 11248 bytes packed.
  REQUIRE(m["images"].Size() == 2);
  for (const Json& img : m["images"].GetArray()) {
    CHECK(std::string(img["type"].GetString()) == "image2d");
    CHECK(img["width"].GetUint64() == 37);
    CHECK(img["height"].GetUint64() == 19);
    CHECK(img["channel_order"].GetUint() == 0x10B5);
    CHECK(img["channel_type"].GetUint() == 0x10DE);
    CHECK(img["element_size"].GetUint64() == 16);
    CHECK(img["bytes"].GetUint64() == 11248);
  }
  const Json& args = m["args"];
  REQUIRE(args.Size() == 3);
  CHECK(std::string(args[0]["kind"].GetString()) == "image");
  CHECK(args[0]["image"].GetInt() == 0);
  CHECK(args[1]["image"].GetInt() == 1);
  CHECK(std::string(args[2]["kind"].GetString()) == "sampler");
  CHECK_FALSE(args[2]["normalized"].GetBool());
  CHECK(std::string(args[2]["addressing"].GetString()) == "clamp_to_edge");
  CHECK(std::string(args[2]["filter"].GetString()) == "nearest");

  // The input is packed (the app's 640-byte rows and their -7 padding are gone); the
  // output's before is the app's -1 fill, its after the kernel's arithmetic.
  const std::vector<float> in = floats_of(cap / "image0.before.bin");
  const std::vector<float> out_before = floats_of(cap / "image1.before.bin");
  const std::vector<float> out_after = floats_of(cap / "image1.after.bin");
  REQUIRE(in.size() == 37 * 19 * 4);
  REQUIRE(out_before.size() == in.size());
  REQUIRE(out_after.size() == in.size());
  CHECK(fs::exists(cap / "image0.after.bin"));  // read-only to the kernel, still captured
  for (int y = 0; y < 19; ++y) {
    for (int x = 0; x < 37; ++x) {
      for (int c = 0; c < 4; ++c) {
        INFO("x " << x << " y " << y << " c " << c);
        const size_t i = (static_cast<size_t>(y) * 37 + x) * 4 + c;
        CHECK(in[i] == static_cast<float>(x + 100 * y) + 0.25f * c);
        CHECK(out_before[i] == -1.0f);
        const int xs = x + 1 < 37 ? x + 1 : 36;
        CHECK(out_after[i] == 2.0f * (static_cast<float>(xs + 100 * y) + 0.25f * c) + 1.0f);
      }
    }
  }

  Replayed r =
      replay(trace, {"--kernel", "shift_image", "--repeat", "2", "--format", "json"}, dir, "r");
  CHECK(r.run.exit_code == 0);
  CHECK(r.json["verified"].IsBool());
  CHECK(r.json["verified"].GetBool());

  // The sampler is made anew from the manifest: CLAMP instead of CLAMP_TO_EDGE makes
  // column 36 read the border colour (0, 0, 0, 0 for CL_RGBA), out = 1, not the capture.
  const fs::path manifest = cap / "capture.json";
  std::string text;
  {
    std::ifstream is(manifest);
    text.assign(std::istreambuf_iterator<char>(is), std::istreambuf_iterator<char>());
  }
  auto write_manifest = [&](const std::string& body) {
    std::ofstream os(manifest, std::ios::trunc);
    os << body;
  };
  const std::string edge = "\"addressing\":\"clamp_to_edge\"";
  const size_t at = text.find(edge);
  REQUIRE(at != std::string::npos);
  std::string clamp = text;
  clamp.replace(at, edge.size(), "\"addressing\":\"clamp\"");
  write_manifest(clamp);
  Replayed s =
      replay(trace, {"--kernel", "shift_image", "--repeat", "1", "--format", "json"}, dir, "s");
  CHECK(s.run.exit_code == 4);
  CHECK_FALSE(s.json["verified"].GetBool());
  // A mode the manifest cannot mean: exit 2, naming the file and the words it takes.
  std::string bad = text;
  bad.replace(at, edge.size(), "\"addressing\":\"sideways\"");
  write_manifest(bad);
  Replayed b = replay(trace, {"--kernel", "shift_image"}, dir, "b", false);
  CHECK(b.run.exit_code == 2);
  CHECK(b.run.err.find(manifest.string()) != std::string::npos);
  CHECK(b.run.err.find("clamp_to_edge") != std::string::npos);
  write_manifest(text);

  // One float of the output image's captured result changed: verified false, exit 4.
  std::vector<float> changed = out_after;
  changed[5] += 1.0f;
  {
    std::ofstream os(cap / "image1.after.bin", std::ios::binary | std::ios::trunc);
    os.write(reinterpret_cast<const char*>(changed.data()),
             static_cast<std::streamsize>(changed.size() * 4));
  }
  Replayed a =
      replay(trace, {"--kernel", "shift_image", "--repeat", "1", "--format", "json"}, dir, "a");
  CHECK(a.run.exit_code == 4);
  CHECK_FALSE(a.json["verified"].GetBool());
}

// pyopencl builds its programs from a cached binary: they are captured as the device's
// binary (program.bin) and replay on the same device, verified. The app's output is the
// same with the capture as without the shim.
TEST_CASE("replay_pyopencl") {
  REQUIRE_MESSAGE(fs::exists(paths().python), "no " << paths().python);
  const fs::path dir = fresh_work_dir("replay_pyopencl");
  const fs::path trace = dir / "p.json";
  const RunResult r = run_with_and_without_shim(
      {paths().python.string(), (paths().examples_src / "pyopencl_example.py").string()}, dir,
      trace, 180, {{"CLPROF_CAPTURE", "^(affine|relu)$"}});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const Trace t(trace);
  REQUIRE(t.records("capture").size() == 2);
  for (const std::string kernel : {"affine", "relu"}) {
    CAPTURE(kernel);
    Replayed k =
        replay(trace, {"--kernel", kernel, "--repeat", "2", "--format", "json"}, dir, kernel);
    CHECK(k.run.exit_code == 0);
    CHECK(k.json["verified"].GetBool());
  }
}

// The C++ examples (examples/vector_add.cpp: saxpy, vadd, sum_first; multi_thread.cpp:
// accumulate, from its four threads), every kernel captured at its first launch
// (CLPROF_CAPTURE "." limit 1): each name's capture replays verified, since each kernel's
// output is a function of its arguments and its buffers' contents before the launch. The
// examples print the same with the capture on as without the shim.
TEST_CASE("replay_examples") {
  const std::map<std::string, std::vector<std::string>> kernels = {
      {"vector_add", {"saxpy", "sum_first", "vadd"}}, {"multi_thread", {"accumulate"}}};
  for (const auto& [example, names] : kernels) {
    CAPTURE(example);
    const fs::path dir = fresh_work_dir("replay_examples_" + example);
    const fs::path trace = dir / "t.json";
    const RunResult r =
        run_with_and_without_shim({(paths().bin_dir / example).string()}, dir, trace, 300,
                                  {{"CLPROF_CAPTURE", "."}, {"CLPROF_CAPTURE_LIMIT", "1"}});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const Trace t(trace);
    std::set<std::string> launched;
    for (const Launch& l : t.launches()) launched.insert(l.kernel);
    CHECK(launched == std::set<std::string>(names.begin(), names.end()));
    CHECK(t.records("capture").size() == names.size());
    for (const std::string& name : names) {
      CAPTURE(name);
      Replayed k =
          replay(trace, {"--kernel", name, "--repeat", "2", "--format", "json"}, dir, name);
      INFO(k.run.err);
      CHECK(k.run.exit_code == 0);
      CHECK(k.json["verified"].IsBool());
      CHECK(k.json["verified"].GetBool());
    }
  }
}

#ifdef CLPROF_E2E_HAVE_CLBLAST
// The main job's GEMMs (examples/clblast_network.cpp, one iteration: convolutions on
// CLBlast's indirect path, the Xgemm kernel between pad/transpose helper kernels, and
// fully-connected layers on the direct path, an XgemmDirect* kernel). CLPROF_CAPTURE "."
// with limit 1 captures the first launch of every kernel name, so the names come from the
// trace itself; the app's output is the same as without the shim. Every capture replays
// verified: each kernel's result is a function of its arguments and the buffers'
// contents, and the capture reads those after clFinish on the app's queue, so a kernel
// reading what an earlier one wrote (Xgemm reads the temporary matrices CopyPadMatrix /
// TransposePadMatrix wrote just before it, on the same queue) gets those contents.
TEST_CASE("replay_clblast") {
  const fs::path dir = fresh_work_dir("replay_clblast");
  const fs::path trace = dir / "t.json";
  const RunResult r = run_with_and_without_shim(
      {(paths().bin_dir / "clblast_network").string(), "--iterations", "1"}, dir, trace, 400,
      {{"CLPROF_CAPTURE", "."}, {"CLPROF_CAPTURE_LIMIT", "1"}});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("capture is off") == std::string::npos);
  const Trace t(trace);
  check_trace_invariants(t);
  // The first launch of each name carries a capture; no later one does.
  std::map<std::string, const Launch*> first;
  for (const Launch& l : t.launches()) {
    INFO("launch " << l.seq << " " << l.kernel);
    if (first.count(l.kernel)) {
      CHECK_FALSE(has_member(*l.record, "capture"));
      continue;
    }
    first[l.kernel] = &l;
    CHECK(has_member(*l.record, "capture"));
  }
  // Both paths and the helpers ran (clblast_network's layer shapes).
  CHECK(first.count("Xgemm") == 1);
  CHECK(std::any_of(first.begin(), first.end(),
                    [](const auto& f) { return f.first.rfind("XgemmDirect", 0) == 0; }));
  CHECK(first.size() >= 3);
  CHECK(t.records("capture").size() == first.size());
  for (const auto& [name, launch] : first) {
    CAPTURE(name);
    const Json* rec = capture_record(t, get_uint(*launch->record, "capture"));
    REQUIRE(rec);
    INFO((has_member(*rec, "reason") ? get_string(*rec, "reason") : std::string()));
    REQUIRE(get_string(*rec, "status") == "captured");
    Replayed k = replay(trace, {"--kernel", name, "--repeat", "1", "--format", "json"}, dir, name);
    INFO(k.run.err);
    CHECK(k.run.exit_code == 0);
    CHECK(k.json["verified"].IsBool());
    CHECK(k.json["verified"].GetBool());
    CHECK(k.json["seq"].GetUint64() == launch->seq);
  }
}
#endif

// The local sizes --sweep local tries, worked out by hand (replay.hpp: divisors of the
// global size within the limits, multiples of the preferred multiple, largest first, the
// app's own appended when missing).
TEST_CASE("replay_sweep_sizes") {
  using clprof::replay::sweep_local_sizes;
  using Sizes = std::vector<std::vector<uint64_t>>;
  // 12: divisors within 8 are 1 2 3 4 6; of those only 4 is a multiple of 4.
  CHECK(sweep_local_sizes({12}, 8, {8}, 4, std::nullopt) == Sizes{{4}});
  CHECK(sweep_local_sizes({12}, 8, {8}, 4, std::vector<uint64_t>{3}) == Sizes{{4}, {3}});
  // No divisor is a multiple of 5: all of them, the largest first; at most 2, then the app's.
  CHECK(sweep_local_sizes({12}, 8, {8}, 5, std::nullopt) == Sizes{{6}, {4}, {3}, {2}, {1}});
  CHECK(sweep_local_sizes({12}, 8, {8}, 1, std::vector<uint64_t>{1}, 2) == Sizes{{6}, {4}, {1}});
  // 4x2 in groups of at most 4, even: (2,2) and (4,1) of 4, then (1,2) and (2,1) of 2;
  // at most 2 per dimension leaves (4,1) out.
  CHECK(sweep_local_sizes({4, 2}, 4, {8, 8}, 2, std::nullopt) ==
        Sizes{{2, 2}, {4, 1}, {1, 2}, {2, 1}});
  CHECK(sweep_local_sizes({4, 2}, 4, {2, 2}, 2, std::nullopt) == Sizes{{2, 2}, {1, 2}, {2, 1}});
}
