#include "readers/layers_from/layers_from.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "clock_alignment.hpp"
#include "readers/limits.hpp"

namespace clprof {

namespace {

using model::kNoTime;

// Saturating: adversarial inputs may put times near the int64 limits.
int64_t sat_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

int64_t sat_sub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? INT64_MAX : INT64_MIN;
  return r;
}

int64_t origin_of(const model::Run& run, uint32_t process) {
  if (process >= run.processes.size()) return 0;
  int64_t s = run.processes[process].host_start_ns;
  return s == kNoTime ? 0 : s;
}

// A source interval on the absolute clock: a source range, or an imported leaf event.
struct Interval {
  int64_t begin = 0, end = 0;  // absolute, source clock
  uint32_t process = 0;
  uint64_t tid = 0;
  uint64_t range_id = 0;  // source range, or 0 for a leaf launch
  size_t leaf = 0;        // index into source launches when range_id == 0
  int64_t parent = -1;    // enclosing interval in the sorted index (containment)
};

// Intervals sorted by begin with their containment parents: the innermost interval holding
// t is found by taking the last one beginning at or before t and walking up its parents.
struct Index {
  std::vector<Interval> items;

  void build() {
    std::stable_sort(items.begin(), items.end(), [](const Interval& a, const Interval& b) {
      if (a.begin != b.begin) return a.begin < b.begin;
      return a.end > b.end;
    });
    std::vector<size_t> stack;
    for (size_t i = 0; i < items.size(); ++i) {
      while (!stack.empty() && items[stack.back()].end < items[i].end) stack.pop_back();
      if (!stack.empty()) items[i].parent = static_cast<int64_t>(stack.back());
      stack.push_back(i);
    }
  }

  const Interval* innermost(int64_t t) const {
    auto it = std::upper_bound(items.begin(), items.end(), t,
                               [](int64_t v, const Interval& iv) { return v < iv.begin; });
    if (it == items.begin()) return nullptr;
    int64_t k = static_cast<int64_t>(it - items.begin()) - 1;
    while (k >= 0) {
      const Interval& iv = items[static_cast<size_t>(k)];
      if (t < iv.end || (iv.begin == iv.end && t == iv.begin)) return &iv;
      k = iv.parent;
    }
    return nullptr;
  }
};

class Attributor {
 public:
  Attributor(model::Run& target, const model::Run& source, const LayersFromOptions& o)
      : target_(target), source_(source), o_(o), clocks_(target) {
    for (const auto& r : source.ranges) source_ranges_[r.id] = &r;
    for (const auto& r : target.ranges) next_id_ = std::max(next_id_, r.id + 1);
    collect();
  }

  LayersFromResult run() {
    LayersFromResult result;
    align(result);
    for (auto& l : target_.launches) {
      if (attribute(l.process, l.tid, when(l, &result), l.ranges))
        ++result.launches_attributed;
      else
        ++result.launches_unattributed;
    }
    for (auto& t : target_.transfers)
      if (attribute(t.process, t.tid, when(t, &result), t.ranges)) ++result.transfers_attributed;
    return result;
  }

 private:
  // The host time (relative to the command's process) at which a command is looked up.
  template <typename Command>
  int64_t when(const Command& c, LayersFromResult* result) const {
    if (o_.by == LayersFromOptions::By::Enqueue) return c.host_begin_ns;
    if (auto t = clocks_.to_host(c.device, c.start_ns)) return *t;
    if (result && c.host_begin_ns != kNoTime) ++result->by_enqueue;
    return c.host_begin_ns;
  }

  void collect() {
    for (const auto& r : source_.ranges) {
      if (r.host_begin_ns == kNoTime || r.host_end_ns == kNoTime || r.host_end_ns < r.host_begin_ns)
        continue;
      int64_t o = origin_of(source_, r.process);
      all_.push_back(
          {sat_add(o, r.host_begin_ns), sat_add(o, r.host_end_ns), r.process, r.tid, r.id, 0, -1});
    }
    if (o_.use_source_leaf_events) {
      for (size_t i = 0; i < source_.launches.size(); ++i) {
        const auto& l = source_.launches[i];
        if (!l.duration_override_ns || l.host_begin_ns == kNoTime || l.host_end_ns == kNoTime ||
            l.host_end_ns < l.host_begin_ns)
          continue;
        int64_t o = origin_of(source_, l.process);
        all_.push_back(
            {sat_add(o, l.host_begin_ns), sat_add(o, l.host_end_ns), l.process, l.tid, 0, i, -1});
      }
    }
  }

  void align(LayersFromResult& result) {
    int64_t src_min = INT64_MAX, src_max = INT64_MIN, tgt_min = INT64_MAX, tgt_max = INT64_MIN;
    for (const auto& iv : all_) {
      src_min = std::min(src_min, iv.begin);
      src_max = std::max(src_max, iv.end);
    }
    for (const auto& l : target_.launches) {
      const int64_t at = when(l, nullptr);
      if (at == kNoTime) continue;
      int64_t t = sat_add(origin_of(target_, l.process), at);
      tgt_min = std::min(tgt_min, t);
      tgt_max = std::max(tgt_max, t);
    }
    auto align = o_.align;
    if (align == LayersFromOptions::Align::Auto) {
      bool overlap = src_min <= tgt_max && tgt_min <= src_max;
      align = overlap || all_.empty() || tgt_min == INT64_MAX
                  ? LayersFromOptions::Align::Absolute
                  : LayersFromOptions::Align::FirstEvent;
      if (align == LayersFromOptions::Align::FirstEvent)
        result.note =
            "--layers-from: the profile's times do not overlap the trace's launches "
            "(different clocks?); aligned its first range with the first launch";
    }
    shift_ = o_.offset_ns;
    if (align == LayersFromOptions::Align::FirstEvent && !all_.empty() && tgt_min != INT64_MAX)
      shift_ = sat_add(shift_, sat_sub(tgt_min, src_min));
    result.applied_shift_ns = shift_;
    result.used_align = align;
  }

  // The index of source intervals a launch of target process `process` / thread `tid` may
  // fall in: one source process with the same pid if there is one, else all of them.
  const Index& index_for(uint32_t process, uint64_t tid) {
    int64_t src_process = -1;
    if (process < target_.processes.size() && target_.processes[process].pid != 0)
      for (size_t p = 0; p < source_.processes.size(); ++p)
        if (source_.processes[p].pid == target_.processes[process].pid)
          src_process = static_cast<int64_t>(p);
    int64_t tid_key = o_.match_tid ? static_cast<int64_t>(tid) : -1;
    auto key = std::make_pair(src_process, tid_key);
    auto it = indexes_.find(key);
    if (it != indexes_.end()) return it->second;
    Index idx;
    for (const auto& iv : all_) {
      if (src_process >= 0 && iv.process != static_cast<uint32_t>(src_process)) continue;
      if (o_.match_tid && iv.tid != tid) continue;
      idx.items.push_back(iv);
    }
    idx.build();
    return indexes_.emplace(key, std::move(idx)).first->second;
  }

  bool attribute(uint32_t process, uint64_t tid, int64_t host_begin_ns,
                 std::vector<uint64_t>& ranges) {
    if (host_begin_ns == kNoTime) return false;
    // Source absolute + shift = target absolute, so look up target absolute - shift.
    int64_t t = sat_sub(sat_add(origin_of(target_, process), host_begin_ns), shift_);
    const Interval* iv = index_for(process, tid).innermost(t);
    if (!iv) return false;
    std::vector<uint64_t> chain;
    if (iv->range_id != 0) {
      chain = copy_range_chain(iv->range_id, process);
    } else {
      const auto& leaf = source_.launches[iv->leaf];
      uint64_t parent = 0;
      if (!leaf.ranges.empty()) {
        chain = copy_range_chain(leaf.ranges.back(), process);
        parent = chain.empty() ? 0 : chain.back();
      }
      chain.push_back(copy_leaf(iv->leaf, parent, process));
    }
    if (o_.keep_existing_ranges) chain.insert(chain.end(), ranges.begin(), ranges.end());
    ranges = std::move(chain);
    return true;
  }

  int64_t to_target(int64_t source_abs, uint32_t target_process) const {
    return sat_sub(sat_add(source_abs, shift_), origin_of(target_, target_process));
  }

  // Copies source range `id` and its ancestors into target process `process` (once) and
  // returns the target ids, outermost first. At most limits::kMaxRangeDepth of them: a
  // source whose parent links go deeper (or loop) must not give every launch a long chain.
  std::vector<uint64_t> copy_range_chain(uint64_t id, uint32_t process) {
    std::vector<const model::Range*> up;
    for (uint64_t cur = id; cur != 0 && up.size() < readers::limits::kMaxRangeDepth;) {
      auto it = source_ranges_.find(cur);
      if (it == source_ranges_.end()) break;
      up.push_back(it->second);
      cur = it->second->parent;
    }
    std::vector<uint64_t> out;
    uint64_t parent = 0;
    for (auto r = up.rbegin(); r != up.rend(); ++r) {
      auto key = std::make_pair((*r)->id, process);
      auto it = copied_.find(key);
      if (it == copied_.end()) {
        model::Range c = **r;
        c.id = next_id_++;
        c.parent = parent;
        c.process = process;
        int64_t o = origin_of(source_, (*r)->process);
        if (c.host_begin_ns != kNoTime)
          c.host_begin_ns = to_target(sat_add(o, c.host_begin_ns), process);
        if (c.host_end_ns != kNoTime) c.host_end_ns = to_target(sat_add(o, c.host_end_ns), process);
        target_.ranges.push_back(std::move(c));
        it = copied_.emplace(key, target_.ranges.back().id).first;
      }
      parent = it->second;
      out.push_back(parent);
    }
    return out;
  }

  uint64_t copy_leaf(size_t leaf, uint64_t parent, uint32_t process) {
    auto key = std::make_pair(leaf, process);
    auto it = copied_leaves_.find(key);
    if (it != copied_leaves_.end()) return it->second;
    const auto& l = source_.launches[leaf];
    int64_t o = origin_of(source_, l.process);
    model::Range r;
    r.id = next_id_++;
    r.parent = parent;
    r.name = l.name;
    r.process = process;
    r.tid = l.tid;
    r.host_begin_ns = to_target(sat_add(o, l.host_begin_ns), process);
    r.host_end_ns = to_target(sat_add(o, l.host_end_ns), process);
    target_.ranges.push_back(std::move(r));
    return copied_leaves_.emplace(key, target_.ranges.back().id).first->second;
  }

  model::Run& target_;
  const model::Run& source_;
  const LayersFromOptions& o_;
  const model::ClockAlignment clocks_;
  std::vector<Interval> all_;
  std::map<uint64_t, const model::Range*> source_ranges_;
  std::map<std::pair<int64_t, int64_t>, Index> indexes_;
  std::map<std::pair<uint64_t, uint32_t>, uint64_t> copied_;
  std::map<std::pair<size_t, uint32_t>, uint64_t> copied_leaves_;
  uint64_t next_id_ = 1;
  int64_t shift_ = 0;
};

}  // namespace

LayersFromResult attribute_by_host_time(model::Run& target, const model::Run& ranges_source,
                                        const LayersFromOptions& options) {
  Attributor a(target, ranges_source, options);
  return a.run();
}

}  // namespace clprof
