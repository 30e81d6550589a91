// `clprof replay`: one captured launch (CLPROF_CAPTURE, docs/replay.md) run again on its
// own. Reads a capture's folder (capture.json, the program, the buffers' and images'
// contents), rebuilds the program on a device, restores the arguments (samplers made
// anew from their captured modes) and the buffers' and images' contents before every
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
  std::string kind;  // scalar, buffer, local, image, sampler
  uint32_t size = 0;
  std::vector<unsigned char> bytes;  // scalar
  int buffer = -1;                   // buffer: index into Capture::buffers, -1 = NULL
  uint64_t offset = 0, bytes_used = 0;
  int image = -1;  // image: index into Capture::images
  // sampler: cl_bool, cl_addressing_mode, cl_filter_mode (the manifest's words, decoded).
  bool normalized = false;
  unsigned addressing = 0, filter = 0;
  std::string type;  // CL_KERNEL_ARG_TYPE_NAME, "" unknown
};

struct CapturedBuffer {
  uint64_t bytes = 0;
  uint64_t flags = 0;
  std::vector<unsigned char> before, after;
  bool has_before = false, has_after = false;
};

// An image: its format and size as the app made it, its contents packed (rows of
// width * element_size bytes, no padding, then the next slice or layer).
struct CapturedImage {
  unsigned type = 0;  // CL_MEM_OBJECT_IMAGE2D, ...
  unsigned channel_order = 0, channel_type = 0;
  uint64_t element_size = 0, width = 0, height = 0, depth = 0, array_size = 0;
  uint64_t bytes = 0;  // element_size * the region's product (checked on reading)
  uint64_t flags = 0;
  std::vector<unsigned char> before, after;
  bool has_after = false;
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
  std::vector<CapturedImage> images;  // none in a manifest without "images"
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

// Stores a --sweep local outcome (run with the captured build options) as sweep.json in the
// capture's folder (capture.dir), replacing an earlier one, for `clprof advise`
// (readers/sweeps.hpp reads it; model::LocalSweep, docs/replay.md). Returns its path;
// throws ReplayError naming the file when it cannot be written.
std::string store_sweep(const Capture& capture, const Outcome& outcome, unsigned repeat);

// The local sizes --sweep local tries on a device accepting `max_group` work-items per
// group, `max_items` per dimension, preferring multiples of `preferred`: every product of
// divisors of `gws` within those limits that is a multiple of `preferred` (all of them
// when none is), at most `limit` of them (the largest groups first), then the app's own
// `app_lws` when not among them. NULL (nullopt) is not in the list. Pure: unit-tested.
std::vector<std::vector<uint64_t>> sweep_local_sizes(
    const std::vector<uint64_t>& gws, uint64_t max_group, const std::vector<uint64_t>& max_items,
    uint64_t preferred, const std::optional<std::vector<uint64_t>>& app_lws, size_t limit = 48);

}  // namespace clprof::replay
