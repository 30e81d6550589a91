// An exact multiset of int64 nanosecond durations in bounded memory: what the per-kernel,
// per-API-function and per-shape medians are computed from.
//
// A sample keeps its values as sorted runs, each delta-encoded (the first value as a zigzag
// varint, then the varint gaps, repeats as one count): durations of one kernel are close, so
// a value costs 1-2 bytes instead of 8, and a repeated one almost nothing. New values wait unsorted
// (at most kRunValues, 8 KiB) and are sealed into a run of level 0; whenever kFanIn runs of one
// level exist they are merged into one of the next level, so a sample of n values holds at most
// kFanIn * log_kFanIn(n / kRunValues) runs. Nothing is lost or rounded: medians, min, max,
// totals and standard deviations equal those of compute_stats() over the same values.
//
// Memory: the encoded runs of all samples of the process count against one budget
// (set_duration_memory_budget, default kDefaultDurationBudget). A merge whose output would
// pass it is written to a spill file instead (an unlinked temporary file in $TMPDIR, or
// /tmp), and read back through a 64 KiB buffer a run when the values are visited: memory
// stays within the budget plus 8 KiB a sample (its unsorted values) plus the small runs of
// level 0 and a few buffers, whatever the number of values. The spill file's space is given
// back (hole punching, best effort) as runs merge. A spill that fails (disk full, no
// writable directory) throws std::runtime_error with the reason.
//
// Threads: one sample is not thread-safe (one per reading thread, merged on one thread);
// the budget counter and the spill file are shared and thread-safe.
// Units: ns. Ownership: a sample owns its runs; copies copy them (spilled ones are copied
// into the spill file too).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "analyses/stats.hpp"

namespace clprof::analyses {

inline constexpr size_t kRunValues = 1024;  // unsorted values sealed into one run
inline constexpr size_t kFanIn = 16;        // runs of one level merged into one
inline constexpr uint64_t kDefaultDurationBudget = uint64_t{64} << 20;  // bytes, all samples

// The bytes of encoded runs all samples may hold in memory before they spill (0: spill every
// merged run, for tests). Call before reading (any thread, but not while samples grow).
void set_duration_memory_budget(uint64_t bytes);
uint64_t duration_memory_budget();
// The bytes of encoded runs in memory now, and written to the spill file so far (for the
// benchmark, docs and tests).
uint64_t duration_resident_bytes();
uint64_t duration_spilled_bytes();

class DurationSample {
 public:
  DurationSample();
  ~DurationSample();
  DurationSample(const DurationSample& other);
  DurationSample& operator=(const DurationSample& other);
  DurationSample(DurationSample&& other) noexcept;
  DurationSample& operator=(DurationSample&& other) noexcept;

  // `count` more of `value_ns` (a histogram's bucket: cheap however large `count` is).
  void add(int64_t value_ns, uint64_t count = 1);
  // Absorbs `other` (left empty).
  void merge(DurationSample&& other);

  uint64_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // The exact sum, saturated (with the overflow note, stats.hpp) only past int64.
  int64_t total_ns() const;
  int64_t min_ns() const { return count_ ? min_ : 0; }
  int64_t max_ns() const { return count_ ? max_ : 0; }

  // compute_stats() of the values; all zero when empty.
  DurationStats stats() const;
  // median_of() of the values; 0 when empty.
  int64_t median_ns() const;
  // The values, ascending (memory: 8 bytes a value; for small samples, tests, charts).
  std::vector<int64_t> sorted_values() const;

  // Visits the distinct values ascending, each once with its count: f(value_ns, count).
  template <class F>
  void for_each_sorted(F&& f) const;

  // Visits the values in ascending order as (value, count) pairs; equal values may come as
  // several pairs.
  class Cursor {
   public:
    explicit Cursor(const DurationSample& sample);
    ~Cursor();
    Cursor(const Cursor&) = delete;
    Cursor& operator=(const Cursor&) = delete;
    // The next pair (count > 0); false when none is left.
    bool next(int64_t& value_ns, uint64_t& count);

   private:
    struct State;
    std::unique_ptr<State> state_;
  };

  struct Run;  // one sorted, encoded run (duration_sample.cpp)

 private:
  void seal_pending();
  void compact();
  void release();

  std::vector<int64_t> pending_;  // unsorted values, fewer than kRunValues
  std::vector<Run*> runs_;        // owned
  uint64_t count_ = 0;
  __int128 sum_ = 0;
  int64_t min_ = 0, max_ = 0;
};

template <class F>
void DurationSample::for_each_sorted(F&& f) const {
  if (count_ == 0) return;
  Cursor c(*this);
  int64_t value = 0, current = 0;
  uint64_t k = 0, n = 0;
  while (c.next(value, k)) {
    if (n > 0 && value == current) {
      n += k;
      continue;
    }
    if (n > 0) f(current, n);
    current = value;
    n = k;
  }
  if (n > 0) f(current, n);
}

}  // namespace clprof::analyses
