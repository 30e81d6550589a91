#include "analyses/selection.hpp"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "name_regex.hpp"

namespace clprof::analyses {

void check_filter(const std::string& filter) {
  try {
    NameRegex re(filter);
  } catch (const RegexError& e) {
    throw SelectionError("--filter: invalid regex '" + filter + "': " + e.what());
  }
}

Iterations iterations_for(const model::Run& run, const Selection& s, bool required) {
  if (!s.iteration_range.empty()) {
    bool found = false;
    std::vector<std::string> names;
    for (const auto& r : run.ranges) {
      if (r.parent != 0) continue;
      found |= r.name == s.iteration_range;
      if (names.size() < 8 && std::find(names.begin(), names.end(), r.name) == names.end()) names.push_back(r.name);
    }
    if (!found) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw SelectionError("--iteration-range: no top-level range named '" + s.iteration_range + "'" +
                           (list.empty() ? " (the run has no ranges)" : " (top-level ranges: " + list + ")"));
    }
  }
  Iterations its = find_iterations(run, s.iteration_range);
  if (required && its.range_ids.empty())
    throw SelectionError("the run has no iteration range (a top-level range that repeats or has child ranges)");
  return its;
}

std::unordered_set<uint64_t> selected_iterations(const Iterations& its, const Selection& s) {
  const uint64_t n = its.range_ids.size();
  const std::string of = " of '" + its.range_name + "'";
  if (s.iteration) {
    const auto& r = *s.iteration;
    if (r.first > n || (r.last != UINT64_MAX && r.last > n))
      throw SelectionError("--iteration " + s.iteration_text + ": the run has " + std::to_string(n) +
                           (n == 1 ? " iteration" : " iterations") + of);
  }
  if (s.skip_first >= n && s.skip_first > 0)
    throw SelectionError("--skip-first " + std::to_string(s.skip_first) + ": the run has only " +
                         std::to_string(n) + (n == 1 ? " iteration" : " iterations") + of);
  auto kept = select_iterations(its, s.iteration, s.skip_first);
  if (kept.empty())
    throw SelectionError("--iteration " + s.iteration_text + " with --skip-first " + std::to_string(s.skip_first) +
                         ": no iteration is left");
  return kept;
}

LaunchPredicate make_predicate(const model::Run& run, const Selection& s) {
  std::vector<LaunchPredicate> parts;
  if (s.selects_iterations()) {
    const Iterations its = iterations_for(run, s, true);
    auto selected = std::make_shared<std::unordered_set<uint64_t>>(selected_iterations(its, s));
    parts.push_back([selected](const model::Launch& l) {
      for (uint64_t r : l.ranges)
        if (selected->count(r)) return true;
      return false;
    });
  }
  if (!s.filter.empty()) {
    check_filter(s.filter);
    // The verdict is cached per kernel name and per innermost range (layer paths are built
    // from the range tree for each search).
    struct FilterState {
      RangeIndex index;
      NameRegex re;
      std::unordered_map<std::string, bool> names;
      std::unordered_map<uint64_t, bool> layers;
    };
    auto st = std::make_shared<FilterState>(FilterState{RangeIndex(run), NameRegex(s.filter), {}, {}});
    parts.push_back([st](const model::Launch& l) {
      auto n = st->names.find(l.name);
      if (n == st->names.end()) n = st->names.emplace(l.name, st->re.search(l.name)).first;
      if (n->second) return true;
      const uint64_t r = innermost_range(l);
      auto m = st->layers.find(r);
      if (m == st->layers.end()) m = st->layers.emplace(r, st->re.search(st->index.path(r))).first;
      return m->second;
    });
  }
  if (parts.empty()) return {};
  if (parts.size() == 1) return parts.front();
  return [parts](const model::Launch& l) {
    for (const auto& p : parts)
      if (!p(l)) return false;
    return true;
  };
}

}  // namespace clprof::analyses
