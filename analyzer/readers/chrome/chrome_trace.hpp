// Chrome Trace Event JSON (chrome://tracing, Perfetto, Intel Neural Engine ENGINE_PROFILING
// traces): object form {"traceEvents": [...]} or array form, including the unterminated
// array (trailing comma, no closing ']') that the viewers accept. Complete events (X, and
// matched B/E pairs) nest by time containment; leaf events become launches, the others
// ranges. See docs/importers.md.
#pragma once

#include <string_view>

#include "readers/import_json.hpp"
#include "readers/reader.hpp"

namespace clprof::readers {

// The reader named "chrome" (registry.cpp lists and defines it). Sniffs true for {"traceEvents":
// ...} or an array whose first event has a "ph" member. Reading appends one Process per pid
// (source_format "chrome"): ranges for events that contain others, launches (duration_override_ns,
// host times, args in Launch::extra) for the leaves, marks for instant events.
const Reader& chrome_trace_reader();
// Its two halves, of which registry.cpp makes the reader: the sniffer, and the reading of
// one input (FormatReader has checked it is text first).
bool looks_like_chrome_trace(std::string_view head);
void read_chrome_trace(const import_json::Source& source, model::Run& run,
                       Diagnostics& diagnostics);

}  // namespace clprof::readers
