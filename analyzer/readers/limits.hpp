// The ceilings the readers hold hostile input to, declared once (docs/reliability.md lists
// them with what happens beyond each). Everything a file controls is bounded: name
// lengths, nesting, input and option-file sizes; numbers are range-checked where parsed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace clprof::readers::limits {

// Kernel, range and layer names longer than this are cut (at a UTF-8 character boundary)
// where they are read, and counted in one warning per file. OpenCL kernel names are short;
// mangled SYCL/templated names reach a few hundred bytes.
inline constexpr size_t kMaxNameBytes = 4096;

// Ranges nest at most this deep (the shim records 64 levels of markers, RangeStack). A
// deeper imported event is a bad record (skipped), so every launch carries at most 64 range
// ids whatever the input: memory stays proportional to the launches reported.
inline constexpr size_t kMaxRangeDepth = 64;

// The importers (Arm NN, dvdt-prof, Chrome, Caffe) map and parse their input whole; a
// larger file is refused up front (their real inputs are MBs; the streaming clprof trace
// reader has no such ceiling).
inline constexpr uint64_t kMaxImportBytes = uint64_t{1} << 30;  // 1 GiB

// Files named by options (--rules, --peak-from) are read by cli/cmd_gemm.cpp: regular
// files of at most 16 MiB.

// `name` cut to kMaxNameBytes at a character boundary; `*cut` (if given) is set when it was.
std::string_view capped_name(std::string_view name, bool* cut = nullptr);

// `text` for a message: at most 64 bytes (then "..."), control characters as \xNN, so
// that nothing a file holds can rewrite the terminal through a warning.
std::string for_message(std::string_view text);

}  // namespace clprof::readers::limits
