// model::FoldedRanges: the ranges a streaming read kept by name and parent only.
#include <algorithm>

#include "model.hpp"

namespace clprof::model {

namespace {

constexpr uint64_t kLocalMask = (uint64_t{1} << trace::kRangeIdBits) - 1;
// How far below a part's first id, and past its last, an id may fall and still be stored
// densely (the shim's ids are one counter per process, written nearly in order).
constexpr uint64_t kDenseSlack = 1 << 16;

void extend(int64_t& lo, int64_t& hi, int64_t begin, int64_t end) {
  // summary.cpp's extend_span: one missing end stands for the other.
  if (begin == kNoTime && end == kNoTime) return;
  if (begin == kNoTime) begin = end;
  if (end == kNoTime) end = begin;
  lo = lo == kNoTime ? begin : std::min(lo, begin);
  hi = hi == kNoTime ? end : std::max(hi, end);
}

// Widens [lo, hi] by [begin, max(begin, end)] where begin is known (advise's see_span).
void extend_begun(int64_t& lo, int64_t& hi, int64_t begin, int64_t end) {
  if (begin == kNoTime) return;
  if (end == kNoTime || end < begin) end = begin;
  lo = lo == kNoTime ? begin : std::min(lo, begin);
  hi = hi == kNoTime ? end : std::max(hi, end);
}

// Stores (name, parent) of `local` in the dense vector when it is near the others.
template <class Dense, class Sparse>
void put(uint64_t& base, Dense& dense, Sparse& sparse, uint64_t local, uint32_t name,
         uint64_t parent) {
  if (dense.empty() && sparse.empty()) base = local > kDenseSlack ? local - kDenseSlack : 0;
  const bool fits =
      parent <= UINT32_MAX && local >= base && local - base <= dense.size() + kDenseSlack;
  if (!fits) {
    sparse[local] = {name, parent};
    return;
  }
  const size_t i = static_cast<size_t>(local - base);
  if (i >= dense.size()) dense.resize(i + 1);
  dense[i] = {name, static_cast<uint32_t>(parent)};
  sparse.erase(local);
}

}  // namespace

void FoldedRanges::Part::add(uint64_t local, uint64_t parent_local, std::string_view name,
                             int64_t begin, int64_t end) {
  auto [it, fresh] = name_of.try_emplace(std::string(name), static_cast<uint32_t>(names.size()));
  if (fresh) names.push_back(it->first);
  put(base, dense, sparse, local, it->second, parent_local);
  extend(begin_ns, end_ns, begin, end);
  extend_begun(begun_ns, begun_end_ns, begin, end);
  if (begin != kNoTime && end != kNoTime && end < begin && inverted++ == 0)
    inverted_example = std::string(name);
  ++count;
}

void FoldedRanges::absorb(uint32_t process, Part&& part) {
  if (part.empty()) return;
  if (processes_.size() <= process) processes_.resize(process + 1);
  Process& d = processes_[process];
  std::vector<uint32_t> remap(part.names.size());
  for (size_t i = 0; i < part.names.size(); ++i) {
    auto [it, fresh] = name_of_.try_emplace(part.names[i], static_cast<uint32_t>(names_.size()));
    if (fresh) names_.push_back(part.names[i]);
    remap[i] = it->second;
  }
  for (size_t i = 0; i < part.dense.size(); ++i) {
    const auto& e = part.dense[i];
    if (e.name != kNoName) put(d.base, d.dense, d.sparse, part.base + i, remap[e.name], e.parent);
  }
  for (const auto& [local, e] : part.sparse)
    put(d.base, d.dense, d.sparse, local, remap[e.first], e.second);
  extend(d.span.begin_ns, d.span.end_ns, part.begin_ns, part.end_ns);
  extend_begun(d.begun.begin_ns, d.begun.end_ns, part.begun_ns, part.begun_end_ns);
  count_ += part.count;
  if (part.inverted && inverted_ == 0) {
    inverted_example_ = part.inverted_example;
    inverted_example_process_ = process;
  }
  inverted_ += part.inverted;
  part = Part();
}

const std::pair<uint32_t, uint64_t>* FoldedRanges::lookup(
    uint64_t id, std::pair<uint32_t, uint64_t>& tmp) const {
  const uint64_t high = id >> trace::kRangeIdBits, local = id & kLocalMask;
  if (high == 0 || high > processes_.size() || local == 0) return nullptr;
  const Process& d = processes_[high - 1];
  if (local >= d.base && local - d.base < d.dense.size()) {
    const auto& e = d.dense[static_cast<size_t>(local - d.base)];
    if (e.name != kNoName) {
      tmp = {e.name, e.parent};
      return &tmp;
    }
  }
  auto it = d.sparse.find(local);
  return it == d.sparse.end() ? nullptr : &it->second;
}

const std::string* FoldedRanges::name(uint64_t id) const {
  std::pair<uint32_t, uint64_t> tmp;
  const auto* e = lookup(id, tmp);
  return e ? &names_[e->first] : nullptr;
}

std::optional<uint64_t> FoldedRanges::parent(uint64_t id) const {
  std::pair<uint32_t, uint64_t> tmp;
  const auto* e = lookup(id, tmp);
  if (!e) return std::nullopt;
  return e->second ? ((id >> trace::kRangeIdBits) << trace::kRangeIdBits) | e->second : 0;
}

FoldedRanges::Span FoldedRanges::span(uint32_t process) const {
  return process < processes_.size() ? processes_[process].span : Span{};
}

FoldedRanges::Span FoldedRanges::begun_span(uint32_t process) const {
  return process < processes_.size() ? processes_[process].begun : Span{};
}

}  // namespace clprof::model
