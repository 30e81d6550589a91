// The fields of a command (a kernel launch, a transfer) that more than one output shows:
// `launches` (tables/launches.cpp) and `export`'s launches, args and transfers tables
// (views/export_tables.cpp, views/export_rows.cpp) take from here the device timestamps'
// declarations and values and the argument kinds' names, so that they never disagree on
// what a device time means or how an unknown one prints.
//
// Units: ns. Threads: immutable tables and pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "clock_alignment.hpp"
#include "model.hpp"
#include "output/value.hpp"

namespace clprof::output {

// The four device timestamps, on the device's own clock as it reported them.
struct DeviceClockField {
  const char* key;      // "queued_ns", ...
  const char* header;   // the table header: "Queued", ...
  const char* meaning;  // "device clock: CL_PROFILING_COMMAND_QUEUED", ...
};
inline constexpr DeviceClockField kDeviceClockFields[] = {
    {"queued_ns", "Queued", "device clock: CL_PROFILING_COMMAND_QUEUED"},
    {"submit_ns", "Submit", "device clock: CL_PROFILING_COMMAND_SUBMIT"},
    {"start_ns", "Start", "device clock: CL_PROFILING_COMMAND_START"},
    {"end_ns", "End", "device clock: CL_PROFILING_COMMAND_END"},
};

// A host or device time, null when unknown (model::kNoTime).
inline Value time_or_null(int64_t ns) {
  return ns == model::kNoTime ? Value::null() : Value::integer(ns);
}

// Appends the values of kDeviceClockFields for `command` (a model::Launch or Transfer),
// then its start and end on the host clock (`host`: ClockAlignment::times(command); null
// without a clock sync): the columns host_start_ns and host_end_ns after them.
template <class Command>
void append_device_times(Row& row, const Command& command, const model::AlignedTimes& host) {
  row.push_back(time_or_null(command.queued_ns));
  row.push_back(time_or_null(command.submit_ns));
  row.push_back(time_or_null(command.start_ns));
  row.push_back(time_or_null(command.end_ns));
  row.push_back(Value::integer(host.start_ns));
  row.push_back(Value::integer(host.end_ns));
}

// The name of a kernel argument's kind: the trace format's ("scalar", "buffer", ...;
// clprof/trace_schema.hpp), also in `launches`' args and `export`'s args.kind.
std::string kernel_arg_kind(model::KernelArg::Kind kind);

}  // namespace clprof::output
