// Writing JSON text by hand, for the outputs that stream one object per line (timeline
// events, export's JSON Lines): the strings of a trace are valid UTF-8 (the shim and the
// readers make sure), so only quotes, backslashes and control characters need escaping.
// Pure functions; no state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace clprof::output::views {

// Appends `s` as a JSON string (with its quotes).
void append_json_string(std::string& out, std::string_view s);
// Appends a finite double with up to 17 significant digits (%.17g); non-finite: null.
void append_json_real(std::string& out, double v);
// Integer nanoseconds as decimal microseconds with exactly three decimals: 12345 ->
// "12.345", -1500 -> "-1.500" (Chrome trace timestamps: microseconds, ns precision).
void append_us(std::string& out, int64_t ns);

}  // namespace clprof::output::views
