// Fuzz target: the streaming reader of clprof traces (what `clprof summary|kernels|...`
// use on traces): two reading threads over chunks of a few hundred bytes, so that chunk and
// thread boundaries fall inside lines; the summary over the merged result.
#include <sys/mman.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "analyses/summary.hpp"
#include "fuzz_support.hpp"
#include "readers/clprof_trace/clprof_trace.hpp"

extern "C" int clprof_fuzz_clprof_trace_stream(const uint8_t* data, size_t size) {
  using namespace clprof;
  // The streaming reader takes a path: an in-memory file, no disk traffic per input.
  const int fd = ::memfd_create("clprof-fuzz", MFD_CLOEXEC);
  if (fd < 0) return 0;
  size_t written = 0;
  while (written < size) {
    const ssize_t w = ::write(fd, data + written, size - written);
    if (w <= 0) break;
    written += static_cast<size_t>(w);
  }
  if (written == size) {
    readers::detail::TraceStreamTuning tuning;
    tuning.threads = 2;
    tuning.chunk_bytes = 256;
    tuning.min_bytes_per_thread = 64;
    model::Run run;
    readers::Diagnostics diagnostics;
    try {
      auto analysis = readers::detail::stream_clprof_trace_file(
          "/proc/self/fd/" + std::to_string(fd), run,
          [] { return std::make_unique<analyses::SummaryAnalysis>(); }, diagnostics, tuning);
      analyses::make_summary(dynamic_cast<analyses::SummaryAnalysis&>(*analysis), run, {});
    } catch (const readers::InputError&) {
    }
  }
  ::close(fd);
  return 0;
}
