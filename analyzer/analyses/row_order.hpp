// The --sort orders the kernels and layers tables share. Pure functions; any thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace clprof::analyses {

// Sorts `rows` by `key` descending, rows of equal keys by `name` ascending (stable).
template <class Row, class Name>
void sort_by_key_descending(std::vector<Row>& rows, int64_t (*key)(const Row&), Name name) {
  std::stable_sort(rows.begin(), rows.end(), [key, name](const Row& a, const Row& b) {
    const auto ka = key(a), kb = key(b);
    if (ka != kb) return ka > kb;
    return name(a) < name(b);
  });
}

}  // namespace clprof::analyses
