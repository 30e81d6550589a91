// Fuzz target: the streaming reader of clprof traces (what `clprof summary|kernels|...`
// use on traces): two reading threads over chunks of a few hundred bytes, so that chunk and
// thread boundaries fall inside lines, ranges folded or whole by the input's size (see below);
// the summary over the merged result, which reads the folded ranges' spans. With
// CLPROF_FUZZ_COMPARE=1 it also reads the input in memory (the other path) and stops on any
// difference: accepted by one and rejected by the other, or other launches.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "analyses/summary.hpp"
#include "fuzz_support.hpp"
#include "readers/clprof_trace/clprof_trace.hpp"
#include "readers/decompressed_limit.hpp"

namespace {

// Launches and their total duration, and the summary they make.
class Counting : public clprof::analyses::SummaryAnalysis {
 public:
  void add_launch(const clprof::model::Launch& l) override {
    SummaryAnalysis::add_launch(l);
    ++launches;
    duration += static_cast<uint64_t>(l.duration_ns().value_or(0));
  }
  void merge(clprof::Analysis&& other) override {
    auto& o = dynamic_cast<Counting&>(other);
    launches += o.launches;
    duration += o.duration;
    SummaryAnalysis::merge(std::move(other));
  }
  uint64_t launches = 0, duration = 0;  // unsigned: wraps, never overflows
};

void compare(std::string_view bytes, const Counting* streamed) {
  using namespace clprof;
  model::Run run;
  const bool read = fuzz::read_with(readers::clprof_trace_reader(), bytes, run);
  uint64_t launches = 0, duration = 0;
  for (const auto& l : run.launches) {
    ++launches;
    duration += static_cast<uint64_t>(l.duration_ns().value_or(0));
  }
  const bool same = read == (streamed != nullptr) &&
                    (!read || (launches == streamed->launches && duration == streamed->duration));
  if (same) return;
  std::fprintf(
      stderr,
      "clprof trace paths differ: streamed %s (%llu launches), in memory %s (%llu launches)\n",
      streamed ? "read" : "rejected",
      streamed ? static_cast<unsigned long long>(streamed->launches) : 0ull,
      read ? "read" : "rejected", static_cast<unsigned long long>(launches));
  std::abort();
}

}  // namespace

extern "C" int clprof_fuzz_clprof_trace_stream(const uint8_t* data, size_t size) {
  using namespace clprof;
  static const bool compare_paths = std::getenv("CLPROF_FUZZ_COMPARE") != nullptr;
  // A mutation that finds the zstd magic is decompressed (clprof_trace_zst.cpp): bounded.
  static const bool bounded = (readers::set_decompressed_limit(fuzz::kDecompressedLimit), true);
  static_cast<void>(bounded);
  // The streaming reader takes a path: an in-memory file, no disk traffic per input.
  const int fd = fuzz::memory_file(data, size);
  if (fd < 0) return 0;
  {
    readers::detail::TraceStreamTuning tuning;
    tuning.threads = 2;
    tuning.chunk_bytes = 256;
    tuning.min_bytes_per_thread = 64;
    // Odd sizes fold ranges (the single-pass commands' reading); sizes with bit 1 set keep
    // the top-level ranges whole (a selection's reading).
    tuning.fold_ranges = (size & 1) != 0;
    tuning.keep_top_level_ranges = (size & 2) != 0;
    model::Run run;
    readers::Diagnostics diagnostics;
    std::unique_ptr<Analysis> analysis;
    try {
      analysis = readers::detail::stream_clprof_trace_file(
          "/proc/self/fd/" + std::to_string(fd), run, [] { return std::make_unique<Counting>(); },
          diagnostics, tuning);
      analyses::make_summary(dynamic_cast<Counting&>(*analysis), run, {});
    } catch (const readers::InputError&) {
      analysis.reset();
    }
    if (compare_paths)
      compare(fuzz::text(data, size), dynamic_cast<const Counting*>(analysis.get()));
  }
  ::close(fd);
  return 0;
}
