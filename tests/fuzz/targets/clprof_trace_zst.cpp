// Fuzz target: clprof traces compressed with zstd (.zst), opened as every command opens a
// file (readers/reader.cpp, open_regular_file: a file that starts with a zstd frame or a
// skippable one is decompressed into an in-memory file first). The seeds are the shim's
// layout (a skippable frame holding the header line, then one stream of flushed blocks),
// frames made by the zstd tool, a cut frame and a damaged one; the fuzzer mutates frame
// headers, block headers and sizes, checksums and the text inside. Then the in-memory load
// and every analysis over what was read. The decompressed size is bounded
// (fuzz::kDecompressedLimit) as --max-memory bounds it in the CLI: sanitizer builds apply no
// memory limit.
#include <unistd.h>

#include <string>

#include "fuzz_support.hpp"
#include "readers/decompressed_limit.hpp"
#include "readers/load.hpp"

extern "C" int clprof_fuzz_clprof_trace_zst(const uint8_t* data, size_t size) {
  using namespace clprof;
  static const bool bounded = (readers::set_decompressed_limit(fuzz::kDecompressedLimit), true);
  static_cast<void>(bounded);
  // The readers take a path: an in-memory file, no disk traffic per input.
  const int fd = fuzz::memory_file(data, size);
  if (fd < 0) return 0;
  model::Run run;
  readers::Diagnostics diagnostics;
  bool read = true;
  try {
    readers::load_run({"/proc/self/fd/" + std::to_string(fd)}, "", run, diagnostics);
  } catch (const readers::InputError&) {
    read = false;
  }
  ::close(fd);
  if (read) fuzz::analyse_run(run);
  return 0;
}
