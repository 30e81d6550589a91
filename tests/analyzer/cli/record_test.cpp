// `clprof record` with a stand-in shim (record_test_shim.c) that writes a small trace.
#include <doctest/doctest.h>

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "cli_support.hpp"

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
               {{"CLPROF_SHIM", CLPROF_TEST_SHIM}, {"LD_PRELOAD", old_preload}, {"CLPROF_TEST_LAUNCHES", "5"}},
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
  MESSAGE("an ASan-built clprof cannot run with a foreign LD_PRELOAD; case skipped");
  return;
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
  auto r = run({"record", "sh", "-c", "kill -9 $$"}, {{"CLPROF_SHIM", CLPROF_TEST_SHIM}, {"CLPROF_OUTPUT", ""}},
               dir);
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
    auto r = run({"record", "-o", out, "--", "sh", "-c", "touch ran; exit 0"}, {{"CLPROF_SHIM", CLPROF_TEST_SHIM}}, dir);
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
  CHECK(t.out.find("CLPROF_OUTPUT (string, default \"clprof-%p.json\")\n") == 0);
  CHECK(t.out.find("CLPROF_ROOT_PID (uint, default \"0\")") != std::string::npos);
  auto m = run({"record", "--list-options", "--format", "markdown"});
  CHECK(m.status == 0);
  CHECK(m.out.find("| Name | Type | Default | Description |\n|---|---|---|---|\n") == 0);
  CHECK(m.out.find("| `CLPROF_DISABLE` | bool | `0` |") != std::string::npos);
}
