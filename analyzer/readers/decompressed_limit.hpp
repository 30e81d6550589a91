// A bound of the readers' own on what a compressed (zstd) input may decompress to
// (reader.cpp, open_regular_file), on top of half of --max-memory. Its own header, apart
// from reader.hpp, which most of the analyzer includes.
#pragma once

#include <cstdint>

namespace clprof::readers {

// The most bytes a compressed file may decompress to: 0 (the default) for no bound of its
// own. For the fuzz targets, whose sanitizer builds apply no memory limit
// (memory_limit.hpp). Threads: set it before reading.
void set_decompressed_limit(uint64_t bytes);

}  // namespace clprof::readers
