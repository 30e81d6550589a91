// Helpers for the end-to-end tests: run a real program (optionally under libclprof.so),
// load the trace it wrote, and check the contract of docs/trace-format.md on it.
//
// The checks use doctest assertions, so they may only be called from inside a test case.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace clprof::e2e {

namespace fs = std::filesystem;
using Json = rapidjson::Value;

// ---- paths configured by CMake -------------------------------------------------------
struct Paths {
  fs::path bin_dir;       // <build>/bin: the examples and the clprof CLI
  fs::path shim;          // <build>/lib/libclprof.so
  fs::path clprof_cli;    // <build>/bin/clprof
  fs::path examples_src;  // <source>/examples
  fs::path python;        // /usr/bin/python3 (the interpreter with pyopencl)
  fs::path work_root;     // a build-tree directory for traces and captured output
};
const Paths& paths();
// LD_PRELOAD for a program run under the shim: the shim, after the sanitizer runtime it was
// built against in a sanitizer build (which must come first in the process).
std::string shim_preload();

// A fresh, empty directory under work_root for one test.
fs::path fresh_work_dir(const std::string& name);

// ---- running programs ----------------------------------------------------------------
// Environment changes on top of the test's own environment. Every run starts without
// LD_PRELOAD and without any CLPROF_* variable, so "without the shim" really is without.
using EnvChanges = std::vector<std::pair<std::string, std::string>>;

struct RunResult {
  int exit_code = -1;  // 128 + signal when killed by a signal
  std::string out;
  std::string err;
};

// Runs argv[0] (a path) with the given arguments; stdout and stderr are captured into
// dir/<tag>.stdout and .stderr and returned. The child is killed after timeout_s seconds
// so a hung program fails its test instead of hanging the suite.
RunResult run_program(const std::vector<std::string>& argv, const EnvChanges& env,
                      const fs::path& dir, const std::string& tag, unsigned timeout_s);

// Runs `clprof ARGS` (paths().clprof_cli) in `dir` with a 120 s limit; REQUIREs exit status 0.
RunResult clprof_ok(const std::vector<std::string>& args, const fs::path& dir,
                    const std::string& tag);
// `text` parsed as JSON; REQUIREs that it is.
rapidjson::Document parse_json(const std::string& text);

// How the shim is loaded (docs/recording.md): LD_PRELOAD, OPENCL_LAYERS, or both at once.
enum class ShimMode { Preload, Layer, Both };

// Runs the program once without and once under the shim (loaded as `mode` says, with
// CLPROF_OUTPUT), checks that the exit code and stdout are identical and that the plain
// run succeeded, and returns the shim run's result. The trace goes to `trace`.
RunResult run_with_and_without_shim(const std::vector<std::string>& argv, const fs::path& dir,
                                    const fs::path& trace, unsigned timeout_s,
                                    const EnvChanges& extra_env = {},
                                    ShimMode mode = ShimMode::Preload);

// ---- traces --------------------------------------------------------------------------
struct Launch {
  const Json* record = nullptr;
  uint64_t seq = 0;
  int64_t tid = 0;
  int64_t rc = 0;
  std::string kernel;
  uint64_t kernel_id = 0;
  uint64_t queue_id = 0;
  uint64_t device_id = 0;
  std::vector<uint64_t> gws;
  std::optional<std::vector<uint64_t>> lws;  // nullopt: the app passed NULL
  std::optional<std::vector<uint64_t>> gwo;
  std::vector<int64_t> host_ns;                   // [begin, end]
  std::optional<std::vector<int64_t>> device_ns;  // [queued, submit, start, end]
  std::string status;
  std::vector<uint64_t> ranges;  // outermost first
  const Json* args = nullptr;
};

struct Range {
  uint64_t id = 0;
  uint64_t parent = 0;
  std::string name;
  int64_t tid = 0;
  int64_t begin_ns = 0;
  std::optional<int64_t> end_ns;  // nullopt: no range_end record
  bool closed_at_exit = false;    // range_end carried "open": true
};

class Trace {
 public:
  explicit Trace(const fs::path& file);  // REQUIREs a complete, parseable trace
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  const Json& document() const { return doc_; }
  const Json& header() const;
  // Every record of one type, in file order.
  std::vector<const Json*> records(std::string_view type) const;
  // Launch records decoded (type-checked), ordered by seq.
  const std::vector<Launch>& launches() const { return launches_; }
  std::vector<Launch> launches_of(std::string_view kernel) const;
  const std::map<uint64_t, Range>& ranges() const { return ranges_; }
  const Range& range(uint64_t id) const;  // REQUIREs that it exists
  // Names of a record's "ranges" ids, outermost first.
  std::vector<std::string> range_names(const std::vector<uint64_t>& ids) const;

 private:
  rapidjson::Document doc_;
  std::vector<const Json*> all_;
  std::vector<Launch> launches_;
  std::map<uint64_t, Range> ranges_;
};

// The invariants every trace of a well-behaved program must satisfy: complete file, no
// dropped records, unique seqs, every launch and transfer completed with ordered device
// and host times, every id referring to a recorded object, balanced per-thread ranges and
// every record's range list matching the enqueuing thread's open ranges.
void check_trace_invariants(const Trace& trace);

// ---- reading fields ------------------------------------------------------------------
const Json& member(const Json& object, std::string_view key);  // REQUIREs presence
bool has_member(const Json& object, std::string_view key);
int64_t get_int(const Json& object, std::string_view key);
uint64_t get_uint(const Json& object, std::string_view key);
std::string get_string(const Json& object, std::string_view key);

// The "ranges" ids of any record that has them (launch, transfer).
std::vector<uint64_t> record_range_ids(const Json& record);

// Argument i of a launch as ["scalar", size, hex, value]: REQUIREs the kind and size, that
// the hex bytes spell the value little-endian, and returns the value.
uint64_t scalar_arg(const Launch& launch, unsigned index, unsigned size);
// Argument i as ["buffer", sizeof(cl_mem), mem_id, mem_bytes]: returns {mem_id, mem_bytes}.
std::pair<uint64_t, uint64_t> buffer_arg(const Launch& launch, unsigned index);

uint32_t float_bits(float value);

// ---- the examples' "launch KERNEL gws=G lws=L key=value ..." stdout lines -------------
struct PrintedLaunch {
  std::string kernel;
  uint64_t gws = 0;
  uint64_t lws = 0;  // 0: NULL local size
  std::map<std::string, std::string> values;
};
std::vector<PrintedLaunch> printed_launches(const std::string& out);
// The trace's launches (by seq) are exactly the printed ones: same count, same kernel
// names in the same order, same 1-D global size, same local size (0 <-> null), same
// global offset (no gwo= <-> null) and, when printed, the same "api".
void check_launches_match_printed(const Trace& trace, const std::vector<PrintedLaunch>& want);

}  // namespace clprof::e2e
