// Helpers shared by the advice rules (analyses/advice/rules_*.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analyses/advice/advice.hpp"
#include "analyses/advice/commands.hpp"
#include "format.hpp"

namespace clprof::analyses::advice::util {

// A host duration (end - begin), or -1 when either end is unknown or end < begin.
inline int64_t host_duration(int64_t begin, int64_t end) {
  if (begin == model::kNoTime || end == model::kNoTime || end < begin) return -1;
  return end - begin;
}

// Widens `spans[p]` (first host begin, last host end) by a command's [b, e] (e before b or
// unknown: b); commands without a host begin are left out.
inline void see_span(std::map<uint32_t, std::pair<int64_t, int64_t>>& spans, uint32_t p, int64_t b,
                     int64_t e) {
  if (b == model::kNoTime) return;
  if (e == model::kNoTime || e < b) e = b;
  auto [it, fresh] = spans.emplace(p, std::make_pair(b, e));
  if (!fresh) {
    it->second.first = std::min(it->second.first, b);
    it->second.second = std::max(it->second.second, e);
  }
}

// "12.3%" of part in whole.
inline std::string percent(double part, double whole) {
  return output::format_fixed(whole > 0 ? 100.0 * part / whole : 0.0, 1) + "%";
}

// "1 launch", "2 launches".
inline std::string count_of(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

inline std::string ns(int64_t v) {
  return output::format_ns(v);
}

// The entries of `m`, largest value first (ties: by name).
inline std::vector<std::pair<std::string, uint64_t>> ranked(
    const std::map<std::string, uint64_t>& m) {
  std::vector<std::pair<std::string, uint64_t>> v(m.begin(), m.end());
  std::stable_sort(v.begin(), v.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return v;
}

// The `limit` most frequent (largest) names of `counts`.
inline std::vector<std::string> top_names(const std::map<std::string, uint64_t>& counts,
                                          size_t limit) {
  std::vector<std::string> out;
  for (const auto& [name, n] : ranked(counts))
    if (out.size() < limit) out.push_back(name);
  return out;
}

// The `limit` largest entries of `m` as "a x3, b x1" (counts) or, with `as_ns`, as
// "a 1.200 ms, b 3.000 us" (times in ns); "..." when some are left out.
inline std::string listed(const std::map<std::string, uint64_t>& m, size_t limit, bool as_ns) {
  const auto v = ranked(m);
  std::string out;
  for (size_t i = 0; i < v.size() && i < limit; ++i)
    out +=
        (out.empty() ? "" : ", ") + v[i].first +
        (as_ns ? " " + ns(static_cast<int64_t>(v[i].second)) : " x" + std::to_string(v[i].second));
  if (v.size() > limit) out += ", ...";
  return out;
}
inline std::string counted(const std::map<std::string, uint64_t>& counts, size_t limit) {
  return listed(counts, limit, false);
}
inline std::string timed(const std::map<std::string, uint64_t>& times, size_t limit) {
  return listed(times, limit, true);
}

// The host-order pass (HostOrder, commands.hpp): the launches, transfers and syncs of each
// (process, thread) sorted by host begin (records without one are left out; equal begins
// keep the kinds' order, launches, transfers, syncs, then the file's) through an
// ExternalSort, and read once by a state machine per thread. Computed on the first call and
// kept in c.host_order_cache (not thread-safe: the merging thread, after the reading).
const HostOrder& host_order(const model::Run& run, const Commands& c);

// The name of the range `id` ("" when 0 or unknown): a range kept whole (run.ranges, the first
// of that id), else a folded one (run.folded_ranges).
std::string range_name(const model::Run& run, uint64_t id);

}  // namespace clprof::analyses::advice::util
