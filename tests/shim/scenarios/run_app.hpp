// Running the test app under the shim and reading what it wrote: process spawning with a
// controlled environment, and RapidJSON helpers for trace files.
#pragma once

#include <rapidjson/document.h>
#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "test_files.hpp"

namespace shim_test {

// Environment changes for one run: a value sets the variable, nullopt removes it.
using EnvChanges = std::map<std::string, std::optional<std::string>>;

// The system's OpenCL (PoCL on Debian) instead of the fake driver.
EnvChanges system_opencl();

// How to run the test app once.
struct RunOptions {
  std::string scenario;
  bool preload_shim = true;  // LD_PRELOAD=libclprof.so
  std::string output;        // CLPROF_OUTPUT (ignored without the shim); empty: not set
  EnvChanges env;            // applied last
  std::string arg = "";      // the scenario's argument (argv[2]); empty: none
  std::string cwd = "";      // the app's working directory; empty: the test's own
  // A program that starts the app ("timeout", "60"): run instead, with the app's command
  // line after its own arguments, in the same environment (searched in PATH).
  std::vector<std::string> wrapper = {};
};

// What one run of the test app left behind.
struct RunResult {
  int exit_code = -1;  // WEXITSTATUS, or 128 + signal
  bool core_dumped = false;
  pid_t pid = 0;
  std::string out;
  std::string err;
  std::map<std::string, long long> values;  // the app's "key value" stdout lines
};

// Starts the test app (without waiting). stdout/stderr go to files under `io_dir`.
// `app`: another build of the test app (empty: CLPROF_TEST_APP).
pid_t spawn_app(const RunOptions& options, const std::string& io_dir, const std::string& app = "");
// Waits for a spawned app and collects its output.
RunResult wait_app(pid_t pid, const std::string& io_dir);
// spawn_app + wait_app.
RunResult run_app(const RunOptions& options, const std::string& io_dir,
                  const std::string& app = "");

// stdout without the lines that legitimately differ between runs (pid, tid, child).
std::string stable_output(const std::string& out);

// A parsed trace file plus its records grouped by type.
struct Trace {
  std::string text;  // the file as read (`doc` keeps its own copies of the strings)
  rapidjson::Document doc;
  std::vector<const rapidjson::Value*> records;

  // Records whose "type" is `type`, in file order.
  std::vector<const rapidjson::Value*> of_type(const char* type) const;
  // The one record of `type` whose "id" is `id` (nullptr if none).
  const rapidjson::Value* by_id(const char* type, std::uint64_t id) const;
  const rapidjson::Value& header() const { return doc["header"]; }
};

// Parses a complete trace file; fails the current doctest case with the reason if the file
// is not a valid trace (one JSON document, one record per line, "end" last).
bool load_trace(const std::string& path, Trace& out);

// True when `text` ends as a whole trace does (the records array closed: "]}\n").
bool is_whole_trace(const std::string& text);

// Parses a trace that may have been cut short (no end record: a killed process): the
// header and every whole record line, a cut last line dropped. Fails the case when the
// file is missing or what it holds is not such a prefix of a trace.
bool load_partial_trace(const std::string& path, Trace& out);

// One run of `scenario` under the shim (with `env`) in a fresh directory, its trace (x.json
// there) loaded. Fails the case when the app does not exit 0 or the trace is not valid.
struct TracedRun {
  explicit TracedRun(const std::string& scenario, const EnvChanges& env = {});
  TempDir dir;
  RunResult app;
  Trace trace;
};

// FNV-1a 64 of `s` as the trace writes it: "fnv1a64:<16 lower-case hex digits>".
std::string fnv1a64(const std::string& s);

}  // namespace shim_test
