// Arm NN profiles: the JSON printed by ExecuteNetwork -e (armnn::Profiler::Print), alone or
// inside the whole captured stdout (log lines before and after it). Each value of a
// measurement's "raw" array is one inference; see docs/importers.md for the mapping.
#pragma once

#include <string_view>

#include "readers/import_json.hpp"
#include "readers/reader.hpp"

namespace clprof::readers {

// The reader named "armnn" (registry.cpp lists and defines it). Sniffs true if `head` holds an Arm
// NN profile object ("ArmNN": {...}). Reading appends one Process (source_format "armnn") with one
// "inference" range per inference, the workload ranges inside it, and one Launch per kernel timer
// value.
const Reader& armnn_reader();
// Its two halves, of which registry.cpp makes the reader: the sniffer, and the reading of
// one input (FormatReader has checked it is text first).
bool looks_like_armnn(std::string_view head);
void read_armnn(const import_json::Source& source, model::Run& run, Diagnostics& diagnostics);

}  // namespace clprof::readers
