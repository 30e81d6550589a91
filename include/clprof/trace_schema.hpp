// The clprof trace schema, declared once. SHARED by the shim (the writer, shim/output/) and
// the analyzer (the readers, analyzer/readers/clprof_trace/); bench/analyzer/gen_trace.cpp
// writes through the shim's writer, and docs/trace-format.md's field tables are generated
// from the tables below (checked by tests/analyzer/readers/clprof_trace/schema_doc_test.cpp).
// Header-only, constexpr data only: no OpenCL, no I/O, no allocation; any thread.
//
// Layout of a trace file (one JSON document, one record per line):
//
//   {"format":"clprof-trace","version":2,"header":{...},"records":[
//   {"type":"device",...},
//   {"type":"launch",...},
//   ...
//   {"type":"end",...}]}
//
// Per record type, an X-macro lists its fields in the order the shim writes them:
//   X(key, Type, Unit, Clock, Presence, "one-line doc")
// `key` is both the JSON key and the C++ name of the field: trace::launch::seq is the key
// "seq" of launch records (a Key: its name, and the text ,"seq": the hot writer copies),
// trace::launch::F::seq its index in trace::launch::kFields. Every record starts with
// "type" (its RecordType's name), which the lists leave out.
//
// Clocks (every time field names its own, Clock below):
//   host      : CLOCK_MONOTONIC of the recording process, ns relative to header.host_start_ns
//   host_abs  : CLOCK_MONOTONIC, ns, absolute (header.host_start_ns only)
//   device    : the device's profiling clock (CL_PROFILING_COMMAND_*), ns, as reported
//   unix      : CLOCK_REALTIME ns since the epoch (header.start_unix_ns only)
// A clock_sync record relates a device clock to the host clock: host = device + offset_ns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace clprof::trace {

inline constexpr std::string_view kFormatName = "clprof-trace";
// Version history (docs/trace-format.md "Versions"):
//   1: first version.
//   2: header.session_id (the recorded run a process belongs to); readers check every
//      record against this schema (version 1 traces are read by the same rules).
//   3: BLAS library calls: range_begin.blas (the call's arguments), range_end.status,
//      launch/transfer/sync.call (the call a command belongs to); kernel.arg_types;
//      build.logs.
//   4: kernel_device records (a kernel's work-group facts on a device, at its first launch
//      there); end.live (the app's objects still alive at the end).
// Readers read every version from kOldestVersion to kVersion; writers write kVersion.
inline constexpr int kVersion = 4;
inline constexpr int kOldestVersion = 1;

// Scalar arguments keep at most this many bytes in their hex text.
inline constexpr unsigned kMaxScalarBytes = 64;
// A build log (build.logs) keeps at most this many bytes per device; a longer one is cut
// (at a UTF-8 character boundary) and ends with kBuildLogCutNote.
inline constexpr size_t kMaxBuildLogBytes = 64 * 1024;
inline constexpr std::string_view kBuildLogCutNote = "\n[clprof: log cut at 64 KiB]";
// Range ids are below 2^kRangeIdBits (readers put the process above them).
inline constexpr unsigned kRangeIdBits = 40;
// Work sizes (gwo, gws, lws) have 1 to kMaxWorkDim elements.
inline constexpr unsigned kMaxWorkDim = 3;

// ---- value types ------------------------------------------------------------------------
// What a field's JSON value must be; readers check it and range-check numbers.
#define CLPROF_TRACE_TYPES(X)                                                                   \
  X(Uint, "uint", "an integer in [0, 2^64)")                                                    \
  X(Int, "int", "an integer in [-2^63, 2^63)")                                                  \
  X(Uint32, "uint32", "an integer in [0, 2^32)")                                                \
  X(Int32, "int32", "an integer in [-2^31, 2^31)")                                              \
  X(Id, "id", "an integer in [1, 2^64): a clprof object id, never reused in a trace")           \
  X(Seq, "seq",                                                                                 \
    "an integer in [1, 2^64): unique among a trace's launch, transfer and "                     \
    "sync records")                                                                             \
  X(RangeId, "range id", "an integer in [0, 2^40): 0 = none")                                   \
  X(Bool, "bool", "true or false")                                                              \
  X(Real, "number", "a finite JSON number")                                                     \
  X(String, "string", "a string")                                                               \
  X(Status, "status", "one of the Status names")                                                \
  X(TransferOp, "op", "one of the TransferOp names")                                            \
  X(Uints, "[uint]", "an array of uint")                                                        \
  X(Int32s, "[int32]", "an array of int32")                                                     \
  X(Strings, "[string]", "an array of strings")                                                 \
  X(RangeIds, "[range id]", "an array of range ids (1 to 2^40 - 1)")                            \
  X(WorkSizes, "[uint] (1-3)", "an array of 1 to 3 uint")                                       \
  X(UintOrNull, "uint or null", "null or an integer in [0, 2^64)")                              \
  X(WorkSizesOrNull, "[uint] (1-3) or null", "null or an array of 1 to 3 uint")                 \
  X(Args, "[arg]", "an array of kernel arguments, each an array (ArgKind)")                     \
  X(HostSpan, "[begin, end]", "two int: the begin and end of a call")                           \
  X(HostInstant, "int", "an int: one instant")                                                  \
  X(DeviceTimes, "[queued, submit, start, end] or null", "null, or four integers in [0, 2^63)") \
  X(StringMap, "{string: string}", "an object of strings")                                      \
  X(CountMap, "{string: uint}", "an object of uint")                                            \
  X(Object, "object", "an object")                                                              \
  X(Records, "[record]", "an array of record objects")

#define CLPROF_TRACE_ENUMERATOR(name, ...) name,
enum class Type : std::uint8_t { CLPROF_TRACE_TYPES(CLPROF_TRACE_ENUMERATOR) };

// ---- units, clocks, presence ---------------------------------------------------------------
enum class Unit : std::uint8_t { None, Ns, Bytes, Mhz };
enum class Clock : std::uint8_t { None, Host, HostAbs, Device, Unix };
// Required: always written; a record without it is skipped by readers.
// Always:   always written; readers default it when absent (0, "", [], null, false).
// Optional: written only in the cases its doc names.
enum class Presence : std::uint8_t { Required, Always, Optional };

// ---- enums of values ----------------------------------------------------------------------
// X(Enumerator, name, "doc"); the JSON text is the name.
#define CLPROF_TRACE_STATUSES(X)                                                           \
  X(Complete, complete, "the command ran (device_ns null if its times could not be read)") \
  X(Incomplete, incomplete,                                                                \
    "still pending at exit after CLPROF_EXIT_WAIT_MS, or the driver returned no event")    \
  X(Error, error, "the command failed: exec_status is its negative execution status")      \
  X(NotEnqueued, not_enqueued, "the enqueue call failed (rc != 0)")

#define CLPROF_TRACE_TRANSFER_OPS(X)    \
  X(Read, read, "device -> host")       \
  X(Write, write, "host -> device")     \
  X(Copy, copy, "device -> device")     \
  X(Fill, fill, "a pattern -> device")  \
  X(Map, map, "a mapping for the host") \
  X(Unmap, unmap, "the end of a mapping")

// Kernel arguments: X(Enumerator, name, min elements, max elements, "layout", "doc").
// Each element of a launch's "args" is an array [name, ...] of that layout.
#define CLPROF_TRACE_ARG_KINDS(X)                                                          \
  X(Unset, unset, 1, 1, R"(["unset"])", "never set before the launch")                     \
  X(Scalar, scalar, 3, 4, R"(["scalar", size, "hex", value])",                             \
    "bytes in memory order (at most 64 kept in hex); value, their little-endian unsigned " \
    "integer, only for size 1, 2, 4 and 8")                                                \
  X(Buffer, buffer, 4, 4, R"(["buffer", size, mem_id, mem_bytes])",                        \
    "a cl_mem buffer (mem_id 0 = NULL) and its size in bytes")                             \
  X(Image, image, 4, 4, R"(["image", size, mem_id, mem_bytes])", "an image")               \
  X(Pipe, pipe, 4, 4, R"(["pipe", size, mem_id, mem_bytes])", "a pipe")                    \
  X(Local, local, 2, 2, R"(["local", size])", "__local memory of size bytes (value NULL)") \
  X(Svm, svm, 3, 3, R"(["svm", 0, "0x7f..."])", "clSetKernelArgSVMPointer")                \
  X(Sampler, sampler, 3, 3, R"(["sampler", size, sampler_id])", "a sampler")

enum class Status : std::uint8_t { CLPROF_TRACE_STATUSES(CLPROF_TRACE_ENUMERATOR) };
enum class TransferOp : std::uint8_t { CLPROF_TRACE_TRANSFER_OPS(CLPROF_TRACE_ENUMERATOR) };
enum class ArgKind : std::uint8_t { CLPROF_TRACE_ARG_KINDS(CLPROF_TRACE_ENUMERATOR) };

// ---- record types -------------------------------------------------------------------------
// X(Enumerator, name, "doc"); the value of "type" is the name.
#define CLPROF_TRACE_RECORD_TYPES(X)                                           \
  X(Device, device, "an OpenCL device, when first seen")                       \
  X(ClockSync, clock_sync, "how a device clock maps to the host clock")        \
  X(Queue, queue, "a command queue")                                           \
  X(Program, program, "a program object")                                      \
  X(Build, build, "a clBuildProgram, clCompileProgram or clLinkProgram call")  \
  X(Kernel, kernel, "a kernel object")                                         \
  X(KernelDevice, kernel_device, "a kernel's work-group facts on a device")    \
  X(Launch, launch, "a kernel launch (clEnqueueNDRangeKernel, clEnqueueTask)") \
  X(Transfer, transfer, "a read, write, copy, fill, map or unmap command")     \
  X(Sync, sync, "a host wait: clFinish, clWaitForEvents")                      \
  X(RangeBegin, range_begin, "the app opened a range (clprof_range_push)")     \
  X(RangeEnd, range_end, "a range closed (clprof_range_pop, or at exit)")      \
  X(Mark, mark, "an instant marker (clprof_mark)")                             \
  X(Warning, warning, "something the shim noticed while recording")            \
  X(Capture, capture, "a launch captured for clprof replay (CLPROF_CAPTURE)")  \
  X(End, end, "the last record of a complete trace")

enum class RecordType : std::uint8_t { CLPROF_TRACE_RECORD_TYPES(CLPROF_TRACE_ENUMERATOR) };
#undef CLPROF_TRACE_ENUMERATOR

// ---- the fields of each object ------------------------------------------------------------
// X(key, Type, Unit, Clock, Presence, "doc"), in the order the shim writes them.

// The top-level object.
#define CLPROF_TRACE_TOP_FIELDS(X)                                                \
  X(format, String, None, None, Required, "\"clprof-trace\"")                     \
  X(version, Int, None, None, Required, "the schema version the writer followed") \
  X(header, Object, None, None, Always, "the process's facts (below)")            \
  X(records, Records, None, None, Required, "the records, one per line")

#define CLPROF_TRACE_HEADER_FIELDS(X)                                                          \
  X(pid, Int, None, None, Required, "process id")                                              \
  X(ppid, Int, None, None, Always, "parent process id")                                        \
  X(command_line, Strings, None, None, Always, "argv of the process (/proc/self/cmdline)")     \
  X(start_unix_ns, Int, Ns, Unix, Always, "when tracing started")                              \
  X(host_start_ns, Int, Ns, HostAbs, Always, "the host clock at which relative host_ns is 0")  \
  X(host_clock, String, None, None, Always, "\"CLOCK_MONOTONIC\"")                             \
  X(host_name, String, None, None, Always, "gethostname()")                                    \
  X(rank, UintOrNull, None, None, Always,                                                      \
    "the process's rank in its parallel job (OMPI_COMM_WORLD_RANK, MV2_COMM_WORLD_RANK, "      \
    "PMIX_RANK, PMI_RANK or SLURM_PROCID, the first set), null outside one")                   \
  X(world_size, UintOrNull, None, None, Always,                                                \
    "the job's number of ranks (OMPI_COMM_WORLD_SIZE, MV2_COMM_WORLD_SIZE, PMI_SIZE or "       \
    "SLURM_NTASKS, the first set), null outside one")                                          \
  X(clprof_version, String, None, None, Always, "version of the shim that wrote the file")     \
  X(settings, StringMap, None, None, Always, "every CLPROF_* setting in force, name -> value") \
  X(session_id, String, None, None, Always,                                                    \
    "the recorded run (CLPROF_SESSION_ID), the same in all its processes; since version 2")

#define CLPROF_TRACE_DEVICE_FIELDS(X)                                                    \
  X(id, Id, None, None, Required, "clprof device id")                                    \
  X(name, String, None, None, Always, "CL_DEVICE_NAME")                                  \
  X(vendor, String, None, None, Always, "CL_DEVICE_VENDOR")                              \
  X(platform, String, None, None, Always, "CL_PLATFORM_NAME")                            \
  X(platform_version, String, None, None, Always, "CL_PLATFORM_VERSION")                 \
  X(version, String, None, None, Always, "CL_DEVICE_VERSION")                            \
  X(driver_version, String, None, None, Always, "CL_DRIVER_VERSION")                     \
  X(device_type, String, None, None, Always, "CPU, GPU, ACCELERATOR, CUSTOM or DEFAULT") \
  X(compute_units, Uint32, None, None, Always, "CL_DEVICE_MAX_COMPUTE_UNITS")            \
  X(max_clock_mhz, Uint32, Mhz, None, Always, "CL_DEVICE_MAX_CLOCK_FREQUENCY")           \
  X(global_mem_bytes, Uint, Bytes, None, Always, "CL_DEVICE_GLOBAL_MEM_SIZE")            \
  X(local_mem_bytes, Uint, Bytes, None, Always, "CL_DEVICE_LOCAL_MEM_SIZE")              \
  X(timer_resolution_ns, Uint, Ns, None, Always, "CL_DEVICE_PROFILING_TIMER_RESOLUTION")

#define CLPROF_TRACE_CLOCK_SYNC_FIELDS(X)                                             \
  X(device_id, Uint, None, None, Required, "the device")                              \
  X(method, String, None, None, Always, "clGetDeviceAndHostTimer or enqueue_bracket") \
  X(offset_ns, Int, Ns, None, Required, "host clock = device clock + offset_ns")      \
  X(uncertainty_ns, Uint, Ns, None, Always, "half-width of the interval the offset lies in")

#define CLPROF_TRACE_QUEUE_FIELDS(X)                                                        \
  X(id, Id, None, None, Required, "clprof queue id")                                        \
  X(context_id, Uint, None, None, Always, "its context")                                    \
  X(device_id, Uint, None, None, Always, "its device")                                      \
  X(properties, Uint, None, None, Always, "the CL_QUEUE_PROPERTIES bits the app asked for") \
  X(profiling_added, Bool, None, None, Always, "clprof added CL_QUEUE_PROFILING_ENABLE")

#define CLPROF_TRACE_PROGRAM_FIELDS(X)                                                       \
  X(id, Id, None, None, Required, "clprof program id")                                       \
  X(context_id, Uint, None, None, Always, "its context")                                     \
  X(origin, String, None, None, Always, "source, binary, il, builtin or link")               \
  X(source_hash, String, None, None, Optional,                                               \
    "\"fnv1a64:<16 hex>\" of the source strings (or IL); origin source and il only")         \
  X(source_bytes, Uint, Bytes, None, Optional, "total length of the source strings (or IL)") \
  X(source, String, None, None, Optional, "the full source, with CLPROF_CAPTURE_SOURCE=1")

#define CLPROF_TRACE_BUILD_FIELDS(X)                                                              \
  X(api, String, None, None, Always, "clBuildProgram, clCompileProgram or clLinkProgram")         \
  X(program_id, Uint, None, None, Required, "the program built (linked: the new one, 0 if none)") \
  X(options, String, None, None, Always, "build options (\"\" for NULL)")                         \
  X(device_ids, Uints, None, None, Always, "the devices passed, or all the program's")            \
  X(host_ns, HostSpan, Ns, Host, Always, "the call")                                              \
  X(rc, Int32, None, None, Always, "the call's return code")                                      \
  X(build_status, Int32s, None, None, Always, "CL_PROGRAM_BUILD_STATUS per device, after it")     \
  X(kernels, Strings, None, None, Always, "CL_PROGRAM_KERNEL_NAMES when rc is 0, else []")        \
  X(source_hash, String, None, None, Optional, "as in the program record, when it has one")       \
  X(logs, Strings, None, None, Optional,                                                          \
    "CL_PROGRAM_BUILD_LOG per device (as device_ids), only when rc is not 0 or a device's "       \
    "status is CL_BUILD_ERROR when the call returns; each at most 64 KiB, a longer one cut "      \
    "and ending \"[clprof: log cut at 64 KiB]\"; since version 3")

#define CLPROF_TRACE_KERNEL_FIELDS(X)                                                  \
  X(id, Id, None, None, Required, "clprof kernel id")                                  \
  X(program_id, Uint, None, None, Always, "its program")                               \
  X(context_id, Uint, None, None, Always, "its context")                               \
  X(name, String, None, None, Required, "the kernel function name")                    \
  X(num_args, Uint32, None, None, Always, "CL_KERNEL_NUM_ARGS")                        \
  X(arg_types, Strings, None, None, Optional,                                          \
    "CL_KERNEL_ARG_TYPE_NAME of each argument (\"float\", \"float*\", ...) where the " \
    "driver answers; only in the first kernel record of each name and program; since " \
    "version 3")

// At a kernel's first successful launch on a device: clGetKernelWorkGroupInfo, once per
// program, kernel name and device (libraries that make a kernel object per call get one).
#define CLPROF_TRACE_KERNEL_DEVICE_FIELDS(X)                                                \
  X(kernel_id, Uint, None, None, Always, "the kernel object first launched there")          \
  X(program_id, Uint, None, None, Always, "its program")                                    \
  X(kernel, String, None, None, Required, "the kernel function name")                       \
  X(device_id, Uint, None, None, Required, "the device")                                    \
  X(preferred_multiple, UintOrNull, None, None, Always,                                     \
    "CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, null where the driver did not answer")   \
  X(work_group_size, UintOrNull, None, None, Always,                                        \
    "CL_KERNEL_WORK_GROUP_SIZE (the largest work-group the kernel can run in), null where " \
    "the driver did not answer")

#define CLPROF_TRACE_LAUNCH_FIELDS(X)                                                             \
  X(seq, Seq, None, None, Required, "order of the call among the process's commands")             \
  X(tid, Uint, None, None, Always, "OS thread id of the caller")                                  \
  X(rc, Int32, None, None, Always, "the enqueue call's return code")                              \
  X(api, String, None, None, Optional, "clEnqueueTask; absent for clEnqueueNDRangeKernel")        \
  X(kernel, String, None, None, Required, "kernel function name (\"\" for a NULL kernel)")        \
  X(kernel_id, Uint, None, None, Always, "the kernel")                                            \
  X(program_id, Uint, None, None, Always, "its program")                                          \
  X(queue_id, Uint, None, None, Always, "the queue")                                              \
  X(context_id, Uint, None, None, Always, "the queue's context")                                  \
  X(device_id, Uint, None, None, Always, "the queue's device")                                    \
  X(gwo, WorkSizesOrNull, None, None, Always, "global work offset, null for NULL")                \
  X(gws, WorkSizes, None, None, Always, "global work size; its length is work_dim")               \
  X(lws, WorkSizesOrNull, None, None, Always, "local work size, null for NULL")                   \
  X(args, Args, None, None, Always, "every argument as set at the launch, element i = arg i")     \
  X(args_total, Uint32, None, None, Optional, "the kernel's argument count, when above 32")       \
  X(host_ns, HostSpan, Ns, Host, Always, "the enqueue call")                                      \
  X(device_ns, DeviceTimes, Ns, Device, Always, "the command's profiling times, null if unknown") \
  X(status, Status, None, None, Always, "complete, incomplete, error or not_enqueued")            \
  X(exec_status, Int32, None, None, Optional, "the negative execution status, with error")        \
  X(ranges, RangeIds, None, None, Always, "the caller's open ranges, outermost first (<= 16)")    \
  X(call, RangeId, None, None, Optional,                                                          \
    "the BLAS call (its range id) that made this command; absent outside one; since version 3")   \
  X(capture, Uint, None, None, Optional,                                                          \
    "the capture record's id when CLPROF_CAPTURE captured (or tried to capture) this launch")

#define CLPROF_TRACE_TRANSFER_FIELDS(X)                                                           \
  X(seq, Seq, None, None, Required, "order of the call among the process's commands")             \
  X(tid, Uint, None, None, Always, "OS thread id of the caller")                                  \
  X(rc, Int32, None, None, Always, "the enqueue call's return code (map calls: errcode_ret)")     \
  X(api, String, None, None, Always, "the entry point, e.g. clEnqueueReadBuffer")                 \
  X(op, TransferOp, None, None, Required, "read, write, copy, fill, map or unmap")                \
  X(queue_id, Uint, None, None, Always, "the queue")                                              \
  X(device_id, Uint, None, None, Always, "the queue's device")                                    \
  X(bytes, Uint, Bytes, None, Always, "bytes moved (see the table below)")                        \
  X(blocking, Bool, None, None, Always, "a blocking call")                                        \
  X(host_ns, HostSpan, Ns, Host, Always, "the call (for a blocking call, the time it waited)")    \
  X(device_ns, DeviceTimes, Ns, Device, Always, "the command's profiling times, null if unknown") \
  X(status, Status, None, None, Always, "as for launches")                                        \
  X(exec_status, Int32, None, None, Optional, "the negative execution status, with error")        \
  X(ranges, RangeIds, None, None, Always, "the caller's open ranges, outermost first (<= 16)")    \
  X(call, RangeId, None, None, Optional,                                                          \
    "the BLAS call (its range id) that made this command; absent outside one; since version 3")

#define CLPROF_TRACE_SYNC_FIELDS(X)                                                   \
  X(seq, Seq, None, None, Required, "order of the call among the process's commands") \
  X(tid, Uint, None, None, Always, "OS thread id of the caller")                      \
  X(rc, Int32, None, None, Always, "the call's return code")                          \
  X(api, String, None, None, Always, "clFinish, clWaitForEvents")                     \
  X(queue_id, Uint, None, None, Always, "the queue (0 for clWaitForEvents)")          \
  X(host_ns, HostSpan, Ns, Host, Always, "the call")                                  \
  X(call, RangeId, None, None, Optional, "as for launches")

#define CLPROF_TRACE_RANGE_BEGIN_FIELDS(X)                                              \
  X(id, RangeId, None, None, Required, "range id (from 1, over all threads)")           \
  X(parent, RangeId, None, None, Always, "the thread's innermost open range, 0 = none") \
  X(name, String, None, None, Always, "the name the app gave")                          \
  X(tid, Uint, None, None, Always, "OS thread id")                                      \
  X(host_ns, HostInstant, Ns, Host, Required, "when it opened")                         \
  X(blas, Object, None, None, Optional,                                                 \
    "a BLAS library call, not an app range (its fields: the blas table); since version 3")

// The "blas" object of a range_begin: one GEMM call into a BLAS library, as the app made it
// (CLPROF_HOOK_BLAS). Its commands carry "call": the range's id.
#define CLPROF_TRACE_BLAS_FIELDS(X)                                                           \
  X(library, String, None, None, Required, "clblast or clblas")                               \
  X(api, String, None, None, Required,                                                        \
    "the entry point: CLBlastSgemm, clblast::Gemm<float>, clblasSgemm, ...")                  \
  X(routine, String, None, None, Required, "gemm, gemm_batched or gemm_strided_batched")      \
  X(precision, String, None, None, Required, "s, d, c, z or h (half)")                        \
  X(layout, String, None, None, Always, "row or col (\"\" if the value was not a known one)") \
  X(trans_a, String, None, None, Always, "n, t or c (conjugate), as for layout")              \
  X(trans_b, String, None, None, Always, "n, t or c")                                         \
  X(m, Uint, None, None, Required, "rows of C, as passed")                                    \
  X(n, Uint, None, None, Required, "columns of C")                                            \
  X(k, Uint, None, None, Required, "the inner dimension")                                     \
  X(batch, Uint, None, None, Always, "GEMMs in the call (1 unless batched)")                  \
  X(alpha, Real, None, None, Optional, "alpha (its real part); not for gemm_batched")         \
  X(alpha_im, Real, None, None, Optional, "its imaginary part (c, z)")                        \
  X(beta, Real, None, None, Optional, "beta (its real part); not for gemm_batched")           \
  X(beta_im, Real, None, None, Optional, "its imaginary part (c, z)")                         \
  X(a_mem, Uint, None, None, Always, "clprof mem id of A (0: unknown)")                       \
  X(a_offset, Uint, None, None, Optional, "offset of A in elements; not for gemm_batched")    \
  X(a_ld, Uint, None, None, Always, "leading dimension of A")                                 \
  X(a_stride, Uint, None, None, Optional, "gemm_strided_batched: elements between two A")     \
  X(b_mem, Uint, None, None, Always, "as for A")                                              \
  X(b_offset, Uint, None, None, Optional, "as for A")                                         \
  X(b_ld, Uint, None, None, Always, "as for A")                                               \
  X(b_stride, Uint, None, None, Optional, "as for A")                                         \
  X(c_mem, Uint, None, None, Always, "as for A")                                              \
  X(c_offset, Uint, None, None, Optional, "as for A")                                         \
  X(c_ld, Uint, None, None, Always, "as for A")                                               \
  X(c_stride, Uint, None, None, Optional, "as for A")                                         \
  X(temp_mem, Uint, None, None, Optional, "the temporary buffer the app passed, if any")      \
  X(queue_ids, Uints, None, None, Always, "the queue(s) passed (clBLAS may pass several)")

#define CLPROF_TRACE_RANGE_END_FIELDS(X)                                                         \
  X(id, RangeId, None, None, Required, "the range")                                              \
  X(tid, Uint, None, None, Always, "OS thread id")                                               \
  X(host_ns, HostInstant, Ns, Host, Required, "when it closed")                                  \
  X(open, Bool, None, None, Optional, "true: never closed by the app, closed by clprof at exit") \
  X(status, Int32, None, None, Optional, "a BLAS call's return code (0: success); since version 3")

#define CLPROF_TRACE_MARK_FIELDS(X)                              \
  X(name, String, None, None, Required, "the name the app gave") \
  X(tid, Uint, None, None, Always, "OS thread id")               \
  X(host_ns, HostInstant, Ns, Host, Required, "when")

#define CLPROF_TRACE_WARNING_FIELDS(X)                      \
  X(message, String, None, None, Required, "what happened") \
  X(host_ns, HostInstant, Ns, Host, Always, "when")

// One launch captured for `clprof replay` (docs/replay.md); the launch names it (capture).
#define CLPROF_TRACE_CAPTURE_FIELDS(X)                                                       \
  X(id, Id, None, None, Required, "the capture's number in the process, from 1")             \
  X(kernel, String, None, None, Required, "the kernel function name")                        \
  X(status, String, None, None, Always,                                                      \
    "captured; refused (an argument or program clprof cannot capture: reason); failed (an "  \
    "OpenCL or file error: reason; capture is then off for the rest of the run)")            \
  X(reason, String, None, None, Optional, "why it is not captured, naming the argument")     \
  X(dir, String, None, None, Always,                                                         \
    "the capture's folder, relative to the trace's folder (TRACE.capture/ID); \"\" if none") \
  X(files, Strings, None, None, Always, "the files in dir: capture.json first")

#define CLPROF_TRACE_END_FIELDS(X)                                                          \
  X(host_ns, HostInstant, Ns, Host, Always, "when the trace was finished")                  \
  X(counts, CountMap, None, None, Always, "records written, per record type (all but end)") \
  X(incomplete, Uint, None, None, Always, "launches and transfers written with incomplete") \
  X(dropped, Uint, None, None, Always, "records lost (0: clprof never drops one)")          \
  X(live, CountMap, None, None, Optional,                                                   \
    "the app's OpenCL objects still alive when the trace ended, by kind (see \"Live "       \
    "objects\"); a kind the shim could not count is absent; since version 4")

// ---- generated tables -----------------------------------------------------------------------

// One field of a record (or of the header or top-level object).
struct Field {
  std::string_view key;
  Type type;
  Unit unit;
  Clock clock;
  Presence presence;
  std::string_view doc;
};

// A text known at compile time in an array of known size (N includes the final NUL), so
// that a writer copies it with one fixed-size move.
template <std::size_t N>
struct Text {
  char c[N];
  static constexpr std::size_t size() { return N - 1; }
  constexpr std::string_view view() const { return {c, N - 1}; }
};

// A key: its name, and the text ,"key": a writer copies after a previous field.
template <std::size_t N>  // N = sizeof the name literal
struct Key {
  Text<N> name;
  Text<N + 4> member;  // ,"name":
  constexpr explicit Key(const char (&s)[N]) : name{}, member{} {
    for (std::size_t i = 0; i < N; ++i) name.c[i] = s[i];
    member.c[0] = ',';
    member.c[1] = '"';
    for (std::size_t i = 0; i + 1 < N; ++i) member.c[2 + i] = s[i];
    member.c[N + 1] = '"';
    member.c[N + 2] = ':';
    member.c[N + 3] = '\0';
  }
  constexpr operator std::string_view() const { return name.view(); }
  // "name": (without the leading comma), for the first field of an object.
  constexpr std::string_view first_member() const { return {member.c + 1, N + 2}; }
};

// Texts a..b concatenated (each without its NUL), as one Text.
template <std::size_t A, std::size_t B>
constexpr Text<A + B - 1> concat(const Text<A>& a, const Text<B>& b) {
  Text<A + B - 1> out{};
  for (std::size_t i = 0; i + 1 < A; ++i) out.c[i] = a.c[i];
  for (std::size_t i = 0; i < B; ++i) out.c[A - 1 + i] = b.c[i];
  return out;
}
template <std::size_t N>
constexpr Text<N> text(const char (&s)[N]) {
  Text<N> out{};
  for (std::size_t i = 0; i < N; ++i) out.c[i] = s[i];
  return out;
}
// {"type":"NAME" : how every record starts.
template <std::size_t N>
constexpr Text<N + 10> record_open(const char (&name)[N]) {
  return concat(concat(text("{\"type\":\""), text(name)), text("\""));
}

// The value names of an enum, by enumerator (enums are dense from 0).
#define CLPROF_TRACE_NAME_OF(E, name, ...) std::string_view(#name),
inline constexpr std::string_view kStatusNames[] = {CLPROF_TRACE_STATUSES(CLPROF_TRACE_NAME_OF)};
inline constexpr std::string_view kTransferOpNames[] = {
    CLPROF_TRACE_TRANSFER_OPS(CLPROF_TRACE_NAME_OF)};
inline constexpr std::string_view kArgKindNames[] = {CLPROF_TRACE_ARG_KINDS(CLPROF_TRACE_NAME_OF)};
inline constexpr std::string_view kRecordTypeNames[] = {
    CLPROF_TRACE_RECORD_TYPES(CLPROF_TRACE_NAME_OF)};
#undef CLPROF_TRACE_NAME_OF

#define CLPROF_TRACE_COUNT(...) +1
inline constexpr std::size_t kStatusCount = 0 CLPROF_TRACE_STATUSES(CLPROF_TRACE_COUNT);
inline constexpr std::size_t kTransferOpCount = 0 CLPROF_TRACE_TRANSFER_OPS(CLPROF_TRACE_COUNT);
inline constexpr std::size_t kArgKindCount = 0 CLPROF_TRACE_ARG_KINDS(CLPROF_TRACE_COUNT);
inline constexpr std::size_t kRecordTypeCount = 0 CLPROF_TRACE_RECORD_TYPES(CLPROF_TRACE_COUNT);
#undef CLPROF_TRACE_COUNT

constexpr std::string_view name(Status s) {
  return kStatusNames[static_cast<unsigned>(s)];
}
constexpr std::string_view name(TransferOp o) {
  return kTransferOpNames[static_cast<unsigned>(o)];
}
constexpr std::string_view name(ArgKind k) {
  return kArgKindNames[static_cast<unsigned>(k)];
}
constexpr std::string_view name(RecordType t) {
  return kRecordTypeNames[static_cast<unsigned>(t)];
}

// The enumerator named `s`; false if there is none.
template <class E, std::size_t N>
constexpr bool parse_name(const std::string_view (&names)[N], std::string_view s, E& out) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == s) {
      out = static_cast<E>(i);
      return true;
    }
  return false;
}
constexpr bool parse(std::string_view s, Status& out) {
  return parse_name(kStatusNames, s, out);
}
constexpr bool parse(std::string_view s, TransferOp& out) {
  return parse_name(kTransferOpNames, s, out);
}
constexpr bool parse(std::string_view s, ArgKind& out) {
  return parse_name(kArgKindNames, s, out);
}
constexpr bool parse(std::string_view s, RecordType& out) {
  return parse_name(kRecordTypeNames, s, out);
}

// Per argument kind: how many elements its array has, and its layout (for docs).
struct ArgLayout {
  unsigned min_elements, max_elements;
  std::string_view layout, doc;
};
#define CLPROF_TRACE_ARG_LAYOUT(E, name, lo, hi, layout, doc) ArgLayout{lo, hi, layout, doc},
inline constexpr ArgLayout kArgLayouts[] = {CLPROF_TRACE_ARG_KINDS(CLPROF_TRACE_ARG_LAYOUT)};
#undef CLPROF_TRACE_ARG_LAYOUT

// Docs of the enum values and value types, by enumerator.
#define CLPROF_TRACE_DOC_OF(E, name, ...) std::string_view(CLPROF_TRACE_LAST(__VA_ARGS__)),
#define CLPROF_TRACE_LAST(doc) doc
inline constexpr std::string_view kStatusDocs[] = {CLPROF_TRACE_STATUSES(CLPROF_TRACE_DOC_OF)};
inline constexpr std::string_view kTransferOpDocs[] = {
    CLPROF_TRACE_TRANSFER_OPS(CLPROF_TRACE_DOC_OF)};
inline constexpr std::string_view kRecordTypeDocs[] = {
    CLPROF_TRACE_RECORD_TYPES(CLPROF_TRACE_DOC_OF)};
#undef CLPROF_TRACE_LAST
#undef CLPROF_TRACE_DOC_OF
#define CLPROF_TRACE_TYPE_TEXT(E, name, doc) std::string_view(name),
inline constexpr std::string_view kTypeNames[] = {CLPROF_TRACE_TYPES(CLPROF_TRACE_TYPE_TEXT)};
#undef CLPROF_TRACE_TYPE_TEXT
#define CLPROF_TRACE_TYPE_DOC(E, name, doc) std::string_view(doc),
inline constexpr std::string_view kTypeDocs[] = {CLPROF_TRACE_TYPES(CLPROF_TRACE_TYPE_DOC)};
#undef CLPROF_TRACE_TYPE_DOC
constexpr std::string_view name(Type t) {
  return kTypeNames[static_cast<unsigned>(t)];
}

// Per object (records, header, top level), a namespace:
//   kFields           the Field rows, in writing order
//   F::key            the index of a field in kFields (F::kCount: how many)
//   key               the Key constant (name, ,"key": text)
//   kMembers          the ,"key": texts, by index
// and for records: kType (RecordType), kTypeName ("launch"), kOpen ({"type":"launch").
#define CLPROF_TRACE_FIELD_ENUMERATOR(key, ...) key,
#define CLPROF_TRACE_FIELD_ROW(key, type, unit, clock, presence, doc) \
  Field{#key, Type::type, Unit::unit, Clock::clock, Presence::presence, doc},
#define CLPROF_TRACE_FIELD_KEY(key, ...) inline constexpr Key<sizeof(#key)> key{#key};
#define CLPROF_TRACE_FIELD_MEMBER(key, ...) key.member.view(),
#define CLPROF_TRACE_OBJECT(FIELDS)                                                        \
  enum class F : std::uint8_t { FIELDS(CLPROF_TRACE_FIELD_ENUMERATOR) kCount };            \
  inline constexpr Field kFields[] = {FIELDS(CLPROF_TRACE_FIELD_ROW)};                     \
  FIELDS(CLPROF_TRACE_FIELD_KEY)                                                           \
  inline constexpr std::string_view kMembers[] = {FIELDS(CLPROF_TRACE_FIELD_MEMBER)};      \
  static_assert(sizeof kFields / sizeof kFields[0] == static_cast<std::size_t>(F::kCount), \
                "one row per field");
#define CLPROF_TRACE_RECORD(E, name, FIELDS)           \
  namespace name {                                     \
  inline constexpr RecordType kType = RecordType::E;   \
  inline constexpr std::string_view kTypeName = #name; \
  inline constexpr auto kOpen = record_open(#name);    \
  CLPROF_TRACE_OBJECT(FIELDS)                          \
  }

namespace top {
CLPROF_TRACE_OBJECT(CLPROF_TRACE_TOP_FIELDS)
}
namespace header {
CLPROF_TRACE_OBJECT(CLPROF_TRACE_HEADER_FIELDS)
}
namespace blas {
CLPROF_TRACE_OBJECT(CLPROF_TRACE_BLAS_FIELDS)
}
CLPROF_TRACE_RECORD(Device, device, CLPROF_TRACE_DEVICE_FIELDS)
CLPROF_TRACE_RECORD(ClockSync, clock_sync, CLPROF_TRACE_CLOCK_SYNC_FIELDS)
CLPROF_TRACE_RECORD(Queue, queue, CLPROF_TRACE_QUEUE_FIELDS)
CLPROF_TRACE_RECORD(Program, program, CLPROF_TRACE_PROGRAM_FIELDS)
CLPROF_TRACE_RECORD(Build, build, CLPROF_TRACE_BUILD_FIELDS)
CLPROF_TRACE_RECORD(Kernel, kernel, CLPROF_TRACE_KERNEL_FIELDS)
CLPROF_TRACE_RECORD(KernelDevice, kernel_device, CLPROF_TRACE_KERNEL_DEVICE_FIELDS)
CLPROF_TRACE_RECORD(Launch, launch, CLPROF_TRACE_LAUNCH_FIELDS)
CLPROF_TRACE_RECORD(Transfer, transfer, CLPROF_TRACE_TRANSFER_FIELDS)
CLPROF_TRACE_RECORD(Sync, sync, CLPROF_TRACE_SYNC_FIELDS)
CLPROF_TRACE_RECORD(RangeBegin, range_begin, CLPROF_TRACE_RANGE_BEGIN_FIELDS)
CLPROF_TRACE_RECORD(RangeEnd, range_end, CLPROF_TRACE_RANGE_END_FIELDS)
CLPROF_TRACE_RECORD(Mark, mark, CLPROF_TRACE_MARK_FIELDS)
CLPROF_TRACE_RECORD(Warning, warning, CLPROF_TRACE_WARNING_FIELDS)
CLPROF_TRACE_RECORD(Capture, capture, CLPROF_TRACE_CAPTURE_FIELDS)
CLPROF_TRACE_RECORD(End, end, CLPROF_TRACE_END_FIELDS)
#undef CLPROF_TRACE_RECORD
#undef CLPROF_TRACE_OBJECT
#undef CLPROF_TRACE_FIELD_KEY
#undef CLPROF_TRACE_FIELD_MEMBER
#undef CLPROF_TRACE_FIELD_ROW
#undef CLPROF_TRACE_FIELD_ENUMERATOR

// The key every record starts with.
inline constexpr Key<sizeof("type")> type_key{"type"};

// Every record type's fields, by RecordType.
struct RecordFields {
  const Field* fields;
  std::size_t count;
};
#define CLPROF_TRACE_RECORD_FIELDS(E, name, doc) \
  RecordFields{name::kFields, sizeof name::kFields / sizeof name::kFields[0]},
inline constexpr RecordFields kRecordFields[] = {
    CLPROF_TRACE_RECORD_TYPES(CLPROF_TRACE_RECORD_FIELDS)};
#undef CLPROF_TRACE_RECORD_FIELDS
#define CLPROF_TRACE_CHECK_ORDER(E, name, doc)                            \
  static_assert(name::kType == RecordType::E && name::kTypeName == #name, \
                "record namespaces follow CLPROF_TRACE_RECORD_TYPES");
CLPROF_TRACE_RECORD_TYPES(CLPROF_TRACE_CHECK_ORDER)
#undef CLPROF_TRACE_CHECK_ORDER

// The index of `key` among `fields`, or `count` when the object has no such field.
constexpr std::size_t find_field(const Field* fields, std::size_t count, std::string_view key) {
  for (std::size_t i = 0; i < count; ++i)
    if (fields[i].key == key) return i;
  return count;
}
template <std::size_t N>
constexpr std::size_t find_field(const Field (&fields)[N], std::string_view key) {
  return find_field(fields, N, key);
}

}  // namespace clprof::trace
