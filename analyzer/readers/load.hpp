// Getting inputs into the model: the one place that opens files, picks a reader and
// decides between the streaming path (clprof traces) and the in-memory path (everything).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis.hpp"
#include "model.hpp"
#include "readers/reader.hpp"

namespace clprof::readers {

// True if `head` (first bytes of a file) is a clprof trace.
bool is_clprof_trace(std::string_view head);

// The reader for `path`: `forced_format` (a Reader::name(), "" = auto) or by sniffing its
// first bytes. Throws InputError (line 0) for a missing/unreadable file or unknown format.
const Reader& detect_reader(const std::string& path, std::string_view forced_format);

// How several inputs are read into one run.
struct LoadOptions {
  std::string forced_format;  // a Reader::name() for every input; "" = sniff each one
  unsigned threads = 0;       // streaming threads; 0 = std::thread::hardware_concurrency()
  // clprof traces given together must come from one recorded run: the same
  // header.session_id, or (traces without one, version 1) processes linked as parent and
  // child (ppid), by exec (the same pid) or by the run's CLPROF_ROOT_PID setting. true
  // reads unrelated runs into one as well (the CLI's --merge). The same file, or the
  // same process's trace (pid, host and start time), given twice is an error either way.
  bool allow_unrelated = false;
  // When set, the bytes read are added to it as they are read (the CLI's progress line).
  std::atomic<uint64_t>* bytes_read = nullptr;
  // Streaming only: ranges a reading thread sees begin and end are kept as their name and
  // parent (model::FoldedRanges, 8 bytes a range) instead of model::Range, so the metadata
  // stays bounded by the open ranges; for the commands that need no more of the ranges
  // than their names, parents and covered host span. `keep_top_level_ranges`: top-level
  // ranges stay in Run::ranges whole (the iterations of a selection).
  bool fold_ranges = false;
  bool keep_top_level_ranges = true;
};
using StreamOptions = LoadOptions;

// Reads every input completely into `run` (launches and transfers included). Several
// inputs become one run of several processes. Throws InputError on bad input, and on
// inputs that do not belong together (LoadOptions::allow_unrelated).
void load_run(const std::vector<std::string>& paths, const LoadOptions& options, model::Run& run,
              Diagnostics& diagnostics);
void load_run(const std::vector<std::string>& paths, std::string_view forced_format,
              model::Run& run, Diagnostics& diagnostics);

// Streams clprof traces: everything but launches and transfers goes into `run`; every
// launch and transfer is fed to an Analysis made by `factory` (one per reading thread),
// and the merged Analysis is returned. Memory stays bounded by the metadata, whatever the
// trace size. Throws InputError on malformed input and on inputs that do not belong
// together (as load_run); truncated traces are read up to the last complete record with
// one warning in `diagnostics`.
std::unique_ptr<Analysis> stream_clprof_traces(const std::vector<std::string>& paths,
                                               model::Run& run, const AnalysisFactory& factory,
                                               Diagnostics& diagnostics,
                                               const LoadOptions& options = {});

// Throws InputError unless the processes run.processes[first..] read from clprof traces
// belong together (see LoadOptions::allow_unrelated). Pure but for the throw.
void check_related(const model::Run& run, size_t first, const LoadOptions& options);

}  // namespace clprof::readers
