// What the fuzz targets share: reading bytes with one reader, and running every analysis
// over what was read, so that a hostile input is followed all the way to the tables.
// A target returns normally for an input that is accepted or rejected with InputError (the
// documented outcome of bad input); anything else (a crash, a sanitizer report, another
// exception escaping) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model.hpp"
#include "readers/reader.hpp"

namespace clprof::fuzz {

// The fuzzer's bytes as text.
inline std::string_view text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// `data` in an anonymous in-memory file (memfd), for the readers that take a path: its
// descriptor (the caller closes it), or -1 when it could not be made or written.
int memory_file(const uint8_t* data, size_t size);

// The bound on what a compressed input decompresses to in the targets that read files
// (readers/decompressed_limit.hpp): a few bytes of RLE blocks make megabytes.
constexpr uint64_t kDecompressedLimit = uint64_t{4} << 20;

// Reads `data` with `reader`; false when it was rejected (InputError).
bool read_with(const readers::Reader& reader, std::string_view data, model::Run& run);

// Summary, kernels (with a --speedup estimate), layers, iterations, GEMM (both modes) and
// --layers-from (the run onto a copy of itself) over `run`, as the CLI computes them.
void analyse_run(const model::Run& run);

// A reader's fuzz target: `data` read with `reader`, then analysed when it was read.
// Returns 0 (libFuzzer's "go on").
int read_and_analyse(const readers::Reader& reader, const uint8_t* data, size_t size);

}  // namespace clprof::fuzz
