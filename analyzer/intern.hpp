// Small ids for repeated values (kernel names, GEMM shapes, timeline lanes): the index of a
// value in a list that grows as new values are met, so ids follow first-seen order.
// Not thread-safe: one list and map per owner.
#pragma once

#include <cstdint>
#include <vector>

namespace clprof {

// The id of `value`: its index in `values`, where it is appended (and entered in `ids`, a map
// from value to id) when first seen.
template <class T, class Ids>
uint32_t intern(const T& value, Ids& ids, std::vector<T>& values) {
  auto [it, fresh] = ids.try_emplace(value, static_cast<uint32_t>(values.size()));
  if (fresh) values.push_back(value);
  return it->second;
}

}  // namespace clprof
