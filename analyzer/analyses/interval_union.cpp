#include "analyses/interval_union.hpp"

#include <stdexcept>

#include "analyses/stats.hpp"

namespace clprof::analyses {

int64_t IntervalUnion::length_ns() const {
  if (starts_.size() != ends_.size())
    throw std::invalid_argument("interval union: " + std::to_string(starts_.size()) +
                                " starts but " + std::to_string(ends_.size()) + " ends");
  DurationSample::Cursor starts(starts_), ends(ends_);
  int64_t start = 0, end = 0;
  uint64_t starting = 0, ending = 0;
  bool more_starts = starts.next(start, starting), more_ends = ends.next(end, ending);
  // Intervals started and not yet ended just after `at` (an end is never before its start,
  // so the count only reaches 0 where the union has a gap).
  uint64_t open = 0;
  int64_t at = 0, total = 0;
  while (more_starts || more_ends) {
    const int64_t t = more_starts && (!more_ends || start <= end) ? start : end;
    if (open > 0) add_to(total, sub_ns(t, at));
    while (more_starts && start == t) {
      open += starting;
      more_starts = starts.next(start, starting);
    }
    while (more_ends && end == t) {
      // More ends than starts so far: the inputs broke the start <= end promise.
      if (ending > open) throw std::invalid_argument("interval union: an end before its start");
      open -= ending;
      more_ends = ends.next(end, ending);
    }
    at = t;
  }
  return total;
}

}  // namespace clprof::analyses
