// Program builds (clprof builds): each clBuildProgram, clCompileProgram and clLinkProgram
// call of the run with its program's source facts, options, devices, host time, outcome and
// kernels; and the recorded source of a program (--source).
//
// A pure function of the run's metadata (builds and programs are never streamed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"

namespace clprof::analyses {

struct BuildRow {
  uint32_t process = 0;
  int64_t pid = 0;
  uint64_t program_id = 0;
  std::string api;
  std::string origin;       // source | binary | il | builtin | link ("" unknown)
  std::string source_hash;  // "" when the program record has none
  std::optional<uint64_t> source_bytes;
  bool source_captured = false;  // the trace holds the source (CLPROF_CAPTURE_SOURCE=1)
  std::string options;
  std::vector<std::string> devices;  // device names ("device N" when unnamed)
  std::optional<int64_t> start_ns;   // host begin on the run's clock (time_window.hpp)
  std::optional<int64_t> time_ns;    // host time in the call
  int32_t rc = 0;
  std::string status;  // "ok" or the error's name (CL_BUILD_PROGRAM_FAILURE)
  std::vector<std::string> kernels;
  // The build log of a failed build (per device, "== DEVICE ==" lines between them when
  // there are several); nullopt when the trace holds none (a successful build, or a trace
  // recorded before build logs were).
  std::optional<std::string> log;
};

// Every build of `run`, by process, then host begin (the input's order for equal times).
std::vector<BuildRow> build_rows(const model::Run& run);

// The program `spec` names: "ID" (clprof's program id), or "PID:ID" when the run has
// several processes. Throws std::invalid_argument naming what is wrong (malformed, no such
// program, ambiguous).
const model::Program& find_program(const model::Run& run, std::string_view spec);

}  // namespace clprof::analyses
