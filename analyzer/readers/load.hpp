// Getting inputs into the model: the one place that opens files, picks a reader and
// decides between the streaming path (clprof traces) and the in-memory path (everything).
#pragma once

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

// Reads every input completely into `run` (launches and transfers included). Several
// inputs become one run of several processes. Throws InputError on bad input.
void load_run(const std::vector<std::string>& paths, std::string_view forced_format,
              model::Run& run, Diagnostics& diagnostics);

struct StreamOptions {
  unsigned threads = 0;  // 0 = std::thread::hardware_concurrency()
};

// Streams clprof traces: everything but launches and transfers goes into `run`; every
// launch and transfer is fed to an Analysis made by `factory` (one per reading thread),
// and the merged Analysis is returned. Memory stays bounded by the metadata, whatever the
// trace size. Throws InputError on malformed input; truncated traces are read up to the
// last complete record with one warning in `diagnostics`.
std::unique_ptr<Analysis> stream_clprof_traces(const std::vector<std::string>& paths,
                                               model::Run& run, const AnalysisFactory& factory,
                                               Diagnostics& diagnostics,
                                               const StreamOptions& options = {});

}  // namespace clprof::readers
