// Output formats and the human-readable rendering of numbers shared by every command. It sits
// in the lowest room (analyzer/README.md) because analyses write figures into their evidence
// texts too (advise); its namespace stays clprof::output. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clprof::output {

enum class Format { Table, Csv, Json, Markdown };

// "table", "csv", "json" or "markdown" (also "md"); nullopt for anything else.
std::optional<Format> parse_format(std::string_view name);

// A duration with an adaptive unit, 4 significant digits at most 3 decimals:
// 950 -> "950 ns", 1234 -> "1.234 us", 12345678 -> "12.35 ms", 2.5e9 -> "2.500 s".
std::string format_ns(int64_t ns);

// The items with `separator` between them: joined({"a", "b"}, ", ") -> "a, b".
std::string joined(const std::vector<std::string>& items, std::string_view separator);

// A fixed-point number: format_fixed(12.3456, 2) -> "12.35".
std::string format_fixed(double value, int decimals);

// A number with 4 significant digits: 0.000262144 -> "0.0002621", 1234.5 -> "1234"; from
// 10^4 on the whole number in fixed notation: 4148731.2 -> "4148731" (never "4.149e+06"),
// below 10^-4 with the decimals 4 digits need: 6.5536e-05 -> "0.00006554".
std::string format_general(double value);

// A byte count with a binary unit: 512 -> "512 B", 4096 -> "4.0 KiB".
std::string format_bytes(uint64_t bytes);

// Work sizes as OpenCL users write them: {16, 8} -> "16x8"; nullopt (a NULL local size,
// the runtime's choice) -> "NULL"; no dimension -> "-".
std::string format_sizes(const std::optional<std::vector<uint64_t>>& sizes);

}  // namespace clprof::output
