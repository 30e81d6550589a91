// The in-memory model of a profiled run, produced by every reader (clprof traces and the
// importers for other tools' profiles) and consumed by every analysis. Nothing here knows
// OpenCL handles, files or output formats.
//
// Times: every *_ns field is integer nanoseconds. `host_*` fields are on the run's host
// timeline (ns since the process's trace start, see Process::host_start_ns); `device_*`
// fields are on the device's own clock, as the device reported them. A value of
// kNoTime means "not known" (e.g. an importer that has only durations).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clprof/trace_schema.hpp"

namespace clprof::model {

inline constexpr int64_t kNoTime = INT64_MIN;

// A device (one OpenCL device of one process). Ids are unique within a Run.
struct Device {
  uint32_t id = 0;                // Run-wide id (index into Run::devices + 1)
  uint32_t process = UINT32_MAX;  // index into Run::processes; UINT32_MAX: not known (importers)
  std::string name, vendor, platform, platform_version, version, driver_version, type;
  uint32_t compute_units = 0;
  uint32_t max_clock_mhz = 0;
  uint64_t global_mem_bytes = 0;
  uint64_t local_mem_bytes = 0;
  uint64_t timer_resolution_ns = 0;
  // host_ns = device_ns + device_to_host_offset_ns, when has_clock_offset (host_ns on the
  // device's process's host timeline: clock_alignment.hpp).
  bool has_clock_offset = false;
  int64_t device_to_host_offset_ns = 0;
  uint64_t clock_uncertainty_ns = 0;  // half-width of the interval the offset lies in
  std::string clock_method;           // "clGetDeviceAndHostTimer", "enqueue_bracket", ...
};

// One kernel argument as it was at launch time (trace_schema.hpp ArgKind).
struct KernelArg {
  using Kind = clprof::trace::ArgKind;  // Unset, Scalar, Buffer, Image, Pipe, Local, Svm, Sampler
  Kind kind = Kind::Unset;
  uint32_t size = 0;          // bytes passed to clSetKernelArg
  std::string hex;            // scalar bytes in memory order (lower-case hex)
  bool has_value = false;     // scalar of size 1, 2, 4 or 8
  uint64_t value = 0;         // little-endian unsigned value of the scalar
  uint64_t object_id = 0;     // mem / sampler id
  uint64_t object_bytes = 0;  // mem object size
  std::string svm_pointer;    // "0x..."
};

// A range (layer marker, iteration, or an imported workload/operator).
struct Range {
  uint64_t id = 0;      // unique within the Run
  uint64_t parent = 0;  // 0 = top level
  std::string name;
  uint32_t process = 0;  // index into Run::processes
  uint64_t tid = 0;
  int64_t host_begin_ns = kNoTime;
  int64_t host_end_ns = kNoTime;
  bool left_open = false;  // never closed by the app
};

// One kernel launch.
struct Launch {
  uint64_t seq = 0;      // order within its process
  uint32_t process = 0;  // index into Run::processes
  uint64_t tid = 0;
  std::string name;  // kernel function name
  std::string api;   // "clEnqueueNDRangeKernel" (default) or "clEnqueueTask"
  uint64_t kernel_id = 0, program_id = 0, queue_id = 0, context_id = 0;
  uint32_t device = 0;        // Device::id, 0 = unknown
  std::vector<uint64_t> gwo;  // empty = NULL offset
  std::vector<uint64_t> gws;
  std::optional<std::vector<uint64_t>> lws;  // nullopt = NULL local size
  std::vector<KernelArg> args;
  int64_t host_begin_ns = kNoTime, host_end_ns = kNoTime;  // inside the enqueue call
  int64_t queued_ns = kNoTime, submit_ns = kNoTime, start_ns = kNoTime, end_ns = kNoTime;
  std::string status = "complete";  // trace_schema.hpp Status names
  int32_t rc = 0;
  int32_t exec_status = 0;       // with status "error": the negative execution status
  uint32_t args_total = 0;       // the kernel's argument count when args holds fewer, else 0
  std::vector<uint64_t> ranges;  // Range ids, outermost first
  uint64_t call = 0;     // the BlasCall::id it was made in (0 = none; clprof traces, version 3)
  uint64_t capture = 0;  // the Capture::id of its process that captured it (0 = none)
  // Importers that only know a duration set this and leave device times kNoTime.
  std::optional<int64_t> duration_override_ns;
  // Free-form facts an importer keeps (e.g. Arm NN measurement name).
  std::map<std::string, std::string> extra;

  bool has_device_times() const { return start_ns != kNoTime && end_ns != kNoTime; }
  // Device execution time (end - start), or the importer's duration; nullopt if unknown,
  // if end < start, or if the difference does not fit in 64 bits.
  std::optional<int64_t> duration_ns() const {
    if (duration_override_ns) return duration_override_ns;
    int64_t d;
    if (has_device_times() && end_ns >= start_ns && !__builtin_sub_overflow(end_ns, start_ns, &d))
      return d;
    return std::nullopt;
  }
};

struct Transfer {
  uint64_t seq = 0;
  uint32_t process = 0;
  uint64_t tid = 0;
  std::string api;  // e.g. "clEnqueueReadBuffer"
  std::string op;   // read | write | copy | fill | map | unmap
  uint64_t queue_id = 0;
  uint32_t device = 0;
  uint64_t bytes = 0;
  bool blocking = false;
  int64_t host_begin_ns = kNoTime, host_end_ns = kNoTime;
  int64_t queued_ns = kNoTime, submit_ns = kNoTime, start_ns = kNoTime, end_ns = kNoTime;
  std::string status = "complete";
  int32_t rc = 0;
  int32_t exec_status = 0;  // with status "error"
  std::vector<uint64_t> ranges;
  uint64_t call = 0;  // as Launch::call
};

struct Sync {
  uint64_t seq = 0;
  uint32_t process = 0;
  uint64_t tid = 0;
  std::string api;  // clFinish, clWaitForEvents, ...
  uint64_t queue_id = 0;
  int64_t host_begin_ns = kNoTime, host_end_ns = kNoTime;
  int32_t rc = 0;
  uint64_t call = 0;  // as Launch::call
};

// One call of a BLAS library's GEMM as the app made it (clprof traces: a range_begin with
// its "blas" object). The launches and transfers it made have Launch::call == id.
struct BlasCall {
  uint64_t id = 0;       // Run-wide, like Range::id
  uint64_t parent = 0;   // the app's innermost open range at the call (0 = none)
  uint32_t process = 0;  // index into Run::processes
  uint64_t tid = 0;
  std::string library;           // clblast | clblas
  std::string api;               // CLBlastSgemm, clblast::Gemm<float>, clblasSgemm, ...
  std::string routine;           // gemm | gemm_batched | gemm_strided_batched
  std::string precision;         // s d c z h
  std::string layout;            // row | col | ""
  std::string trans_a, trans_b;  // n | t | c | ""
  uint64_t m = 0, n = 0, k = 0, batch = 1;
  std::optional<double> alpha, beta;  // real parts; absent for batched calls
  uint64_t a_mem = 0, b_mem = 0, c_mem = 0, temp_mem = 0;
  uint64_t a_ld = 0, b_ld = 0, c_ld = 0;
  uint64_t a_offset = 0, b_offset = 0, c_offset = 0;  // 0 for batched calls
  uint64_t a_stride = 0, b_stride = 0, c_stride = 0;  // strided batched calls only
  std::optional<double> alpha_im, beta_im;            // complex precisions only
  std::vector<uint64_t> queue_ids;
  int64_t host_begin_ns = kNoTime, host_end_ns = kNoTime;
  std::optional<int32_t> status;  // what the library returned (absent: never returned)
};

struct Program {
  uint64_t id = 0;
  uint32_t process = 0;
  uint64_t context_id = 0;
  std::string origin;  // source | binary | il | builtin | link
  std::string source_hash;
  uint64_t source_bytes = 0;
  std::string source;   // only when captured
  std::string options;  // options of the latest successful build
};

struct Build {
  uint32_t process = 0;
  uint64_t program_id = 0;
  std::string api;  // clBuildProgram | clCompileProgram | clLinkProgram
  std::string options;
  std::vector<uint32_t> devices;
  int64_t host_begin_ns = kNoTime, host_end_ns = kNoTime;
  int32_t rc = 0;
  std::vector<int32_t> build_status;  // per device, after the call
  std::vector<std::string> kernels;
  std::string source_hash;
  // CL_PROGRAM_BUILD_LOG per device (as `devices`) of a failed build; empty when the trace
  // has none (older traces, successful builds).
  std::vector<std::string> logs;
};

// A command queue (clprof traces).
struct Queue {
  uint64_t id = 0;
  uint32_t process = 0;
  uint64_t context_id = 0;
  uint32_t device = 0;      // Device::id, 0 = unknown
  uint64_t properties = 0;  // CL_QUEUE_PROPERTIES as the app asked
  bool profiling_added = false;
};

// A kernel object (clprof traces).
struct Kernel {
  uint64_t id = 0;
  uint32_t process = 0;
  uint64_t program_id = 0, context_id = 0;
  std::string name;
  uint32_t num_args = 0;
  // CL_KERNEL_ARG_TYPE_NAME per argument ("float", "int", "float*", ...); empty when the
  // trace does not say (given once per name and program: look them up by both).
  std::vector<std::string> arg_types;
};

// A kernel's work-group facts on one device (clprof traces, kernel_device records, from
// version 4): given once per program, kernel name and device; look them up by all three.
struct KernelDevice {
  uint32_t process = 0;
  uint64_t kernel_id = 0, program_id = 0;
  std::string name;
  uint32_t device = 0;                         // Device::id, 0 = unknown
  std::optional<uint64_t> preferred_multiple;  // CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
  std::optional<uint64_t> work_group_size;     // CL_KERNEL_WORK_GROUP_SIZE
};

// A host API call known only as a call: an importer's API event (a Chrome trace's
// clEnqueue... slices). The calls of launches, transfers, syncs and builds are in those.
struct ApiCall {
  uint32_t process = 0;
  uint64_t tid = 0;
  std::string name;  // the function, e.g. "clFinish"
  int64_t host_begin_ns = kNoTime, host_end_ns = kNoTime;
  int32_t rc = 0;
};

// A layer timing that does not come with kernels (e.g. Caffe per_layer_info).
struct LayerTiming {
  std::string layer;
  std::string direction;  // "forward" | "backward" | ""
  int64_t time_ns = 0;
  uint32_t iteration = 0;
};

// A warning record the shim wrote into its trace.
struct ShimWarning {
  std::string message;
  int64_t host_ns = kNoTime;
  bool operator==(const ShimWarning& o) const {
    return message == o.message && host_ns == o.host_ns;
  }
};

// A capture record (CLPROF_CAPTURE): one launch kept for `clprof replay` (docs/replay.md).
struct Capture {
  uint64_t id = 0;  // the launch's `capture`, per process
  std::string kernel;
  std::string status;  // captured, refused, failed
  std::string reason;  // why not captured ("" when captured)
  std::string dir;     // relative to the trace's folder; "" when none
  std::vector<std::string> files;
};

struct Process {
  int64_t pid = 0;
  int64_t ppid = 0;
  std::vector<std::string> command_line;
  int64_t start_unix_ns = kNoTime;
  int64_t host_start_ns = kNoTime;  // absolute CLOCK_MONOTONIC of host time 0
  std::string host_clock;           // "CLOCK_MONOTONIC"
  std::string host_name;
  // The process's rank in its parallel job and the job's number of ranks (trace header;
  // absent outside a job and in traces written before them).
  std::optional<uint64_t> rank;
  std::optional<uint64_t> world_size;
  std::string clprof_version;
  std::string session_id;  // the recorded run (trace version 2; "" before)
  std::vector<std::pair<std::string, std::string>> settings;  // CLPROF_* in force
  std::string source;                                         // file it was read from
  std::string source_format;  // "clprof-trace", "armnn", "dvdt-prof", "chrome", "caffe"
  int trace_version = 0;
  bool truncated = false;  // no end record
  uint64_t incomplete_events = 0;
  uint64_t dropped_records = 0;
  int64_t end_host_ns = kNoTime;                                // the end record's time
  std::vector<std::pair<std::string, uint64_t>> record_counts;  // the end record's counts
  // The app's objects alive at the end (end.live, version 4): kind -> count, a kind the
  // shim could not count absent; nullopt when the trace does not say.
  std::optional<std::vector<std::pair<std::string, uint64_t>>> live_objects;
  std::vector<ShimWarning> warnings;  // warning records of the shim
  std::vector<Capture> captures;      // capture records, in order
  // Whole-inference wall times an importer knows (Arm NN "Wall clock time"), per iteration.
  std::vector<int64_t> iteration_wall_ns;
};

// The ranges a streaming read folded (readers::LoadOptions::fold_ranges): a range whose
// begin and end a reading thread saw both is kept as its name and parent only, 8 bytes a
// range (a name index and the parent's trace-local id) instead of a model::Range, and the
// host times it covered are kept per process as one span. Run::ranges then holds the ranges
// not folded (the top-level ones when kept whole, those still open at a thread's boundary
// or at the end). Ids are the clprof reader's Run-wide range ids: (process index + 1) <<
// trace::kRangeIdBits | trace-local id. Built by one thread; read-only afterwards, so
// const access is safe from any thread. Empty for every other read.
class FoldedRanges {
 public:
  static constexpr uint32_t kNoName = UINT32_MAX;
  // What one reading thread folded of one process's trace (merged with absorb).
  struct Part {
    uint64_t base = 0;  // dense[i] is trace-local id base + i
    struct Entry {
      uint32_t name = kNoName;  // index into names (kNoName: no range of that id)
      uint32_t parent = 0;      // trace-local id of the parent (0: top level)
    };
    std::vector<Entry> dense;
    // Ids far from the others, or parents past 32 bits (hostile traces): local id ->
    // (name index, parent local id).
    std::unordered_map<uint64_t, std::pair<uint32_t, uint64_t>> sparse;
    std::vector<std::string> names;                     // this part's own name indexes
    std::unordered_map<std::string, uint32_t> name_of;  // name -> index into names
    int64_t begin_ns = kNoTime, end_ns = kNoTime;       // host span covered (extend_span's rule)
    // The span by advise's rule (advice/util.hpp see_span): ranges with a host begin only,
    // an end before it (or none) read as the begin.
    int64_t begun_ns = kNoTime, begun_end_ns = kNoTime;
    uint64_t count = 0;     // ranges folded
    uint64_t inverted = 0;  // ranges whose host end comes before their begin
    std::string inverted_example;
    // Adds range `local` (a new id of this part: a repeated one replaces the earlier).
    void add(uint64_t local, uint64_t parent_local, std::string_view name, int64_t begin_ns,
             int64_t end_ns);
    bool empty() const { return count == 0; }
  };
  struct Span {
    int64_t begin_ns = kNoTime, end_ns = kNoTime;  // on the process's host clock
  };

  // Adds `part` of process index `process` (parts of one process in file order: a later
  // range of a repeated id replaces the earlier).
  void absorb(uint32_t process, Part&& part);
  // The name of range `id`, or nullptr when it was not folded.
  const std::string* name(uint64_t id) const;
  // The parent of folded range `id` (Run-wide, 0 = top level); nullopt when not folded.
  std::optional<uint64_t> parent(uint64_t id) const;
  bool contains(uint64_t id) const { return name(id) != nullptr; }
  // Calls f(id, parent) for every folded range (Run-wide ids), process by process.
  template <class F>
  void for_each(F&& f) const {
    for (uint32_t p = 0; p < processes_.size(); ++p) {
      const auto& d = processes_[p];
      for (size_t i = 0; i < d.dense.size(); ++i)
        if (d.dense[i].name != kNoName)
          f(run_id(p, d.base + i), d.dense[i].parent ? run_id(p, d.dense[i].parent) : 0);
      for (const auto& [local, e] : d.sparse)
        f(run_id(p, local), e.second ? run_id(p, e.second) : 0);
    }
  }
  // The host span the folded ranges of process index `process` cover (kNoTime: none).
  Span span(uint32_t process) const;
  // The same by advise's rule (Part::begun_ns): ranges without a host begin left out, an end
  // before the begin (or none) read as the begin.
  Span begun_span(uint32_t process) const;
  uint64_t count() const { return count_; }
  uint64_t inverted() const { return inverted_; }
  const std::string& inverted_example() const { return inverted_example_; }
  uint32_t inverted_example_process() const { return inverted_example_process_; }
  bool empty() const { return count_ == 0; }

 private:
  static uint64_t run_id(uint32_t process, uint64_t local) {
    return ((uint64_t{process} + 1) << trace::kRangeIdBits) | local;
  }
  struct Process {
    uint64_t base = 0;
    std::vector<Part::Entry> dense;
    std::unordered_map<uint64_t, std::pair<uint32_t, uint64_t>> sparse;
    Span span, begun;
  };
  const std::pair<uint32_t, uint64_t>* lookup(uint64_t id,
                                              std::pair<uint32_t, uint64_t>& tmp) const;
  std::vector<Process> processes_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> name_of_;
  uint64_t count_ = 0, inverted_ = 0;
  std::string inverted_example_;
  uint32_t inverted_example_process_ = 0;
};

// A whole run: one or more processes (several traces = one run of several processes).
struct Run {
  std::vector<Process> processes;
  std::vector<Device> devices;
  std::vector<Range> ranges;
  FoldedRanges folded_ranges;  // ranges a streaming read kept by name only (see above)
  std::vector<Program> programs;
  std::vector<Build> builds;
  std::vector<Queue> queues;
  std::vector<Kernel> kernels;
  std::vector<KernelDevice> kernel_devices;
  std::vector<Launch> launches;
  std::vector<Transfer> transfers;
  std::vector<Sync> syncs;
  std::vector<BlasCall> blas_calls;  // in file order per process
  std::vector<LayerTiming> layer_timings;
  std::vector<ApiCall> api_calls;
  // Marks (instants): name and host time, per process.
  struct Mark {
    uint32_t process = 0;
    uint64_t tid = 0;
    std::string name;
    int64_t host_ns = kNoTime;
  };
  std::vector<Mark> marks;
};

}  // namespace clprof::model
