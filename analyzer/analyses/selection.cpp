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

Iterations iterations_for(const model::Run& run, const Selection& s, bool required,
                          const std::unordered_set<uint64_t>* holding_launches) {
  if (!s.iteration_range.empty()) {
    bool found = false;
    std::vector<std::string> names;
    for (const auto& r : run.ranges) {
      if (r.parent != 0) continue;
      found |= r.name == s.iteration_range;
      if (names.size() < 8 && std::find(names.begin(), names.end(), r.name) == names.end())
        names.push_back(r.name);
    }
    if (!found) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw SelectionError(
          "--iteration-range: no top-level range named '" + s.iteration_range + "'" +
          (list.empty() ? " (the run has no ranges)" : " (top-level ranges: " + list + ")"));
    }
  }
  Iterations its = find_iterations(run, s.iteration_range, holding_launches);
  if (required && its.range_ids.empty())
    throw SelectionError(
        "the run has no iteration range (a top-level range that repeats or has child ranges)");
  return its;
}

std::unordered_set<uint64_t> selected_iterations(const Iterations& its, const Selection& s) {
  const uint64_t n = its.range_ids.size();
  const std::string of = " of '" + its.range_name + "'";
  if (s.iteration) {
    const auto& r = *s.iteration;
    if (r.first > n || (r.last != UINT64_MAX && r.last > n))
      throw SelectionError("--iteration " + s.iteration_text + ": the run has " +
                           std::to_string(n) + (n == 1 ? " iteration" : " iterations") + of);
  }
  if (s.skip_first >= n && s.skip_first > 0)
    throw SelectionError("--skip-first " + std::to_string(s.skip_first) + ": the run has only " +
                         std::to_string(n) + (n == 1 ? " iteration" : " iterations") + of);
  auto kept = select_iterations(its, s.iteration, s.skip_first);
  if (kept.empty())
    throw SelectionError("--iteration " + s.iteration_text + " with --skip-first " +
                         std::to_string(s.skip_first) + ": no iteration is left");
  return kept;
}

namespace {

// The verdict of --filter is cached per kernel name and per innermost range (layer paths are
// built from the range tree for each search).
struct FilterState {
  RangeIndex index;
  NameRegex re;
  std::unordered_map<std::string, bool> names;
  std::unordered_map<uint64_t, bool> layers;

  bool layer_matches(const std::vector<uint64_t>& ranges) {
    const uint64_t r = ranges.empty() ? 0 : ranges.back();
    auto m = layers.find(r);
    if (m == layers.end()) m = layers.emplace(r, re.search(index.path(r))).first;
    return m->second;
  }
};

std::shared_ptr<std::unordered_set<uint64_t>> iteration_set(const model::Run& run,
                                                            const Selection& s) {
  const Iterations its = iterations_for(run, s, true);
  return std::make_shared<std::unordered_set<uint64_t>>(selected_iterations(its, s));
}

bool in_iterations(const std::unordered_set<uint64_t>& selected,
                   const std::vector<uint64_t>& ranges) {
  for (uint64_t r : ranges)
    if (selected.count(r)) return true;
  return false;
}

template <typename T>
std::function<bool(const T&)> all_of(std::vector<std::function<bool(const T&)>> parts) {
  if (parts.empty()) return {};
  if (parts.size() == 1) return parts.front();
  return [parts](const T& x) {
    for (const auto& p : parts)
      if (!p(x)) return false;
    return true;
  };
}

}  // namespace

std::vector<size_t> first_launches(const model::Run& run) {
  std::unordered_map<uint32_t, std::unordered_map<std::string, size_t>>
      first;  // process -> name -> index
  for (size_t i = 0; i < run.launches.size(); ++i) {
    const auto& l = run.launches[i];
    if (l.status == "not_enqueued") continue;
    auto [it, fresh] = first[l.process].try_emplace(l.name, i);
    if (!fresh && l.seq < run.launches[it->second].seq) it->second = i;
  }
  std::vector<size_t> out;
  for (const auto& [process, names] : first)
    for (const auto& [name, index] : names) out.push_back(index);
  std::sort(out.begin(), out.end());
  return out;
}

LaunchPredicate make_predicate(const model::Run& run, const Selection& s) {
  std::vector<LaunchPredicate> parts;
  if (s.selects_iterations()) {
    auto selected = iteration_set(run, s);
    parts.push_back(
        [selected](const model::Launch& l) { return in_iterations(*selected, l.ranges); });
  }
  if (!s.filter.empty()) {
    check_filter(s.filter);
    auto st =
        std::make_shared<FilterState>(FilterState{RangeIndex(run), NameRegex(s.filter), {}, {}});
    parts.push_back([st](const model::Launch& l) {
      auto n = st->names.find(l.name);
      if (n == st->names.end()) n = st->names.emplace(l.name, st->re.search(l.name)).first;
      return n->second || st->layer_matches(l.ranges);
    });
  }
  if (s.window) {
    auto clock = std::make_shared<RunClock>(run, s.window->origin_ns);
    parts.push_back([clock, w = *s.window](const model::Launch& l) {
      const auto t = clock->time_of(l);
      return t && w.contains(*t);
    });
  }
  if (s.skip_first_launch) {
    // By position in run.launches: the launches fed are the run's own (session.hpp).
    auto skip = std::make_shared<std::vector<size_t>>(first_launches(run));
    const model::Launch* base = run.launches.data();
    const size_t n = run.launches.size();
    parts.push_back([skip, base, n](const model::Launch& l) {
      if (&l < base || &l >= base + n) return true;
      return !std::binary_search(skip->begin(), skip->end(), static_cast<size_t>(&l - base));
    });
  }
  return all_of(std::move(parts));
}

TransferPredicate make_transfer_predicate(const model::Run& run, const Selection& s) {
  std::vector<TransferPredicate> parts;
  if (s.selects_iterations()) {
    auto selected = iteration_set(run, s);
    parts.push_back(
        [selected](const model::Transfer& t) { return in_iterations(*selected, t.ranges); });
  }
  if (!s.filter.empty()) {
    check_filter(s.filter);
    auto st =
        std::make_shared<FilterState>(FilterState{RangeIndex(run), NameRegex(s.filter), {}, {}});
    parts.push_back([st](const model::Transfer& t) { return st->layer_matches(t.ranges); });
  }
  return all_of(std::move(parts));
}

}  // namespace clprof::analyses
