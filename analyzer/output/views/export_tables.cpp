#include "output/views/export_tables.hpp"

#include "format.hpp"
#include "output/command_fields.hpp"

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace clprof::output::views {

namespace {

// A column of an export table: the header is the key (no table shows them).
Column col(const char* key, Type type, const char* unit, const char* meaning) {
  return column(key, key, type, unit, meaning);
}
Column opt(const char* key, Type type, const char* unit, const char* meaning) {
  return col(key, type, unit, meaning).allow_null();
}

// A table of a process's records: `process` and `pid`, then `columns`.
std::vector<Column> per_process(const std::vector<Column>& columns) {
  std::vector<Column> out = {
      col("process", Type::Int, "", "index of the process in the run (joins every table)"),
      opt("pid", Type::Int, "", "process id")};
  out.insert(out.end(), columns.begin(), columns.end());
  return out;
}
Column seq_col(const char* what) {
  return col("seq", Type::Int, "", what);
}
Column tid_col(const char* what) {
  return opt("tid", Type::Int, "", what);
}
Column context_col() {
  return opt("context_id", Type::Int, "", "context id");
}

// A host call's begin, end and duration (builds, api_calls).
std::vector<Column> host_call_times() {
  return {opt("host_begin_ns", Type::Int, "ns", "host clock: the call began"),
          opt("host_end_ns", Type::Int, "ns", "host clock: the call returned"),
          opt("duration_ns", Type::Duration, "ns", "host time in the call")};
}
// The three dimensions of a work size: `prefix`_x, _y, _z, each with its meaning.
std::vector<Column> dims_cols(const std::string& prefix, const char* x, const char* y,
                              const char* z) {
  return {column(prefix + "_x", prefix + "_x", Type::Int, "", x).allow_null(),
          column(prefix + "_y", prefix + "_y", Type::Int, "", y).allow_null(),
          column(prefix + "_z", prefix + "_z", Type::Int, "", z).allow_null()};
}

// The clocks, said once per kind of column.
constexpr const char* kEnqueueBegin = "host clock: the enqueue call began";
constexpr const char* kEnqueueEnd = "host clock: the enqueue call returned";
// The columns of an enqueue's host times, then those of append_device_times
// (output/command_fields.hpp).
std::vector<Column> command_times() {
  std::vector<Column> out = {opt("enqueue_begin_ns", Type::Int, "ns", kEnqueueBegin),
                             opt("enqueue_end_ns", Type::Int, "ns", kEnqueueEnd)};
  for (const auto& f : kDeviceClockFields) out.push_back(opt(f.key, Type::Int, "ns", f.meaning));
  out.push_back(opt("host_start_ns", Type::Int, "ns",
                    "host clock: start_ns + the device's clock_sync offset"));
  out.push_back(
      opt("host_end_ns", Type::Int, "ns", "host clock: end_ns + the device's clock_sync offset"));
  return out;
}

// How an enqueued command ended (launches, transfers).
std::vector<Column> command_outcome() {
  return {col("status", Type::Text, "", "complete, error, incomplete or not_enqueued"),
          col("rc", Type::Int, "", "the enqueue's return code"),
          opt("exec_status", Type::Int, "",
              "status error: the negative CL_EVENT_COMMAND_EXECUTION_STATUS")};
}

// The columns of `parts`, in order.
std::vector<Column> concat(std::initializer_list<std::vector<Column>> parts) {
  std::vector<Column> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

const Schema& processes() {
  static const Schema s = schema(
      "processes", "one row per traced process (input file)",
      per_process(
          {opt("ppid", Type::Int, "", "parent process id"),
           col("host_name", Type::Text, "", "host name"),
           col("command_line", Type::Text, "", "argv as a JSON array of strings"),
           col("session_id", Type::Text, "",
               "the recorded run it belongs to (\"\" before trace version 2)"),
           col("clprof_version", Type::Text, "", "version of the shim that wrote the trace"),
           col("host_clock", Type::Text, "", "the host clock of its host times (CLOCK_MONOTONIC)"),
           opt("start_unix_ns", Type::Int, "ns", "unix clock (ns since 1970) when tracing started"),
           opt("host_start_ns", Type::Int, "ns",
               "absolute host clock (CLOCK_MONOTONIC for clprof traces) at which the process's "
               "host "
               "times are 0"),
           col("source", Type::Text, "", "the input file"),
           col("source_format", Type::Text, "", "clprof-trace, armnn, dvdt-prof, chrome, caffe"),
           col("trace_version", Type::Int, "", "trace format version (0: not a clprof trace)"),
           col("truncated", Type::Bool, "", "the trace has no end record"),
           col("incomplete_events", Type::Int, "", "commands still pending at exit (end record)"),
           col("dropped_records", Type::Int, "", "records the shim could not write (end record)"),
           opt("end_host_ns", Type::Int, "ns", "host clock: the end record (null: no end record)"),
           col("record_counts", Type::Text, "",
               "the end record's count per record type, as a JSON object")}));
  return s;
}

const Schema& settings() {
  static const Schema s =
      schema("settings", "one row per CLPROF_* setting in force in each process (the trace header)",
             per_process({col("name", Type::Text, "", "the setting"),
                          col("value", Type::Text, "", "its value")}));
  return s;
}

const Schema& devices() {
  static const Schema s = schema(
      "devices", "one row per OpenCL device of each process",
      {col("device", Type::Int, "", "device id, unique within the run"),
       opt("process", Type::Int, "", "the process it belongs to (processes.process)"),
       col("name", Type::Text, "", "CL_DEVICE_NAME"),
       col("vendor", Type::Text, "", "CL_DEVICE_VENDOR"),
       col("platform", Type::Text, "", "CL_PLATFORM_NAME"),
       col("platform_version", Type::Text, "", "CL_PLATFORM_VERSION"),
       col("version", Type::Text, "", "CL_DEVICE_VERSION"),
       col("driver_version", Type::Text, "", "CL_DRIVER_VERSION"),
       col("type", Type::Text, "", "CPU, GPU, ACCELERATOR, ..."),
       col("compute_units", Type::Int, "", "CL_DEVICE_MAX_COMPUTE_UNITS"),
       col("max_clock_mhz", Type::Int, "MHz", "CL_DEVICE_MAX_CLOCK_FREQUENCY"),
       col("global_mem_bytes", Type::Bytes, "bytes", "CL_DEVICE_GLOBAL_MEM_SIZE"),
       col("local_mem_bytes", Type::Bytes, "bytes", "CL_DEVICE_LOCAL_MEM_SIZE"),
       col("timer_resolution_ns", Type::Int, "ns", "CL_DEVICE_PROFILING_TIMER_RESOLUTION"),
       opt("clock_method", Type::Text, "",
           "how the clock sync was measured (clGetDeviceAndHostTimer, enqueue_bracket)"),
       opt("clock_offset_ns", Type::Int, "ns", "host = device + offset; null: no clock sync"),
       opt("clock_uncertainty_ns", Type::Int, "ns", "the offset is known to +/- this")});
  return s;
}

const Schema& queues() {
  static const Schema s = schema(
      "queues", "one row per command queue",
      per_process(
          {col("queue_id", Type::Int, "", "queue id in its process"), context_col(),
           opt("device", Type::Int, "", "device id (devices.device)"),
           col("properties", Type::Int, "",
               "CL_QUEUE_PROPERTIES the app asked for (bit 0: out of order)"),
           col("profiling_added", Type::Bool, "", "clprof added CL_QUEUE_PROFILING_ENABLE")}));
  return s;
}

const Schema& kernels() {
  static const Schema s =
      schema("kernels", "one row per kernel object",
             per_process({col("kernel_id", Type::Int, "", "kernel id in its process"),
                          opt("program_id", Type::Int, "", "its program"), context_col(),
                          col("name", Type::Text, "", "kernel function name"),
                          col("num_args", Type::Int, "", "CL_KERNEL_NUM_ARGS")}));
  return s;
}

const Schema& programs() {
  static const Schema s = schema(
      "programs", "one row per program object",
      per_process({col("program_id", Type::Int, "", "program id in its process"), context_col(),
                   col("origin", Type::Text, "", "source, binary, il, builtin or link"),
                   col("source_hash", Type::Text, "", "fnv1a64 of the source (\"\" when none)"),
                   col("source_bytes", Type::Bytes, "bytes", "length of the source"),
                   col("options", Type::Text, "", "options of its latest successful build")}));
  return s;
}

const Schema& builds() {
  static const Schema s = schema(
      "builds", "one row per clBuildProgram, clCompileProgram or clLinkProgram call",
      per_process(concat(
          {{col("program_id", Type::Int, "", "the program built (linked: the new one)"),
            col("api", Type::Text, "", "clBuildProgram, clCompileProgram or clLinkProgram"),
            col("options", Type::Text, "", "build options as given"),
            col("devices", Type::Text, "", "device ids, comma-separated")},
           host_call_times(),
           {col("rc", Type::Int, "", "the call's return code"),
            col("build_status", Type::Text, "",
                "CL_PROGRAM_BUILD_STATUS per device after the call, comma-separated"),
            col("kernels", Type::Text, "", "kernel names the program defines, comma-separated"),
            col("source_hash", Type::Text, "", "the program's source hash (\"\" when none)")}})));
  return s;
}

const Schema& ranges() {
  static const Schema s = schema(
      "ranges", "one row per range marker (clprof_range_push/pop) or imported range",
      per_process({col("range_id", Type::Int, "", "range id, unique within the run"),
                   opt("parent_id", Type::Int, "", "the enclosing range; null at top level"),
                   col("name", Type::Text, "", "range name"),
                   col("path", Type::Text, "", "names from the outermost range, '/'-joined"),
                   col("depth", Type::Int, "", "0 at top level"), tid_col("thread that opened it"),
                   opt("host_begin_ns", Type::Int, "ns", "host clock: pushed"),
                   opt("host_end_ns", Type::Int, "ns", "host clock: popped (null: never)"),
                   opt("duration_ns", Type::Duration, "ns", "host_end_ns - host_begin_ns"),
                   col("left_open", Type::Bool, "", "never popped by the app (closed at exit)")}));
  return s;
}

const Schema& api_calls() {
  static const Schema s = schema(
      "api_calls",
      "one row per host API call the trace holds apart from enqueues and builds: waits today",
      per_process(
          concat({{seq_col("sequence number in the process"), tid_col("calling thread"),
                   col("api", Type::Text, "", "clFinish, clWaitForEvents, ..."),
                   opt("queue_id", Type::Int, "", "the queue (null: none, e.g. clWaitForEvents)")},
                  host_call_times(),
                  {col("rc", Type::Int, "", "return code")}})));
  return s;
}

const Schema& marks() {
  static const Schema s =
      schema("marks", "one row per instant marker (clprof_mark)",
             per_process({tid_col("thread"), col("name", Type::Text, "", "mark name"),
                          opt("host_ns", Type::Int, "ns", "host clock: when")}));
  return s;
}

const Schema& warnings() {
  static const Schema s = schema("warnings", "one row per warning record the shim wrote",
                                 per_process({col("message", Type::Text, "", "the warning")}));
  return s;
}

const Schema& layer_timings() {
  static const Schema s = schema(
      "layer_timings",
      "one row per layer time an importer gives without kernels (Caffe per_layer_info)",
      {col("iteration", Type::Int, "", "iteration"), col("layer", Type::Text, "", "layer name"),
       col("direction", Type::Text, "", "forward, backward or \"\""),
       col("time_ns", Type::Duration, "ns", "the layer's time")});
  return s;
}

const Schema& launches() {
  static const Schema s = schema(
      "launches",
      "one row per kernel launch (clEnqueueNDRangeKernel, clEnqueueTask; importers' kernels)",
      per_process(concat(
          {{seq_col("sequence number in the process (shared with transfers and waits)"),
            tid_col("enqueuing thread"), col("kernel", Type::Text, "", "kernel function name"),
            col("api", Type::Text, "",
                "clEnqueueNDRangeKernel, clEnqueueTask (importers: their own)"),
            opt("kernel_id", Type::Int, "", "kernel object id"),
            opt("program_id", Type::Int, "", "program id"),
            opt("queue_id", Type::Int, "", "queue id"), context_col(),
            opt("device", Type::Int, "", "device id (devices.device)"),
            col("work_dim", Type::Int, "", "number of work dimensions")},
           dims_cols("gws", "global work size, dimension 0",
                     "global work size, dimension 1 (null: fewer dimensions)",
                     "global work size, dimension 2"),
           dims_cols("lws", "local work size (null: left to the driver)",
                     "local work size, dimension 1", "local work size, dimension 2"),
           dims_cols("gwo", "global work offset (null: none)", "global work offset, dimension 1",
                     "global work offset, dimension 2"),
           {col("args_count", Type::Int, "", "arguments recorded (rows in args)")},
           command_times(),
           {opt("duration_ns", Type::Duration, "ns",
                "kernel time: end_ns - start_ns, or the importer's duration")},
           command_outcome(),
           {col("args_total", Type::Int, "",
                "the kernel's argument count when more than the recorded args, else 0"),
            opt("range_id", Type::Int, "",
                "innermost open range of the enqueuing thread (ranges.range_id)"),
            col("layer", Type::Text, "", "path of that range, or (no layer)"),
            opt("gemm_rule", Type::Text, "",
                "the GEMM rule matching the kernel (docs/gemm-rules.md)"),
            opt("gemm_m", Type::Int, "", "GEMM M"), opt("gemm_n", Type::Int, "", "GEMM N"),
            opt("gemm_k", Type::Int, "", "GEMM K"),
            opt("gemm_batch", Type::Int, "", "GEMM batch count"),
            opt("gemm_flops", Type::Real, "FLOP", "2*M*N*K*batch"),
            opt("extra", Type::Text, "", "facts an importer keeps, as a JSON object")}})));
  return s;
}

const Schema& args() {
  static const Schema s = schema(
      "args", "one row per kernel argument of each launch, as set at launch time",
      per_process(
          {seq_col("the launch (launches.seq)"), col("arg_index", Type::Int, "", "argument index"),
           col("kind", Type::Text, "", "scalar, buffer, image, pipe, local, svm, sampler or unset"),
           col("size", Type::Int, "bytes", "bytes passed to clSetKernelArg"),
           opt("value", Type::Int, "",
               "scalar of 1, 2, 4 or 8 bytes: little-endian unsigned value (SQLite: null above "
               "2^63-1)"),
           opt("hex", Type::Text, "", "scalar: its bytes in memory order"),
           opt("mem_id", Type::Int, "", "buffer, image, pipe: mem object id; sampler: sampler id"),
           opt("mem_bytes", Type::Bytes, "bytes", "buffer, image, pipe: its size"),
           opt("svm_pointer", Type::Text, "", "svm: the pointer")}));
  return s;
}

const Schema& transfers() {
  static const Schema s = schema(
      "transfers", "one row per transfer command (read, write, copy, fill, map, unmap)",
      per_process(concat(
          {{seq_col("sequence number in the process"), tid_col("enqueuing thread"),
            col("api", Type::Text, "", "the entry point"),
            col("op", Type::Text, "", "read, write, copy, fill, map or unmap"),
            opt("queue_id", Type::Int, "", "queue id"), opt("device", Type::Int, "", "device id"),
            col("bytes", Type::Bytes, "bytes", "bytes the command moves (docs/trace-format.md)"),
            col("blocking", Type::Bool, "", "the call waited for the command")},
           command_times(),
           {opt("duration_ns", Type::Duration, "ns", "end_ns - start_ns")},
           command_outcome(),
           {opt("range_id", Type::Int, "", "innermost open range of the enqueuing thread"),
            col("layer", Type::Text, "", "path of that range, or (no layer)")}})));
  return s;
}

}  // namespace

const std::vector<ExportTableInfo>& export_tables() {
  static const std::vector<ExportTableInfo> t = {
      {ExportTable::Processes, &processes(), {}, false},
      {ExportTable::Settings, &settings(), {}, false},
      {ExportTable::Devices, &devices(), {{"process"}}, false},
      {ExportTable::Queues, &queues(), {{"process", "queue_id"}}, false},
      {ExportTable::Programs, &programs(), {{"process", "program_id"}}, false},
      {ExportTable::Kernels, &kernels(), {{"process", "kernel_id"}}, false},
      {ExportTable::Builds, &builds(), {{"process", "program_id"}}, false},
      {ExportTable::Ranges, &ranges(), {{"range_id"}, {"process", "parent_id"}}, false},
      {ExportTable::ApiCalls, &api_calls(), {{"process", "seq"}}, false},
      {ExportTable::Marks, &marks(), {{"process"}}, false},
      {ExportTable::Warnings, &warnings(), {}, false},
      {ExportTable::LayerTimings, &layer_timings(), {{"layer"}}, false},
      {ExportTable::Launches,
       &launches(),
       {{"process", "seq"}, {"kernel"}, {"range_id"}, {"device"}},
       true},
      {ExportTable::Args, &args(), {{"process", "seq"}}, true},
      {ExportTable::Transfers, &transfers(), {{"process", "seq"}, {"range_id"}}, true},
  };
  return t;
}

const ExportTableInfo& export_table(ExportTable table) {
  return export_tables().at(static_cast<size_t>(table));
}

const char* sql_type(const Column& c) {
  switch (c.type) {
    case Type::Real:
      return "REAL";
    case Type::Text:
    case Type::Dims:
    case Type::Args:
    case Type::Rows:
      return "TEXT";
    default:
      return "INTEGER";
  }
}

std::string export_markdown() {
  std::string out;
  for (const auto& t : export_tables()) {
    out += "\n### `" + t.schema->name + "`\n\n" + t.schema->title + ".\n\n";
    out += "| column | type | unit | meaning |\n|---|---|---|---|\n";
    for (const auto& c : t.schema->columns)
      out += "| `" + c.key + "` | " +
             (c.type == Type::Bool ? std::string("INTEGER (0/1)") : sql_type(c)) + " | " + c.unit +
             " | " + c.meaning + (c.nullable ? "; null when unknown" : "") + " |\n";
    if (!t.indexes.empty()) {
      out += "\nSQLite indexes:";
      for (const auto& ix : t.indexes) out += " (" + joined(ix, ",") + ")";
      out += ".\n";
    }
  }
  return out;
}

}  // namespace clprof::output::views
