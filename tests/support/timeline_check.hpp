// Checking a `clprof timeline` output against the rules of the viewers that open it (Chrome
// Trace Event Format, as chrome://tracing and Perfetto's JSON importer read it) and against
// what it claims (docs/cli.md "timeline"). Used by the CLI tests (golden inputs) and the
// e2e tests (PoCL traces). Pure: text in, findings out.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace clprof::test {

struct TimelineFindings {
  std::vector<std::string> errors;  // empty: the output follows every rule below
  size_t events = 0, slices = 0, instants = 0, flows = 0;
  // Commands by (pid, seq): host slices (cat "api"/"api,wait": the enqueue call) and device
  // slices (cat "kernel"/"transfer": the execution).
  std::map<std::pair<uint32_t, uint64_t>, int> host_commands, device_commands;
  // Slices per category and per track name.
  std::map<std::string, size_t> by_cat;
  std::map<std::string, size_t> by_track;
  std::set<std::string> track_names;
  std::map<uint32_t, std::string> process_names;
};

// Rules: a JSON object whose only keys are traceEvents, otherData (and the spec's
// displayTimeUnit, metadata); every event an object whose first keys are "ph" then "ts"
// (Perfetto's tokenizer reads keys in order); "ts"/"dur" decimal microseconds with exactly
// three decimals; pid and tid decimal integers below 2^32; "X" slices with dur >= 0 that nest
// per (pid, tid) — no partial overlap; every bind_id on exactly one flow_out and one flow_in
// slice; every (pid, tid) with events named by a thread_name metadata event and every pid by a
// process_name; metadata events of the four known kinds only.
TimelineFindings check_timeline(const std::string& json_text);

// The errors joined one per line ("" when none), for assertion messages.
std::string describe(const TimelineFindings& findings);

}  // namespace clprof::test
