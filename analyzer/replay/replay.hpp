// `clprof replay`: one captured launch (CLPROF_CAPTURE, docs/replay.md) run again on its
// own. Reads a capture's folder (capture.json, the program, the buffers' contents),
// rebuilds the program on a device, restores the arguments and the buffers before every
// run, times the launch with profiling events and checks its outputs against the
// captured post-launch contents byte for byte; optionally over the local sizes the device
// accepts (--sweep local) and other build options (--options).
//
// The one room of the analyzer that calls OpenCL (its own CMake target, clprof_replay,
// links libOpenCL); the CLI uses it, output formats its Outcome.
// Threads: one caller at a time; everything runs on the calling thread. Ownership: the
// OpenCL objects are made and released inside run_replay. Units: bytes, ns.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace clprof::replay {

// A capture folder that cannot be read, a device that cannot build or run the launch:
// what() names the file, capture or device. `exit_status` is the CLI's (2: bad input,
// 5: the device cannot build or run it).
class ReplayError : public std::runtime_error {
 public:
  ReplayError(const std::string& what, int exit_status = 2)
      : std::runtime_error(what), exit_status_(exit_status) {}
  int exit_status() const { return exit_status_; }

 private:
  int exit_status_;
};

struct CapturedArg {
  std::string kind;  // scalar, buffer, local
  uint32_t size = 0;
  std::vector<unsigned char> bytes;  // scalar
  int buffer = -1;                   // buffer: index into Capture::buffers, -1 = NULL
  uint64_t offset = 0, bytes_used = 0;
  std::string type;  // CL_KERNEL_ARG_TYPE_NAME, "" unknown
};

struct CapturedBuffer {
  uint64_t bytes = 0;
  uint64_t flags = 0;
  std::vector<unsigned char> before, after;
  bool has_before = false, has_after = false;
};

struct Capture {
  std::string dir;  // the folder it was read from
  uint64_t id = 0;
  std::string kernel;
  std::string device_name, device_type, platform;
  std::string origin;  // source or binary
  std::string source;
  std::vector<unsigned char> binary;
  std::string options;
  unsigned work_dim = 0;
  std::vector<uint64_t> gwo, gws;
  std::optional<std::vector<uint64_t>> lws;  // nullopt: the app passed NULL
  std::vector<CapturedArg> args;
  std::vector<CapturedBuffer> buffers;
  std::optional<int64_t> recorded_ns;
};

// Reads the capture in folder `dir`; throws ReplayError naming the file at fault.
Capture load_capture(const std::string& dir);

struct Options {
  unsigned repeat = 10;
  std::optional<unsigned> device;            // index into device_list(); nullopt: as recorded
  std::optional<std::string> build_options;  // nullopt: the captured ones
  bool sweep_local = false;
};

struct Candidate {
  std::optional<std::vector<uint64_t>> lws;  // nullopt: NULL
  std::string options;
  int64_t median_ns = 0, min_ns = 0, max_ns = 0;
  std::optional<bool> verified;
  bool app = false;  // the app's own local size (and captured options)
};

struct Outcome {
  std::string device;
  Candidate app;  // the launch as the app made it (options: --options when given)
  std::vector<Candidate> candidates;  // --sweep / --options: sorted by median time
  std::vector<std::string> notes;     // zero-filled buffers, left-out candidates, ...
};

// "NAME (PLATFORM, TYPE)" of every OpenCL device, in --device order.
std::vector<std::string> device_list();

// Runs the capture; throws ReplayError when the device cannot build or run it.
Outcome run_replay(const Capture& capture, const Options& options);

// The local sizes --sweep local tries on a device accepting `max_group` work-items per
// group, `max_items` per dimension, preferring multiples of `preferred`: every product of
// divisors of `gws` within those limits that is a multiple of `preferred` (all of them
// when none is), at most `limit` of them (the largest groups first), then the app's own
// `app_lws` when not among them. NULL (nullopt) is not in the list. Pure: unit-tested.
std::vector<std::vector<uint64_t>> sweep_local_sizes(
    const std::vector<uint64_t>& gws, uint64_t max_group, const std::vector<uint64_t>& max_items,
    uint64_t preferred, const std::optional<std::vector<uint64_t>>& app_lws, size_t limit = 48);

}  // namespace clprof::replay
