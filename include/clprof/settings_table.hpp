// The CLPROF_* environment controls, declared once. The shim parses them (shim/settings.*);
// `clprof record --list-options` prints them; docs/settings.md is generated from the same
// text. Header-only, no dependencies.
//
// X(member, ENV_NAME, type, default, help)
//   type is one of Bool ("0"/"1"/"true"/"false"/"yes"/"no"/"on"/"off"), Uint, String,
//   LogLevel ("trace","debug","info","warn","error","off").
// A value that does not parse gets one warning on stderr and the default.
#pragma once

#include <string_view>

#define CLPROF_SETTINGS(X)                                                                  \
  X(output, "CLPROF_OUTPUT", String, "clprof-%p.json",                                      \
    "Trace file path. %p becomes the process id. Without %p, a process other than the "    \
    "first one profiled in the run writes NAME.<pid>.EXT instead, so children never "      \
    "overwrite their parent's trace. A program started by exec in the same process, "     \
    "where that name already holds this process's trace, writes NAME.exec1.EXT (exec2, "  \
    "...). A device such as /dev/null keeps its name in every process.")                  \
  X(disable, "CLPROF_DISABLE", Bool, "0",                                                   \
    "1 turns the shim off: every call goes straight to the real OpenCL, nothing is "       \
    "written.")                                                                             \
  X(log_level, "CLPROF_LOG_LEVEL", LogLevel, "warn",                                        \
    "Verbosity of the shim's own messages on stderr: trace, debug, info, warn, error, "    \
    "off.")                                                                                 \
  X(capture_source, "CLPROF_CAPTURE_SOURCE", Bool, "0",                                     \
    "1 stores each program's full OpenCL C source in its program record (the hash is "     \
    "always stored).")                                                                      \
  X(flush_interval_ms, "CLPROF_FLUSH_INTERVAL_MS", Uint, "100",                             \
    "Longest time a completed record waits in memory before it is written to the file.")   \
  X(poll_interval_us, "CLPROF_POLL_INTERVAL_US", Uint, "1000",                              \
    "How often the background harvester polls pending events for completion.")             \
  X(exit_wait_ms, "CLPROF_EXIT_WAIT_MS", Uint, "2000",                                      \
    "At exit, how long to wait for still-pending events before recording them as "        \
    "incomplete.")                                                                          \
  X(opencl_library, "CLPROF_OPENCL_LIBRARY", String, "",                                    \
    "The real OpenCL library to forward to. Empty: the next definition in the process "    \
    "(RTLD_NEXT), else libOpenCL.so.1.")                                                    \
  X(root_pid, "CLPROF_ROOT_PID", Uint, "0",                                                 \
    "Set by the shim (or clprof record) for child processes: the pid that writes "         \
    "CLPROF_OUTPUT unchanged. Not normally set by hand.")

namespace clprof::settings {

enum class Type { Bool, Uint, String, LogLevel };

// One row of the table, for printing and documentation.
struct Description {
  std::string_view member;
  std::string_view env_name;
  Type type;
  std::string_view default_value;
  std::string_view help;
};

#define CLPROF_SETTING_DESCRIPTION(member, env, type, def, help) \
  Description{#member, env, Type::type, def, help},
inline constexpr Description kAll[] = {CLPROF_SETTINGS(CLPROF_SETTING_DESCRIPTION)};
#undef CLPROF_SETTING_DESCRIPTION

inline constexpr std::string_view type_name(Type t) {
  switch (t) {
    case Type::Bool: return "bool";
    case Type::Uint: return "uint";
    case Type::String: return "string";
    case Type::LogLevel: return "level";
  }
  return "?";
}

}  // namespace clprof::settings
