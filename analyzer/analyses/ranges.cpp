#include "analyses/ranges.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace clprof::analyses {

RangeIndex::RangeIndex(const model::Run& run)
    : folded_(run.folded_ranges.empty() ? nullptr : &run.folded_ranges) {
  for (const auto& r : run.ranges) by_id_[r.id] = &r;
}

const model::Range* RangeIndex::find(uint64_t id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

const std::string* RangeIndex::name(uint64_t id) const {
  if (const model::Range* r = find(id)) return &r->name;
  return folded_ ? folded_->name(id) : nullptr;
}

std::optional<uint64_t> RangeIndex::parent(uint64_t id) const {
  if (const model::Range* r = find(id)) return r->parent;
  return folded_ ? folded_->parent(id) : std::nullopt;
}

std::string RangeIndex::path(uint64_t id) const {
  if (id == 0) return std::string(kNoLayer);
  std::vector<std::string> names;
  // Bounded walk: a corrupt parent cycle must not hang the analyzer.
  for (size_t depth = 0; id != 0 && depth < 256; ++depth) {
    const std::string* n = name(id);
    if (!n) {
      names.push_back("range#" + std::to_string(id));
      break;
    }
    names.push_back(*n);
    id = *parent(id);
  }
  std::string out;
  for (auto it = names.rbegin(); it != names.rend(); ++it) {
    if (!out.empty()) out += '/';
    out += *it;
  }
  return out;
}

bool RangeIndex::within(uint64_t id, uint64_t ancestor) const {
  for (size_t depth = 0; id != 0 && depth < 256; ++depth) {
    if (id == ancestor) return true;
    const auto up = parent(id);
    if (!up) return false;
    id = *up;
  }
  return false;
}

std::optional<std::string> RangeIndex::path_below(uint64_t id, uint64_t ancestor) const {
  std::vector<std::string> names;
  for (size_t depth = 0; depth < 256; ++depth) {
    if (id == ancestor) {
      std::string out;
      for (auto it = names.rbegin(); it != names.rend(); ++it) {
        if (!out.empty()) out += '/';
        out += *it;
      }
      return out;
    }
    const std::string* n = id ? name(id) : nullptr;
    if (!n) return std::nullopt;
    names.push_back(*n);
    id = *parent(id);
  }
  return std::nullopt;
}

Iterations find_iterations(const model::Run& run, std::string_view name,
                           const std::unordered_set<uint64_t>* holding_launches) {
  struct Candidate {
    size_t first_seen;
    std::vector<const model::Range*> instances;
    bool has_children = false;
    bool holds_launches = false;  // an instance holds a launch (with holding_launches)
  };
  std::map<std::string, Candidate> top;
  std::unordered_set<uint64_t> parents;
  for (const auto& r : run.ranges)
    if (r.parent) parents.insert(r.parent);
  if (!run.folded_ranges.empty()) {
    // Only the top-level ranges' children matter: the set stays as small as they are.
    std::unordered_set<uint64_t> top_ids;
    for (const auto& r : run.ranges)
      if (r.parent == 0) top_ids.insert(r.id);
    run.folded_ranges.for_each([&](uint64_t, uint64_t parent) {
      if (top_ids.count(parent)) parents.insert(parent);
    });
  }
  for (size_t i = 0; i < run.ranges.size(); ++i) {
    const auto& r = run.ranges[i];
    if (r.parent != 0) continue;
    auto [it, fresh] = top.try_emplace(r.name, Candidate{i, {}, false});
    it->second.instances.push_back(&r);
    if (parents.count(r.id)) it->second.has_children = true;
    if (holding_launches && holding_launches->count(r.id)) it->second.holds_launches = true;
  }
  const Candidate* best = nullptr;
  std::string best_name;
  for (const auto& [n, c] : top) {
    if (!name.empty()) {
      if (n != name) continue;
    } else if ((c.instances.size() < 2 && !c.has_children) ||
               (holding_launches && !c.holds_launches)) {
      // Picked by itself, an iteration range must repeat (or nest) and, where launches are
      // known, hold some: a once-per-process `build` range of two forked children is no
      // iteration of the work.
      continue;
    }
    if (!best || c.instances.size() > best->instances.size() ||
        (c.instances.size() == best->instances.size() && c.first_seen < best->first_seen)) {
      best = &c;
      best_name = n;
    }
  }
  Iterations out;
  if (!best) return out;
  auto instances = best->instances;
  std::stable_sort(instances.begin(), instances.end(), [](auto* a, auto* b) {
    if (a->process != b->process) return a->process < b->process;
    if (a->host_begin_ns != b->host_begin_ns) return a->host_begin_ns < b->host_begin_ns;
    return a->id < b->id;
  });
  out.range_name = best_name;
  for (auto* r : instances) out.range_ids.push_back(r->id);
  return out;
}

static uint64_t parse_index(std::string_view s, std::string_view whole) {
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string_view::npos)
    throw std::invalid_argument("bad iteration selection '" + std::string(whole) +
                                "': expected N, A:B, A: or :B with 1-based numbers");
  const uint64_t v = std::stoull(std::string(s));
  if (v == 0)
    throw std::invalid_argument("bad iteration selection '" + std::string(whole) +
                                "': iterations are numbered from 1");
  return v;
}

IterationRange parse_iteration_range(std::string_view text) {
  IterationRange r;
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) {
    r.first = r.last = parse_index(text, text);
    return r;
  }
  const auto a = text.substr(0, colon), b = text.substr(colon + 1);
  if (a.empty() && b.empty()) parse_index(a, text);  // throws
  if (!a.empty()) r.first = parse_index(a, text);
  if (!b.empty()) r.last = parse_index(b, text);
  if (r.first > r.last)
    throw std::invalid_argument("bad iteration selection '" + std::string(text) +
                                "': the first iteration is after the last");
  return r;
}

std::unordered_set<uint64_t> select_iterations(const Iterations& iterations,
                                               std::optional<IterationRange> range,
                                               uint64_t skip_first) {
  std::unordered_set<uint64_t> out;
  for (size_t i = 0; i < iterations.range_ids.size(); ++i) {
    const uint64_t k = i + 1;
    if (k <= skip_first) continue;
    if (range && (k < range->first || k > range->last)) continue;
    out.insert(iterations.range_ids[i]);
  }
  return out;
}

}  // namespace clprof::analyses
