// The clprof trace schema: the one definition shared by the writer (shim/) and the
// reader (analyzer/). No OpenCL, no I/O. docs/trace-format.md documents every field;
// a change here is a change there.
//
// Layout of a trace file (one JSON document, one record per line):
//
//   {"format":"clprof-trace","version":1,"header":{...},"records":[
//   {"type":"device",...},
//   {"type":"launch",...},
//   ...
//   {"type":"end",...}]}
//
// Every record line except the last ends with ",". A file whose last line is not an
// "end" record was cut short (crash, kill): every line before the cut is complete.
//
// Clocks:
//   host   : CLOCK_MONOTONIC of the recording process, in ns *relative to*
//            header.host_start_ns (so small numbers); add host_start_ns for absolute.
//   device : the device's profiling clock (CL_PROFILING_COMMAND_*), ns, as reported.
//   unix   : CLOCK_REALTIME ns since the epoch (only header.start_unix_ns).
// A "clock_sync" record gives device->host: host_ns = device_ns + offset_ns.
#pragma once

#include <cstdint>
#include <string_view>

namespace clprof::trace {

inline constexpr std::string_view kFormatName = "clprof-trace";
// Version history:
//   1: first version.
// Readers accept every version <= kVersion; writers write kVersion.
inline constexpr int kVersion = 1;

// ---- top-level keys -------------------------------------------------------------------
namespace top {
inline constexpr std::string_view kFormat = "format";
inline constexpr std::string_view kVersion = "version";
inline constexpr std::string_view kHeader = "header";
inline constexpr std::string_view kRecords = "records";
}  // namespace top

// ---- header (object) ------------------------------------------------------------------
namespace header {
inline constexpr std::string_view kPid = "pid";                  // int
inline constexpr std::string_view kPpid = "ppid";                // int
inline constexpr std::string_view kCommandLine = "command_line";  // array of strings
inline constexpr std::string_view kStartUnixNs = "start_unix_ns";  // unix clock
inline constexpr std::string_view kHostStartNs = "host_start_ns";  // CLOCK_MONOTONIC abs
inline constexpr std::string_view kHostClock = "host_clock";       // "CLOCK_MONOTONIC"
inline constexpr std::string_view kHostName = "host_name";         // string
inline constexpr std::string_view kClprofVersion = "clprof_version";
inline constexpr std::string_view kSettings = "settings";  // object: CLPROF_* -> value
}  // namespace header

// ---- record kinds (value of "type") ---------------------------------------------------
namespace kind {
inline constexpr std::string_view kDevice = "device";
inline constexpr std::string_view kClockSync = "clock_sync";
inline constexpr std::string_view kQueue = "queue";
inline constexpr std::string_view kProgram = "program";
inline constexpr std::string_view kBuild = "build";
inline constexpr std::string_view kKernel = "kernel";
inline constexpr std::string_view kLaunch = "launch";
inline constexpr std::string_view kTransfer = "transfer";
inline constexpr std::string_view kSync = "sync";
inline constexpr std::string_view kRangeBegin = "range_begin";
inline constexpr std::string_view kRangeEnd = "range_end";
inline constexpr std::string_view kMark = "mark";
inline constexpr std::string_view kWarning = "warning";
inline constexpr std::string_view kEnd = "end";
}  // namespace kind

// ---- field keys (shared by several record kinds) --------------------------------------
namespace field {
inline constexpr std::string_view kType = "type";
inline constexpr std::string_view kSeq = "seq";        // uint, one counter per process over
                                                       // launch/transfer/sync records
inline constexpr std::string_view kTid = "tid";        // OS thread id (gettid)
inline constexpr std::string_view kRc = "rc";          // OpenCL return code (int)
inline constexpr std::string_view kApi = "api";        // OpenCL entry point name
inline constexpr std::string_view kId = "id";          // clprof object id (uint, >0, never
                                                       // reused within a trace)
inline constexpr std::string_view kName = "name";
// object ids (clprof ids, not handles; 0 = unknown)
inline constexpr std::string_view kKernelId = "kernel_id";
inline constexpr std::string_view kProgramId = "program_id";
inline constexpr std::string_view kQueueId = "queue_id";
inline constexpr std::string_view kContextId = "context_id";
inline constexpr std::string_view kDeviceId = "device_id";
inline constexpr std::string_view kDeviceIds = "device_ids";  // array of ids
// times
inline constexpr std::string_view kHostNs = "host_ns";      // [begin, end] host clock, or a
                                                            // single number for instants
inline constexpr std::string_view kDeviceNs = "device_ns";  // [queued, submit, start, end]
                                                            // device clock, or null
inline constexpr std::string_view kStatus = "status";  // "complete" | "incomplete" |
                                                       // "error" (see kExecStatus)
inline constexpr std::string_view kExecStatus = "exec_status";  // int, when status=="error"
inline constexpr std::string_view kRanges = "ranges";  // array of range ids, outermost first
// launch
inline constexpr std::string_view kKernel = "kernel";  // kernel function name
inline constexpr std::string_view kGwo = "gwo";        // array or null (NULL offset)
inline constexpr std::string_view kGws = "gws";        // array (len = work_dim)
inline constexpr std::string_view kLws = "lws";        // array or null (NULL local size)
inline constexpr std::string_view kArgs = "args";      // array, index = arg index
inline constexpr std::string_view kArgsTotal = "args_total";  // kernel's argument count, only
                                                              // when it exceeds the args kept
// transfer
inline constexpr std::string_view kOp = "op";          // see namespace transfer_op
inline constexpr std::string_view kBytes = "bytes";    // uint
inline constexpr std::string_view kBlocking = "blocking";  // bool
// program / build
inline constexpr std::string_view kSourceHash = "source_hash";  // "fnv1a64:<16 hex>"
inline constexpr std::string_view kSourceBytes = "source_bytes";
inline constexpr std::string_view kSource = "source";   // only with CLPROF_CAPTURE_SOURCE=1
inline constexpr std::string_view kOrigin = "origin";   // "source"|"binary"|"il"|"builtin"|"link"
inline constexpr std::string_view kOptions = "options";  // build options string
inline constexpr std::string_view kKernels = "kernels";  // array of kernel names
inline constexpr std::string_view kBuildStatus = "build_status";  // array per device (int)
inline constexpr std::string_view kNumArgs = "num_args";
// queue
inline constexpr std::string_view kProperties = "properties";  // uint bitfield as app asked
inline constexpr std::string_view kProfilingAdded = "profiling_added";  // bool
// ranges
inline constexpr std::string_view kParent = "parent";  // range id or 0
inline constexpr std::string_view kOpen = "open";      // bool, range_end at exit for a
                                                       // range the app never popped
// clock_sync
inline constexpr std::string_view kMethod = "method";  // "clGetDeviceAndHostTimer" |
                                                       // "enqueue_bracket"
inline constexpr std::string_view kOffsetNs = "offset_ns";  // host = device + offset (int)
inline constexpr std::string_view kUncertaintyNs = "uncertainty_ns";
// warning
inline constexpr std::string_view kMessage = "message";
// end
inline constexpr std::string_view kCounts = "counts";  // object: record kind -> count
inline constexpr std::string_view kIncomplete = "incomplete";  // events never completed
inline constexpr std::string_view kDropped = "dropped";  // records lost (should be 0)
}  // namespace field

// ---- device record fields ------------------------------------------------------------
namespace device {
inline constexpr std::string_view kPlatform = "platform";
inline constexpr std::string_view kPlatformVersion = "platform_version";
inline constexpr std::string_view kVendor = "vendor";
inline constexpr std::string_view kVersion = "version";
inline constexpr std::string_view kDriverVersion = "driver_version";
inline constexpr std::string_view kDeviceType = "device_type";  // "CPU","GPU","ACCELERATOR",...
inline constexpr std::string_view kComputeUnits = "compute_units";
inline constexpr std::string_view kMaxClockMhz = "max_clock_mhz";
inline constexpr std::string_view kGlobalMemBytes = "global_mem_bytes";
inline constexpr std::string_view kLocalMemBytes = "local_mem_bytes";
inline constexpr std::string_view kTimerResolutionNs = "timer_resolution_ns";
}  // namespace device

// ---- kernel arguments ----------------------------------------------------------------
// Each element of "args" is an array whose first element is the kind:
//   ["scalar", size, "hex bytes in memory order", value]   value: little-endian unsigned
//                                       integer for size 1,2,4,8; omitted otherwise
//   ["buffer", size, mem_id, mem_bytes]  (mem_id 0 = NULL buffer)
//   ["image",  size, mem_id, mem_bytes]
//   ["pipe",   size, mem_id, mem_bytes]
//   ["local",  size]                      (__local allocation of `size` bytes)
//   ["svm",    0, "0x<pointer>"]          (clSetKernelArgSVMPointer)
//   ["sampler", size, sampler_id]
//   ["unset"]                             (never set before the launch)
// Scalars longer than kMaxScalarBytes keep only the first kMaxScalarBytes bytes in "hex".
namespace arg_kind {
inline constexpr std::string_view kScalar = "scalar";
inline constexpr std::string_view kBuffer = "buffer";
inline constexpr std::string_view kImage = "image";
inline constexpr std::string_view kPipe = "pipe";
inline constexpr std::string_view kLocal = "local";
inline constexpr std::string_view kSvm = "svm";
inline constexpr std::string_view kSampler = "sampler";
inline constexpr std::string_view kUnset = "unset";
}  // namespace arg_kind
inline constexpr unsigned kMaxScalarBytes = 64;

// ---- transfer operations (value of "op") ----------------------------------------------
namespace transfer_op {
inline constexpr std::string_view kRead = "read";      // device -> host
inline constexpr std::string_view kWrite = "write";    // host -> device
inline constexpr std::string_view kCopy = "copy";      // device -> device
inline constexpr std::string_view kFill = "fill";
inline constexpr std::string_view kMap = "map";
inline constexpr std::string_view kUnmap = "unmap";
// The "api" field tells buffer/image/rect/SVM apart (e.g. clEnqueueReadBufferRect).
}  // namespace transfer_op

// ---- launch/transfer status -----------------------------------------------------------
namespace status {
inline constexpr std::string_view kComplete = "complete";
inline constexpr std::string_view kIncomplete = "incomplete";  // still pending at exit
inline constexpr std::string_view kError = "error";            // exec status < 0
inline constexpr std::string_view kNotEnqueued = "not_enqueued";  // rc != CL_SUCCESS
}  // namespace status

}  // namespace clprof::trace
