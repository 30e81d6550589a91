// Order statistics over integer nanosecond durations, exact and deterministic; and the
// checked arithmetic every duration sum of the analyses goes through.
#pragma once

#include <cstdint>
#include <vector>

namespace clprof::analyses {

struct DurationStats {
  uint64_t count = 0;
  int64_t total_ns = 0;   // saturated (see add_ns) if the sum does not fit int64
  int64_t mean_ns = 0;    // total / count, rounded to nearest
  int64_t median_ns = 0;  // even count: mean of the two middle values, rounded to nearest
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  int64_t stddev_ns = 0;  // sample standard deviation (n - 1), rounded; 0 when count < 2
};

// Statistics of `values` (reordered in place). All zero for an empty vector. Sums are
// 128-bit, so only a total past int64 (292 years) saturates, with the overflow note.
DurationStats compute_stats(std::vector<int64_t>& values);

// Median of `values` (reordered in place), as compute_stats defines it; 0 when empty.
int64_t median_of(std::vector<int64_t>& values);

// Checked sums of nanoseconds. Totals only leave int64 (+-292 years) on corrupt or hostile
// inputs; then the result saturates at INT64_MAX (or INT64_MIN + 1: INT64_MIN is
// model::kNoTime) and the process-wide overflow note is set, which the CLI prints as one
// warning (kOverflowWarning) so that a capped figure is never shown as if it were exact.
// Thread-safe (the note is an atomic flag; analyses run on the reading threads).
int64_t add_ns(int64_t a, int64_t b);
inline void add_to(int64_t& total, int64_t value) {
  total = add_ns(total, value);
}
// a - b, checked the same way.
int64_t sub_ns(int64_t a, int64_t b);
// Sets the note and returns `limit` (for other computations that had to saturate).
int64_t saturated_ns(int64_t limit);
// True once any sum saturated in this process.
bool overflow_noted();

// Checked sums of bytes: past 2^64 - 1 (16 EiB, only on corrupt or hostile inputs) the total
// saturates at UINT64_MAX and the process-wide byte overflow note is set, printed by the CLI
// as one warning (kBytesOverflowWarning). Thread-safe as add_ns.
uint64_t add_bytes(uint64_t a, uint64_t b);
inline void add_to(uint64_t& total, uint64_t value) {
  total = add_bytes(total, value);
}
bool bytes_overflow_noted();
inline constexpr const char* kBytesOverflowWarning =
    "a byte total exceeded the 64-bit range (16 EiB) and was capped: the input's transfer sizes "
    "are corrupt, and totals, bandwidths and shares that include them are not exact";
inline constexpr const char* kOverflowWarning =
    "a time total exceeded the 64-bit nanosecond range (292 years) and was capped: the "
    "input's times are corrupt, and totals, means and shares that include them are not exact";

}  // namespace clprof::analyses
