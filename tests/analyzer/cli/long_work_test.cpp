// Long work (issue 17 section 7) on traces from bench/analyzer/gen_trace (the shim's layout,
// a CNN-like mix): a progress line on a terminal, nothing on a pipe; and peak memory under
// documented ceilings (docs/cli.md "Streaming and memory"), measured with /usr/bin/time as the
// child's maximum resident set. No assertion depends on how long anything takes.
#include <doctest/doctest.h>

#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <map>
#include <string>

#include "cli_support.hpp"
#include "run_child.hpp"

namespace {

// A generated trace of `mb` MB (made once per size and name, in the test's temporary
// directory). Its iterations are top-level ranges "iteration N" (one layer path per iteration
// and layer), or, with `iteration_name`, all of that name (23 layer paths whatever the size).
std::string generated(unsigned mb, const std::string& iteration_name = "") {
  static std::map<std::pair<unsigned, std::string>, std::string> made;
  auto it = made.find({mb, iteration_name});
  if (it != made.end()) return it->second;
  const std::string path = clitest::temp_dir() + "/gen" + std::to_string(mb) +
                           (iteration_name.empty() ? "" : "-" + iteration_name) + ".json";
  std::vector<std::string> argv = {CLPROF_GEN_TRACE, path, std::to_string(mb)};
  if (!iteration_name.empty()) argv.insert(argv.end(), {"1", iteration_name});
  const auto r = clprof::test::run_child(argv, {}, "", clitest::temp_dir());
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return made[{mb, iteration_name}] = path;
}

// clprof ARGS under a pseudo-terminal (stdout and stderr both): everything it wrote.
std::string run_on_terminal(const std::vector<std::string>& args) {
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::vector<char*> argv;
    std::string bin = CLPROF_BIN;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(master, buf, sizeof buf);
    if (n > 0)
      out.append(buf, static_cast<size_t>(n));
    else if (n < 0 && errno == EINTR)
      continue;
    else
      break;  // EIO once the child has closed the terminal
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(master);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  return out;
}

// Peak resident memory of `clprof ARGS`, in MiB; it must exit with `status`, and with a
// non-zero one say `error` on stderr.
double peak_mib(const std::vector<std::string>& args, int status = 0,
                const std::string& error = "") {
  std::vector<std::string> argv = {"/usr/bin/time", "-f", "peak_kb=%M", CLPROF_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto r = clprof::test::run_child(argv, {}, "", clitest::temp_dir());
  INFO("clprof stderr: " << r.err);
  REQUIRE(r.status == status);
  if (!error.empty()) CHECK(r.err.find(error) != std::string::npos);
  const size_t at = r.err.rfind("peak_kb=");
  REQUIRE(at != std::string::npos);
  return std::stod(r.err.substr(at + 8)) / 1024.0;
}

}  // namespace

TEST_CASE("long work: progress on a terminal, erased when done; nothing on a pipe") {
  const std::string trace = generated(24);  // progress is shown from 16 MiB
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"summary", trace},
        {"launches", "--filter", "conv1", "-o", "/dev/null", trace},
        {"timeline", "-o", "/dev/null", trace}}) {
    CAPTURE(args.front());
    const std::string term = run_on_terminal(args);
    CHECK(term.find("\rclprof: reading 0 MiB of ") != std::string::npos);
    CHECK(term.find("\r\x1b[K") != std::string::npos);  // erased at the end
    // Reading done, the phase is said (not a frozen "100%, 0 s left").
    CHECK(term.find("\rclprof: analysing...") != std::string::npos);
    const auto piped = clitest::run(args);
    REQUIRE(piped.status == 0);
    CHECK(piped.err.find("reading") == std::string::npos);
  }
  // --quiet keeps the terminal quiet too.
  CHECK(run_on_terminal({"summary", "-q", trace}).find("reading") == std::string::npos);
}

// Peak memory on a 300 MB trace (615 k launches, 143 k ranges) with two reading threads.
// Loading it whole (what --filter did before; --layers-from still does) took 967 MiB for
// `launches --filter conv5` when measured; streamed, these stay under the ceilings documented
// in docs/cli.md (measured: 90 to 126 MiB).
TEST_CASE("long work: bounded memory on a 300 MB trace") {
  const std::string trace = generated(300);
  struct Case {
    std::vector<std::string> args;
    double ceiling_mib;
  };
  const std::string dir = clitest::temp_dir();
  for (const Case& c :
       {Case{{"summary", "--threads", "2", trace}, 160},
        Case{{"launches", "--threads", "2", "--filter", "conv5", "-o", "/dev/null", trace}, 200},
        Case{{"timeline", "--threads", "2", "-o", "/dev/null", trace}, 200},
        Case{{"export", "--threads", "2", "-o", dir + "/m.db", trace}, 200},
        Case{{"export", "--threads", "2", "--format", "csv", "-o", dir + "/csv", trace}, 200}}) {
    CAPTURE(c.args.front());
    const double mib = peak_mib(c.args);
    std::string command;
    for (size_t i = 0; i + 1 < c.args.size(); ++i) command += c.args[i] + " ";
    MESSAGE(command << ": peak " << mib << " MiB");
#ifdef __SANITIZE_ADDRESS__
    // AddressSanitizer's shadow memory and quarantine multiply the peak (measured: 495 to
    // 1,078 MiB): the ceilings are for the plain build; this one still runs every case.
    MESSAGE("AddressSanitizer build: the memory ceiling is not checked");
#else
    CHECK(mib < c.ceiling_mib);
#endif
  }
}

// layers and advise (issue 35), two reading threads, in the plain build:
// * `layers` on 300 MB of same-named iterations (615,333 launches, 142,661 ranges, 23 layer
//   paths): a bucket per path, not per range instance. Measured 2026-12-02 on a shared, loaded
//   machine: 104 MiB; the code before kept a bucket per instance: 216 MiB, over the 160.
// * `layers` on 300 MB of numbered iterations ("iteration N": 137 k distinct paths, over the
//   65,536 of kMaxLayerBuckets): stops with the ceiling's error, exit 1, under the issue's
//   256 MiB (measured: 214 MiB, up to 65,536 buckets in each of the two threads when it
//   stops); the code before printed 137 k rows in 920 MiB.
// * `advise` on 50 MB (~103 k launches and ~2 k transfers: 50/1024 of the 1 GB trace's
//   2,075,294 and 40,088): streamed, its rules from tallies and a log of compact records on a
//   temporary file, sorted there in bounded memory (analyses/advice/commands.hpp), under
//   100 MiB (measured 2026-12-02: 45 MiB before the log; the log's state does not grow with
//   the commands). On 100 MB and 300 MB (~620 k commands) with --max-memory 256M: no ceiling
//   of its own any more (the 300 MB trace used to stop past 524,288 commands at 93 MiB), so
//   both finish, under 120 MiB (the 4 GB trace's ~8.5 M commands peak at 110 MiB: not a
//   figure that grows with the trace).
TEST_CASE("long work: layers and advise in bounded memory") {
  struct Case {
    std::vector<std::string> args;
    double ceiling_mib;
    int status;
    std::string error;
  };
  const std::string same = generated(300, "iteration");
  for (const Case& c :
       {Case{{"layers", "--threads", "2", same}, 160, 0, ""},
        Case{
            {"layers", "--threads", "2", generated(300)}, 256, 1, "layers: more than 65536 layers"},
        Case{{"advise", "--threads", "2", generated(50)}, 100, 0, ""},
        Case{{"advise", "--threads", "2", "--max-memory", "256M", generated(100)}, 120, 0, ""},
        Case{{"advise", "--threads", "2", "--max-memory", "256M", generated(300)}, 120, 0, ""}}) {
    std::string command;
    for (size_t i = 0; i + 1 < c.args.size(); ++i) command += c.args[i] + " ";
    CAPTURE(command);
    const double mib = peak_mib(c.args, c.status, c.error);
    MESSAGE(command << c.args.back() << ": peak " << mib << " MiB");
#ifdef __SANITIZE_ADDRESS__
    MESSAGE("AddressSanitizer build: the memory ceiling is not checked");
#else
    CHECK(mib < c.ceiling_mib);
#endif
  }
}
