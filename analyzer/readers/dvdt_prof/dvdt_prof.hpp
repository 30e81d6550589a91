// dvdt-prof traces (the CK framework's LD_PRELOAD OpenCL profiler): the parsed JSON list of
// call records, or the profiled program's raw stdout in cJSON mode (the array between
// "[dv/dt] <<" and "[dv/dt] >>") or in the older line mode ("[dv/dt] <call> <field> <value>").
// See docs/importers.md for the mapping.
#pragma once

#include <string_view>

#include "readers/import_json.hpp"
#include "readers/reader.hpp"

namespace clprof::readers {

// The reader named "dvdt" (registry.cpp lists and defines it). Sniffs true for "[dv/dt]" stdout or
// a JSON array whose first record has "call": "cl...". Reading appends one Process (source_format
// "dvdt-prof") with its programs, builds, devices, launches (device times from "profiling") and
// transfers.
const Reader& dvdt_prof_reader();
// Its two halves, of which registry.cpp makes the reader: the sniffer, and the reading of
// one input (FormatReader has checked it is text first).
bool looks_like_dvdt_prof(std::string_view head);
void read_dvdt_prof(const import_json::Source& source, model::Run& run, Diagnostics& diagnostics);

// Imports `calls` (a JSON array of dvdt-prof call records, in call order) into `run` as
// process `process` (which must exist). Also used for the "dvdt_prof" member of CK run
// characteristics. Throws InputError at the first malformed record.
void import_dvdt_calls(const import_json::Source& source, const import_json::Value& calls,
                       model::Run& run, uint32_t process, Diagnostics& diagnostics);

// Converts line-mode stdout ("[dv/dt] <call> <field> <value>") to the JSON records the cJSON
// mode prints for the same calls (values as strings, gws/lws/gwo as numbers, "profiling"
// and "timestamp" as objects), so both go through import_dvdt_calls. Non-"[dv/dt]" lines
// are the program's own output and are skipped.
import_json::Value dvdt_lines_to_calls(const import_json::Source& source);

}  // namespace clprof::readers
