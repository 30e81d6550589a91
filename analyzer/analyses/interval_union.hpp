// The length of the union of [start, end] intervals (a device's busy time), exact, in
// bounded memory: only the sorted multisets of the starts and of the ends are kept (two
// DurationSamples: 2-3 bytes a timestamp in memory, spilled to disk past their budget,
// duration_sample.hpp), and the union's length is a sweep over both in time order: a
// moment is covered while more intervals have started than ended. Overlapping, touching,
// nested and empty intervals count as in union_length (summary.hpp).
//
// Threads: not thread-safe; one instance per reading thread, merged on one thread.
// Units: ns. Each interval added must have start <= end.
#pragma once

#include <cstdint>

#include "analyses/duration_sample.hpp"

namespace clprof::analyses {

class IntervalUnion {
 public:
  void add(int64_t start_ns, int64_t end_ns) {
    starts_.add(start_ns);
    ends_.add(end_ns);
  }
  // Absorbs `other` (left empty).
  void merge(IntervalUnion&& other) {
    starts_.merge(std::move(other.starts_));
    ends_.merge(std::move(other.ends_));
  }
  uint64_t size() const { return starts_.size(); }
  bool empty() const { return starts_.empty(); }
  // Total length of the union (checked sums: saturates with the overflow note, stats.hpp).
  int64_t length_ns() const;

  // The two multisets, for the partial format (output/views/partial.cpp), which writes and
  // reads them as histograms. A reader must add as many starts as ends, each end at or
  // after its start; length_ns() checks the counts match (std::invalid_argument).
  const DurationSample& starts() const { return starts_; }
  const DurationSample& ends() const { return ends_; }
  DurationSample& mutable_starts() { return starts_; }
  DurationSample& mutable_ends() { return ends_; }

 private:
  DurationSample starts_, ends_;
};

}  // namespace clprof::analyses
