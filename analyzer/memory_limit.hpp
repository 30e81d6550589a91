// The analyzer's memory ceiling (--max-memory): hostile or huge inputs stop with a clear
// error instead of driving the machine into swap. The limit is the kernel's RLIMIT_DATA
// (heap and private writable mappings: every allocation of the readers and analyses; the
// read-only mapped input files do not count), so exceeding it makes an allocation fail and
// std::bad_alloc end the command; main() prints kOutOfMemoryMessage and exits 1.
//
// Threads: call apply_memory_limit() once, before reading, from the main thread. It is not
// applied in sanitizer builds (their shadow memory is itself a huge writable mapping).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace clprof {

// The default: half of the physical memory, or of the cgroup's memory.max when lower.
uint64_t default_memory_limit();

// "0" (no limit), "N" bytes, or N with a binary suffix K, M, G or T (also KiB, MB, ...:
// always powers of 1024). nullopt when malformed or past 2^62 bytes.
std::optional<uint64_t> parse_memory_size(std::string_view text);

// Limits the process to `bytes` (0 = no limit). False if it could not (the reason in
// `*error`), also when the build has sanitizers.
bool apply_memory_limit(uint64_t bytes, std::string* error);

// The limit last applied (0 = none); for the out-of-memory message.
uint64_t applied_memory_limit();

// "out of memory: ..." for an allocation that failed under the limit.
std::string out_of_memory_message();

}  // namespace clprof
