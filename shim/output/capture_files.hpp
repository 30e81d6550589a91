// CLPROF_CAPTURE's files: a captured launch's facts (recording/capture.hpp) become the
// folder TRACE.capture/ID/ beside the trace (capture.json, the program, the buffers' and images'
// contents) and the trace's capture record. docs/replay.md describes the folder.
//
// Threads: set_capture_trace_path once, before recording starts (runtime/lifecycle.cpp);
// write_capture on the capturing thread, under capture_mutex (one at a time).
// Ownership: files are written and closed here; nothing is kept.
#pragma once

#include <string>

#include "recording/capture.hpp"

namespace clprof::shim {

// The trace file's path (its folder gets TRACE.capture/).
void set_capture_trace_path(const std::string& trace_path);

// Writes the capture's files when facts.captured(); a file that cannot be written makes
// it failed (and capture off: capture_disable). Returns the capture record's JSON text.
std::string write_capture(CaptureFacts& facts);

// The manifest's name in a capture's folder, and its format's name and version.
inline constexpr const char* kCaptureManifest = "capture.json";
inline constexpr const char* kCaptureFormat = "clprof-capture";
inline constexpr int kCaptureVersion = 1;

}  // namespace clprof::shim
