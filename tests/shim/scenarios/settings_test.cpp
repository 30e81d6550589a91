// End-to-end tests of libclprof.so on the fake driver. The CLPROF_* settings as a user sets them:
// disabled, unwritable output, no background thread, captured sources and %p, bad values.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../../support/skip.hpp"  // tests/support: CLPROF_SKIP
#include "kernel_source.hpp"
#include "run_app.hpp"
#include "trace_checks.hpp"

using rapidjson::Value;
using namespace shim_test;

TEST_CASE("settings: CLPROF_DISABLE=1 writes nothing and changes nothing") {
  TempDir dir;
  const std::string out = dir.file("x.json");
  const RunResult shim = run_app({"basic", true, out, {{"CLPROF_DISABLE", "1"}}}, dir.path());
  const RunResult bare = run_app({"basic", false, "", {}}, dir.path());
  CHECK(shim.exit_code == bare.exit_code);
  CHECK(stable_output(shim.out) == stable_output(bare.out));
  CHECK(shim.err == bare.err);
  CHECK(!file_exists(out));
  std::vector<std::string> files = list_dir(dir.path());
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"stderr.txt", "stdout.txt"});
}

TEST_CASE("settings: an unwritable output path gives one warning and changes nothing") {
  TempDir dir;
  {
    std::ofstream blocker(dir.file("afile"));
    blocker << "not a directory\n";
  }
  const std::string out = dir.file("afile") + "/x.json";
  const RunResult shim = run_app({"basic", true, out, {}}, dir.path());
  const RunResult bare = run_app({"basic", false, "", {}}, dir.path());
  CHECK(shim.exit_code == bare.exit_code);
  CHECK(stable_output(shim.out) == stable_output(bare.out));
  std::istringstream err(shim.err);
  std::string line;
  int mentions = 0;
  while (std::getline(err, line)) mentions += line.find(out) != std::string::npos;
  CHECK_MESSAGE(mentions == 1, "stderr: ", shim.err);
}

TEST_CASE("settings: a background thread that cannot start: one warning, no trace, app untouched") {
  if (!std::string(CLPROF_TEST_PRELOAD_FIRST).empty()) {
    // The sanitizer runtime preloaded first intercepts pthread_create itself: the call
    // would not come from libclprof.so as no_thread_start.cpp sees it.
    CLPROF_SKIP("a sanitizer build of the shim");
  }
  TempDir dir;
  const std::string out = dir.file("x.json");
  const std::string preload =
      std::string(CLPROF_TEST_NO_THREAD_START_LIB) + ":" + CLPROF_TEST_SHIM_LIB;
  const RunResult shim = run_app({"basic", true, out, {{"LD_PRELOAD", preload}}}, dir.path());
  const RunResult bare = run_app({"basic", false, "", {}}, dir.path());
  // The same library without the shim changes nothing (the failure is only for the shim).
  const RunResult interposer_only =
      run_app({"basic", false, "", {{"LD_PRELOAD", std::string(CLPROF_TEST_NO_THREAD_START_LIB)}}},
              dir.path());
  CHECK(interposer_only.exit_code == bare.exit_code);
  CHECK(stable_output(interposer_only.out) == stable_output(bare.out));
  CHECK(shim.exit_code == bare.exit_code);
  CHECK(stable_output(shim.out) == stable_output(bare.out));
  CHECK_FALSE(file_exists(out));  // a header alone would read as a trace cut short
  std::istringstream err(shim.err);
  std::string line;
  int warnings = 0;
  while (std::getline(err, line)) warnings += line.find("clprof") != std::string::npos;
  CHECK_MESSAGE(warnings == 1, "stderr: ", shim.err);
  CHECK_MESSAGE(shim.err.find("cannot start the background thread (Resource temporarily "
                              "unavailable); running untouched") != std::string::npos,
                "stderr: ", shim.err);
}

TEST_CASE("settings: CLPROF_CAPTURE_SOURCE=1 and %p in CLPROF_OUTPUT") {
  TempDir dir;
  const RunResult shim = run_app(
      {"exit_return", true, dir.file("run-%p.json"), {{"CLPROF_CAPTURE_SOURCE", "1"}}}, dir.path());
  REQUIRE(shim.exit_code == 0);
  Trace t;
  REQUIRE(load_trace(dir.file("run-" + std::to_string(shim.pid) + ".json"), t));
  const auto programs = t.of_type("program");
  REQUIRE(programs.size() == 1);
  CHECK(str(*programs[0], "source") == kSource);
  CHECK(str(*programs[0], "source_hash") == fnv1a64(kSource));
  CHECK(str(member(t.header(), "settings"), "CLPROF_CAPTURE_SOURCE") == "1");
}

namespace {

// Lines of stderr that are the shim's ("clprof: ...").
int shim_lines(const std::string& err) {
  std::istringstream lines(err);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) n += line.rfind("clprof: ", 0) == 0;
  return n;
}

// Runs "basic" under the shim with `env` and bare: the app must see no difference, the
// shim must say exactly one thing (containing `says`), and no trace may be written.
void check_refused_untouched(const EnvChanges& env, const std::string& says) {
  TempDir dir;
  const std::string out = dir.file("x.json");
  const RunResult shim = run_app({"basic", true, out, env}, dir.path());
  const RunResult bare = run_app({"basic", false, "", {}}, dir.path());
  CHECK(shim.exit_code == bare.exit_code);
  CHECK(stable_output(shim.out) == stable_output(bare.out));
  CHECK_MESSAGE(shim_lines(shim.err) == 1, "stderr: ", shim.err);
  CHECK_MESSAGE(shim.err.find(says) != std::string::npos, "stderr: ", shim.err);
  CHECK_FALSE(file_exists(out));
}

}  // namespace

TEST_CASE("settings: a bad value turns the shim off: one warning, no trace, the app untouched") {
  check_refused_untouched({{"CLPROF_POLL_INTERVAL_US", "fast"}},
                          "CLPROF_POLL_INTERVAL_US=\"fast\" is not 50 to 1000000; clprof is "
                          "off, the program runs untouched");
  // Huge waits once wrapped (ms * 1e6 in 64 bits) or held the exit for days.
  check_refused_untouched({{"CLPROF_EXIT_WAIT_MS", "99999999999999999"}},
                          "CLPROF_EXIT_WAIT_MS=\"99999999999999999\" is not 0 to 600000");
  check_refused_untouched({{"CLPROF_EXIT_WAIT_MS", "18446744073709551616"}}, "is not 0 to 600000");
  check_refused_untouched({{"CLPROF_DISABLE", "maybe"}}, "CLPROF_DISABLE=\"maybe\"");
  check_refused_untouched({{"CLPROF_OUTPUT", "x\n.json"}}, "CLPROF_OUTPUT=\"x\\x0a.json\"");
  // Copied into every trace's header: a token only.
  check_refused_untouched({{"CLPROF_SESSION_ID", "a b"}},
                          "CLPROF_SESSION_ID=\"a b\" is not at most 64 letters, digits, -, _ or .");
}

TEST_CASE("settings: CLPROF_OPENCL_LIBRARY naming the shim itself is refused, not recursed into") {
  // By its path, by its name (dlopen finds the loaded library by its soname), and another
  // copy of it: each once recursed until the stack overflowed (SIGSEGV).
  check_refused_untouched({{"CLPROF_OPENCL_LIBRARY", CLPROF_TEST_SHIM_LIB}},
                          "it is clprof's own shim; clprof is off, the program runs untouched "
                          "on its usual OpenCL library");
  check_refused_untouched({{"CLPROF_OPENCL_LIBRARY", "libclprof.so"}}, "clprof's own shim");
  TempDir copy_dir;
  const std::string copy = copy_dir.file("libcopy.so");
  { std::ofstream(copy, std::ios::binary) << read_file(CLPROF_TEST_SHIM_LIB); }
  check_refused_untouched({{"CLPROF_OPENCL_LIBRARY", copy}}, "clprof's own shim");
}

TEST_CASE("settings: CLPROF_OPENCL_LIBRARY naming a library that is not OpenCL is refused") {
  // libc.so.6 once gave the app CL_INVALID_PLATFORM (-32) from every call.
  check_refused_untouched({{"CLPROF_OPENCL_LIBRARY", "libc.so.6"}},
                          "CLPROF_OPENCL_LIBRARY=\"libc.so.6\": it is not an OpenCL library");
  check_refused_untouched({{"CLPROF_OPENCL_LIBRARY", "/nonexistent/libOpenCL.so"}},
                          "CLPROF_OPENCL_LIBRARY=\"/nonexistent/libOpenCL.so\": ");
}

TEST_CASE("settings: an empty CLPROF_OUTPUT is the default name, not ./.<pid>") {
  TempDir dir;
  // A child process of the run (the root is another pid): "" + ".<pid>" was the name.
  RunOptions o{"exit_return", true, "", {{"CLPROF_OUTPUT", ""}, {"CLPROF_ROOT_PID", "1"}}};
  o.cwd = dir.path();
  const RunResult shim = run_app(o, dir.path());
  REQUIRE(shim.exit_code == 0);
  CHECK_FALSE(file_exists(dir.file("." + std::to_string(shim.pid))));
  Trace t;
  REQUIRE(load_trace(dir.file("clprof-" + std::to_string(shim.pid) + ".json"), t));
  CHECK(str(member(t.header(), "settings"), "CLPROF_OUTPUT") == "clprof-%p.json");
}

TEST_CASE("settings: a link to the output path placed by another user is not followed") {
  if (geteuid() != 0) {
    CLPROF_SKIP("needs root to make another user's link");
  }
  TempDir dir;
  const std::string victim = dir.file("victim.txt");
  { std::ofstream(victim) << "precious\n"; }
  const std::string out = dir.file("x.json");
  REQUIRE(symlink(victim.c_str(), out.c_str()) == 0);
  REQUIRE(lchown(out.c_str(), 12345, 12345) == 0);
  const RunResult shim = run_app({"basic", true, out, {}}, dir.path());
  const RunResult bare = run_app({"basic", false, "", {}}, dir.path());
  CHECK(shim.exit_code == bare.exit_code);
  CHECK(stable_output(shim.out) == stable_output(bare.out));
  CHECK(read_file(victim) == "precious\n");
  CHECK_MESSAGE(shim_lines(shim.err) == 1, "stderr: ", shim.err);
  CHECK_MESSAGE(shim.err.find("symbolic link of user 12345") != std::string::npos,
                "stderr: ", shim.err);
}

TEST_CASE("settings: an existing trace of the user's is replaced") {
  TempDir dir;
  const std::string out = dir.file("x.json");
  { std::ofstream(out) << std::string(100000, 'x') << "\n"; }
  const RunResult shim = run_app({"exit_return", true, out, {}}, dir.path());
  REQUIRE(shim.exit_code == 0);
  Trace t;
  REQUIRE(load_trace(out, t));  // nothing of the old content is left
}

TEST_CASE("settings: a FIFO planted at the output path never blocks the app") {
  // The name has the app's pid (%p): a shell makes the FIFO under its own pid, then execs
  // the app, which keeps it. Nobody reads the FIFO: the shim must neither wait for a
  // reader nor for a writer (looking for an exec'd image's trace there once did).
  TempDir dir;
  const std::string script = dir.file("plant.sh");
  {
    std::ofstream(script) << "mkfifo \"" << dir.path() << "/t-$$.json\" && exec " << CLPROF_TEST_APP
                          << " basic\n";
  }
  const RunResult shim = run_app({script, true, dir.file("t-%p.json"), {}}, dir.path(), "/bin/sh");
  const RunResult bare = run_app({"basic", false, "", {}}, dir.path());
  CHECK(shim.exit_code == bare.exit_code);
  CHECK(stable_output(shim.out) == stable_output(bare.out));
  CHECK_MESSAGE(shim_lines(shim.err) == 1, "stderr: ", shim.err);
  CHECK_MESSAGE(shim.err.find("No such device or address") != std::string::npos,
                "stderr: ", shim.err);
}

TEST_CASE("settings: a setuid program sees no CLPROF_* setting and writes nothing") {
  // The shim reaches a setuid program only by dlopen (the dynamic loader drops LD_PRELOAD
  // paths there): secure_app is such a program. Run as a setuid copy owned by another
  // user, CLPROF_OUTPUT must not be read (the trace would be written with that user's
  // rights wherever the caller asked), nor the default name used.
  if (geteuid() != 0) {
    CLPROF_SKIP("needs root to make a setuid program of another user");
  }
  if (!std::string(CLPROF_TEST_PRELOAD_FIRST).empty()) {
    // A sanitizer runtime does not run in a setuid program (the loader drops its preload).
    CLPROF_SKIP("a sanitizer build of the shim");
  }
  const auto run = [](bool setuid_copy) {
    TempDir dir;
    REQUIRE(chmod(dir.path().c_str(), 0777) == 0);
    const std::string app = dir.file("secure_app");
    { std::ofstream(app, std::ios::binary) << read_file(CLPROF_TEST_SECURE_APP); }
    if (setuid_copy) REQUIRE(chown(app.c_str(), 12345, 12345) == 0);
    REQUIRE(chmod(app.c_str(), setuid_copy ? 04755 : 0755) == 0);
    RunOptions o{CLPROF_TEST_SHIM_LIB, false, "", {{"CLPROF_OUTPUT", dir.file("x.json")}}};
    o.cwd = dir.path();
    const RunResult r = run_app(o, dir.path(), app);
    std::vector<std::string> files = list_dir(dir.path());
    std::sort(files.begin(), files.end());
    return std::make_pair(r, files);
  };
  // The same program, not setuid: the settings are read and the trace written.
  const auto [plain, plain_files] = run(false);
  REQUIRE_MESSAGE(plain.exit_code == 0, "stderr: ", plain.err);
  CHECK(std::count(plain_files.begin(), plain_files.end(), "x.json") == 1);
  const auto [secure, secure_files] = run(true);
  if (secure.values.at("euid") != 12345) {
    CLPROF_SKIP("the setuid bit was not honoured here (a nosuid mount?)");
  }
  CHECK_MESSAGE(secure.exit_code == 0, "stderr: ", secure.err);
  CHECK_MESSAGE(secure.err.empty(), "stderr: ", secure.err);
  CHECK(secure_files == std::vector<std::string>{"secure_app", "stderr.txt", "stdout.txt"});
}
