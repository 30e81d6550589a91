// The CLPROF_* environment controls, declared once. The shim parses and checks them
// (shim/base/settings.*); `clprof record --list-options` prints them, and its markdown
// form is docs/settings.md's table. Header-only, no dependencies.
//
// X(member, ENV_NAME, type, default, min, max, help)
//   type is one of
//     Bool      "0"/"1"/"true"/"false"/"yes"/"no"/"on"/"off" (any case)
//     Uint      a decimal whole number in [min, max]
//     Path      a file path of at most `max` bytes, no control characters, not ending in '/'
//     LogLevel  "trace","debug","info","warn","error","off"
//     Name      at most `max` letters, digits, '-', '_' or '.'
//     Regex     a regular expression (RE2 syntax) of at most `max` bytes, no control
//               characters; compiled where it is used (an invalid one: one warning)
//   min and max are used by Uint (the range), Path, Name and Regex (max: the length); 0
//   elsewhere.
// An empty value counts as unset. A value that does not pass turns the shim off for the
// process: one warning on stderr, and the program runs untouched on its usual OpenCL.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#define CLPROF_SETTINGS(X)                                                                \
  X(output, "CLPROF_OUTPUT", Path, "clprof-%p.json", 0, 4095,                             \
    "Trace file path. %p becomes the process id, %r the rank in a parallel job (0 "       \
    "outside one) and %h the host name. Without %p, the first process of the "            \
    "run to call OpenCL writes NAME.EXT and every later one NAME.<pid>.EXT, so children " \
    "never overwrite their parent's trace and a wrapper that makes no OpenCL call "       \
    "(timeout, sh -c) leaves the name to the program. A program started by exec in the "  \
    "same process, "                                                                      \
    "where that name already holds this process's trace, writes NAME.exec1.EXT (exec2, "  \
    "...). A device such as /dev/null keeps its name in every process. A name ending in " \
    "\".zst\" is written as zstd frames, one per write (plain JSON, after one warning, "  \
    "where libzstd.so.1 is missing).")                                                    \
  X(disable, "CLPROF_DISABLE", Bool, "0", 0, 0,                                           \
    "1 turns the shim off: every call goes straight to the real OpenCL, nothing is "      \
    "written.")                                                                           \
  X(log_level, "CLPROF_LOG_LEVEL", LogLevel, "warn", 0, 0,                                \
    "Verbosity of the shim's own messages on stderr: trace, debug, info, warn, error, "   \
    "off.")                                                                               \
  X(capture_source, "CLPROF_CAPTURE_SOURCE", Bool, "0", 0, 0,                             \
    "1 stores each program's full OpenCL C source in its program record (the hash is "    \
    "always stored).")                                                                    \
  X(capture, "CLPROF_CAPTURE", Regex, "", 0, 4096,                                        \
    "Kernel names to capture for `clprof replay` (an RE2 regular expression, searched "   \
    "anywhere in the name; empty: none). A captured launch waits for the work before it " \
    "and for itself, and its program, arguments and buffer contents before and after "    \
    "are written to TRACE.capture/ beside the trace (docs/replay.md).")                   \
  X(capture_limit, "CLPROF_CAPTURE_LIMIT", Uint, "1", 1, 1000000,                         \
    "With CLPROF_CAPTURE: launches captured per kernel name (later ones run as usual).")  \
  X(hook_blas, "CLPROF_HOOK_BLAS", Bool, "1", 0, 0,                                       \
    "1 records each GEMM call into CLBlast or clBLAS (its sizes, its kernels); 0 passes " \
    "them through unrecorded (clprof gemm then groups their kernels by rules).")          \
  X(flush_interval_ms, "CLPROF_FLUSH_INTERVAL_MS", Uint, "100", 1, 3600000,               \
    "Longest time a completed record waits in memory before it is written to the file.")  \
  X(poll_interval_us, "CLPROF_POLL_INTERVAL_US", Uint, "2000", 50, 1000000,               \
    "How often the background harvester polls pending events for completion.")            \
  X(harvester_batch, "CLPROF_HARVESTER_BATCH", Bool, "1", 0, 0,                           \
    "1 runs the background harvester thread under SCHED_BATCH when the thread that "      \
    "starts it runs under the default SCHED_OTHER: a wake-up of the harvester then "      \
    "waits for a free core or the scheduler's next tick instead of preempting a "         \
    "running thread of the app or the driver. 0 keeps the starting thread's "             \
    "scheduling.")                                                                        \
  X(exit_wait_ms, "CLPROF_EXIT_WAIT_MS", Uint, "2000", 0, 600000,                         \
    "At exit, how long to wait for still-pending events before recording them as "        \
    "incomplete.")                                                                        \
  X(opencl_library, "CLPROF_OPENCL_LIBRARY", Path, "", 0, 4095,                           \
    "The real OpenCL library to forward to. Empty: the next definition in the process "   \
    "(RTLD_NEXT), else libOpenCL.so.1. A library that is not OpenCL (it lacks "           \
    "clGetPlatformIDs or clEnqueueNDRangeKernel), or is clprof's own shim, is refused.")  \
  X(root_pid, "CLPROF_ROOT_PID", Uint, "0", 0, 4194304,                                   \
    "Set by the shim (or clprof record) for child processes: the run's first process, "   \
    "which writes CLPROF_OUTPUT unchanged where the name cannot be claimed (a symbolic "  \
    "link, an unwritable directory). Not normally set by hand.")                          \
  X(session_id, "CLPROF_SESSION_ID", Name, "", 0, 64,                                     \
    "The recorded run, written to every trace's header (session_id). Empty: the first "   \
    "process of a run makes one up (16 hex digits) and its children inherit it. Not "     \
    "normally set by hand.")

namespace clprof::settings {

enum class Type { Bool, Uint, Path, LogLevel, Name, Regex };

// One row of the table, for printing and documentation.
struct Description {
  std::string_view member;
  std::string_view env_name;
  Type type;
  std::string_view default_value;
  std::uint64_t min;
  std::uint64_t max;
  std::string_view help;
};

#define CLPROF_SETTING_DESCRIPTION(member, env, type, def, min, max, help) \
  Description{#member, env, Type::type, def, min, max, help},
inline constexpr Description kAll[] = {CLPROF_SETTINGS(CLPROF_SETTING_DESCRIPTION)};
#undef CLPROF_SETTING_DESCRIPTION

inline constexpr std::string_view type_name(Type t) {
  switch (t) {
    case Type::Bool:
      return "bool";
    case Type::Uint:
      return "uint";
    case Type::Path:
      return "path";
    case Type::LogLevel:
      return "level";
    case Type::Name:
      return "name";
    case Type::Regex:
      return "regex";
  }
  return "?";
}

// The values a row accepts, in words ("50 to 1000000", "0 or 1", ...): printed beside the
// default and quoted in the shim's warning about a bad value.
inline std::string allowed_values(const Description& d) {
  switch (d.type) {
    case Type::Bool:
      return "0 or 1 (also true/false, yes/no, on/off)";
    case Type::Uint:
      return std::to_string(d.min) + " to " + std::to_string(d.max);
    case Type::Path:
      return "a path of at most " + std::to_string(d.max) +
             " bytes, no control characters, not ending in /";
    case Type::LogLevel:
      return "trace, debug, info, warn, error or off";
    case Type::Name:
      return "at most " + std::to_string(d.max) + " letters, digits, -, _ or .";
    case Type::Regex:
      return "an RE2 regular expression of at most " + std::to_string(d.max) +
             " bytes, no control characters";
  }
  return "?";
}

}  // namespace clprof::settings
