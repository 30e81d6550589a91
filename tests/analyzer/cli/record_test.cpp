// `clprof record` with a stand-in shim (record_test_shim.c) that writes a small trace.
#include <doctest/doctest.h>

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "cli_support.hpp"
#include "skip.hpp"

using clitest::run;

namespace {
std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (auto* e = readdir(d))
      if (e->d_name[0] != '.') out.push_back(e->d_name);
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("record: sets LD_PRELOAD, CLPROF_OUTPUT, CLPROF_ROOT_PID and reports the trace") {
  const auto dir = clitest::temp_dir();
#ifdef __SANITIZE_ADDRESS__
  // An ASan-built clprof refuses to start with anything in LD_PRELOAD: test without one.
  const std::string old_preload;
#else
  const std::string old_preload = "libm.so.6";
#endif
  auto r = run({"record", "-o", "t.json", "--", "sh", "-c", "exit 3"},
               {{"CLPROF_SHIM", CLPROF_TEST_SHIM},
                {"LD_PRELOAD", old_preload},
                {"CLPROF_TEST_LAUNCHES", "5"}},
               dir);
  CHECK(r.status == 3);  // the program's exit status passes through
  const auto files = list_dir(dir);
  REQUIRE(files == std::vector<std::string>{"t.json"});
  const auto trace = clitest::read_file(dir + "/t.json");
  // The shim ran as the root process, with itself first in LD_PRELOAD.
  const std::string expected_preload =
      std::string(CLPROF_TEST_SHIM) + (old_preload.empty() ? "" : ":" + old_preload);
  CHECK(trace.find("\"LD_PRELOAD\":\"" + expected_preload + "\"") != std::string::npos);
  const auto pid_at = trace.find("\"pid\":");
  const auto pid = trace.substr(pid_at + 6, trace.find(',', pid_at) - pid_at - 6);
  CHECK(trace.find("\"CLPROF_ROOT_PID\":\"" + pid + "\"") != std::string::npos);
  CHECK(r.err == "clprof: t.json: 5 kernel launches\n");
  // The file is a real trace.
  auto k = run({"kernels", "--format", "csv", dir + "/t.json"});
  CHECK(k.status == 0);
}

TEST_CASE("record: a sanitizer runtime the user preloads stays ahead of the shim") {
#ifdef __SANITIZE_ADDRESS__
  CLPROF_SKIP("an ASan-built clprof cannot run with a foreign LD_PRELOAD");
#endif
  const auto dir = clitest::temp_dir();
  // The loader skips (with a warning) a preload it cannot open: the names are what counts.
  const std::string asan = "/nonexistent/libasan.so.8";
  auto r = run({"record", "-o", "t.json", "--", "sh", "-c", "exit 0"},
               {{"CLPROF_SHIM", CLPROF_TEST_SHIM},
                {"LD_PRELOAD", "libm.so.6 " + asan},
                {"CLPROF_TEST_LAUNCHES", "1"}},
               dir);
  CHECK(r.status == 0);
  const auto trace = clitest::read_file(dir + "/t.json");
  const std::string expected = asan + ":" + CLPROF_TEST_SHIM + ":libm.so.6";
  CHECK(trace.find("\"LD_PRELOAD\":\"" + expected + "\"") != std::string::npos);
}

TEST_CASE("record: child processes' traces (NAME.<pid>.EXT) are found too") {
  const auto dir = clitest::temp_dir();
  auto r = run({"record", "-o", "run.json", "sh", "-c", "/bin/true; /bin/true"},
               {{"CLPROF_SHIM", CLPROF_TEST_SHIM}, {"CLPROF_TEST_LAUNCHES", "1"}}, dir);
  CHECK(r.status == 0);
  const auto files = list_dir(dir);
  REQUIRE(files.size() == 3);  // sh and its two children
  size_t reported = 0;
  for (const auto& f : files) {
    CHECK(r.err.find("clprof: " + f + ": 1 kernel launch\n") != std::string::npos);
    ++reported;
  }
  CHECK(reported == 3);
}

TEST_CASE("record: default output clprof-%p.json, signal death is 128+N") {
  const auto dir = clitest::temp_dir();
  auto r = run({"record", "sh", "-c", "kill -9 $$"},
               {{"CLPROF_SHIM", CLPROF_TEST_SHIM}, {"CLPROF_OUTPUT", ""}}, dir);
  CHECK(r.status == 128 + 9);
  const auto files = list_dir(dir);
  REQUIRE(files.size() == 1);
  CHECK(files[0].rfind("clprof-", 0) == 0);
}

TEST_CASE("record: a program that leaves no trace gets a warning and its own exit status") {
  const auto dir = clitest::temp_dir();
  auto r = run({"record", "-o", "t.json", "--", "sh", "-c", "exit 4"},
               {{"CLPROF_SHIM", CLPROF_TEST_SHIM}, {"CLPROF_TEST_NO_TRACE", "1"}}, dir);
  CHECK(r.status == 4);
  CHECK(list_dir(dir).empty());
  CHECK(r.err ==
        "clprof: warning: no trace was written (expected t.json): the program made no OpenCL "
        "call, or the shim said why above\n");
}

TEST_CASE("record: errors") {
  CHECK(run({"record"}).status == 2);
  auto missing = run({"record", "--", "/nonexistent/program"}, {{"CLPROF_SHIM", CLPROF_TEST_SHIM}},
                     clitest::temp_dir());
  CHECK(missing.status == 127);
  CHECK(missing.err.find("cannot run '/nonexistent/program'") != std::string::npos);
  // The error says it all: no warning about a trace that could never have been written.
  CHECK(missing.err.find("no trace was written") == std::string::npos);
  auto no_shim = run({"record", "--", "true"}, {{"CLPROF_SHIM", "/nonexistent/libclprof.so"}});
  CHECK(no_shim.status == 1);
  CHECK(no_shim.err.find("CLPROF_SHIM") != std::string::npos);
}

TEST_CASE("record: an output directory that cannot be written is refused before the program runs") {
  const auto dir = clitest::temp_dir();
  std::ofstream(dir + "/file") << "a file, not a directory";
  for (const std::string& out : {std::string("/nonexistent/dir/x.json"), dir + "/file/x.json"}) {
    auto r = run({"record", "-o", out, "--", "sh", "-c", "touch ran; exit 0"},
                 {{"CLPROF_SHIM", CLPROF_TEST_SHIM}}, dir);
    CHECK(r.status == 2);
    CHECK(r.err.find("clprof: error: -o " + out + ": ") == 0);
    CHECK(::access((dir + "/ran").c_str(), F_OK) != 0);  // the program never ran
  }
  // %p in the file name is fine: only the directory is checked.
  auto ok = run({"record", "-o", dir + "/t.%p.json", "--", "sh", "-c", "exit 0"},
                {{"CLPROF_SHIM", CLPROF_TEST_SHIM}, {"CLPROF_TEST_LAUNCHES", "1"}}, dir);
  CHECK(ok.status == 0);
}

TEST_CASE("record --list-options prints the settings table") {
  auto t = run({"record", "--list-options"});
  CHECK(t.status == 0);
  CHECK(t.out.find("CLPROF_OUTPUT (path, default \"clprof-%p.json\"; a path of at most 4095 "
                   "bytes, no control characters, not ending in /)\n") == 0);
  CHECK(t.out.find("CLPROF_ROOT_PID (uint, default \"0\"; 0 to 4194304)") != std::string::npos);
  auto m = run({"record", "--list-options", "--format", "markdown"});
  CHECK(m.status == 0);
  CHECK(m.out.find("| Name | Type | Default | Allowed | Description |\n|---|---|---|---|---|\n") ==
        0);
  CHECK(m.out.find("| `CLPROF_EXIT_WAIT_MS` | uint | `2000` | 0 to 600000 |") != std::string::npos);
}

TEST_CASE("record --mode layer sets OPENCL_LAYERS (the shim first), not LD_PRELOAD") {
  const auto dir = clitest::temp_dir();
  const std::string show =
      "printf '%s|%s|%s' \"$OPENCL_LAYERS\" \"$LD_PRELOAD\" \"$CLPROF_OUTPUT\" > env.txt";
  auto r = run({"record", "--mode", "layer", "-o", "t.json", "--", "sh", "-c", show},
               {{"CLPROF_SHIM", CLPROF_TEST_SHIM},
                {"OPENCL_LAYERS", "/opt/other_layer.so"},
                {"LD_PRELOAD", ""}},
               dir);
  CHECK(r.status == 0);
  CHECK(clitest::read_file(dir + "/env.txt") ==
        std::string(CLPROF_TEST_SHIM) + ":/opt/other_layer.so||t.json");
  // Preload mode (the default, and by name) leaves OPENCL_LAYERS alone.
  for (const std::vector<std::string>& mode :
       {std::vector<std::string>{}, std::vector<std::string>{"--mode", "preload"}}) {
    std::vector<std::string> args = {"record"};
    args.insert(args.end(), mode.begin(), mode.end());
    for (const char* a : {"-o", "t.json", "--", "sh", "-c"}) args.push_back(a);
    args.push_back(show);
    auto p = run(args,
                 {{"CLPROF_SHIM", CLPROF_TEST_SHIM},
                  {"CLPROF_TEST_NO_TRACE", "1"},
                  {"LD_PRELOAD", ""},
                  {"OPENCL_LAYERS", ""}},
                 dir);
    CHECK(p.status == 0);
    CHECK(clitest::read_file(dir + "/env.txt") == "|" + std::string(CLPROF_TEST_SHIM) + "|t.json");
  }
}

TEST_CASE(
    "record --mode: anything but preload or layer is a usage error, before the program runs") {
  const auto dir = clitest::temp_dir();
  for (const std::string& bad : {std::string("LAYER"), std::string(""), std::string("both")}) {
    auto r = run({"record", "--mode", bad, "--", "sh", "-c", "touch ran"},
                 {{"CLPROF_SHIM", CLPROF_TEST_SHIM}}, dir);
    CHECK(r.status == 2);
    CHECK(r.err == "clprof: error: --mode: unknown mode '" + bad + "' (preload, layer)\n");
    CHECK(::access((dir + "/ran").c_str(), F_OK) != 0);
  }
  auto missing = run({"record", "--mode"}, {{"CLPROF_SHIM", CLPROF_TEST_SHIM}}, dir);
  CHECK(missing.status == 2);
}
