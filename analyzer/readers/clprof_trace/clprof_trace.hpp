// The reader of clprof's own traces (docs/trace-format.md, include/clprof/trace_schema.hpp),
// in two forms: the Reader (whole content in memory -> model::Run) and the parallel
// streaming path used by load.hpp's stream_clprof_traces.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "analysis.hpp"
#include "model.hpp"
#include "readers/reader.hpp"

namespace clprof::readers {

// Reader::name() "clprof". Stateless, so one instance may be used by several threads.
// Reads the one-record-per-line layout the shim writes and, more slowly, any other
// formatting of the same JSON document (pretty-printed, minified to one line).
class ClprofTraceReader final : public Reader {
 public:
  std::string_view name() const override { return "clprof"; }
  std::string_view description() const override;
  bool sniff(std::string_view head) const override;
  void read(const std::string& path, std::string_view content, model::Run& run,
            Diagnostics& diagnostics) const override;
};

// The process-wide instance registered in registry.cpp.
const Reader& clprof_trace_reader();

namespace detail {

// Knobs of the streaming path; the defaults are the production values, tests shrink
// them to force chunk and thread boundaries into the middle of lines.
struct TraceStreamTuning {
  unsigned threads = 1;                  // reading threads (>= 1)
  size_t chunk_bytes = size_t{8} << 20;  // read() size per thread; buffers grow for longer lines
  size_t min_bytes_per_thread = size_t{4} << 20;  // fewer threads for small files
  bool fast_path = true;  // false: every record through the general parser (tests)
  std::atomic<uint64_t>* bytes_read = nullptr;  // when set: every byte read is added (progress)
  // LoadOptions::fold_ranges / keep_top_level_ranges: the reading threads fold ranges into
  // run.folded_ranges (the prefix before the first launch is read whole, as ever).
  bool fold_ranges = false;
  bool keep_top_level_ranges = true;
};

// ClprofTraceReader::read with the fast path on or off (tests compare the two paths).
void read_clprof_trace(const std::string& path, std::string_view content, model::Run& run,
                       Diagnostics& diagnostics, bool fast_path);

// Streams one clprof trace file: metadata into `run` (a new Process), every launch and
// transfer to Analysis instances made by `factory` (one per thread, called from the
// calling thread), merged into the returned one. Files that are not in the
// one-record-per-line layout are read whole (Reader path) and then fed. Throws InputError.
// Memory: `tuning.threads` buffers of ~chunk_bytes plus the metadata.
std::unique_ptr<Analysis> stream_clprof_trace_file(const std::string& path, model::Run& run,
                                                   const AnalysisFactory& factory,
                                                   Diagnostics& diagnostics,
                                                   const TraceStreamTuning& tuning);

}  // namespace detail

}  // namespace clprof::readers
