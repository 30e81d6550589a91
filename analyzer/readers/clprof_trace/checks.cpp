// The order checks of clprof trace records (see checks.hpp).
#include "readers/clprof_trace/checks.hpp"

#include <algorithm>

namespace clprof::readers::detail {

bool SeqSet::insert(uint64_t seq) {
  if (contains(seq)) return false;
  const uint64_t word = seq >> 6;  // < 2^58: the sums below cannot overflow
  if (words_.empty()) {
    base_ = word;
    words_.assign(1, 0);
  }
  // The bitset covers words [low, high): grown on demand, at most kMaxWords of them.
  const uint64_t low = std::min(base_, word);
  const uint64_t high = std::max<uint64_t>(base_ + words_.size(), word + 1);
  if (high - low > kMaxWords) {
    sparse_.insert(seq);
    return true;
  }
  if (low < base_) {
    words_.insert(words_.begin(), static_cast<size_t>(base_ - low), 0);
    base_ = low;
  }
  const auto want = static_cast<size_t>(high - base_);
  if (want > words_.size()) {
    // Doubling, so that a trace's rising seqs cost few reallocations.
    if (want > words_.capacity())
      words_.reserve(std::min<size_t>(kMaxWords, std::max(want, 2 * words_.size())));
    words_.resize(want, 0);
  }
  words_[word - base_] |= uint64_t{1} << (seq & 63);
  return true;
}

bool SeqSet::contains(uint64_t seq) const {
  return dense_has(seq) || (!sparse_.empty() && sparse_.count(seq));
}

bool SeqSet::intersects(const SeqSet& other) const {
  for (size_t i = 0; i < other.words_.size(); ++i) {
    uint64_t w = other.words_[i];
    const uint64_t start = (other.base_ + i) * 64;
    while (w) {
      const unsigned bit = static_cast<unsigned>(__builtin_ctzll(w));
      if (contains(start + bit)) return true;
      w &= w - 1;
    }
  }
  for (uint64_t s : other.sparse_)
    if (contains(s)) return true;
  return false;
}

void SeqSet::merge(const SeqSet& other) {
  for (size_t i = 0; i < other.words_.size(); ++i) {
    uint64_t w = other.words_[i];
    const uint64_t start = (other.base_ + i) * 64;
    while (w) {
      insert(start + static_cast<unsigned>(__builtin_ctzll(w)));
      w &= w - 1;
    }
  }
  for (uint64_t s : other.sparse_) insert(s);
}

std::string OrderChecks::check(trace::RecordType type, uint64_t seq) {
  if (end_seen_)
    return std::string(trace::name(type)) + " record after the end record: expected none";
  if (seq != 0 && !seqs_.insert(seq))
    return std::string(trace::name(type)) + " record: seq " + std::to_string(seq) +
           " is used by an earlier record (expected each seq once)";
  if (type == trace::RecordType::End) end_seen_ = true;
  ++records_;
  return {};
}

bool OrderChecks::merge(const OrderChecks& later) {
  if (later.records_ == 0) return true;
  if (end_seen_ || seqs_.intersects(later.seqs_)) return false;
  seqs_.merge(later.seqs_);
  end_seen_ = later.end_seen_;
  records_ += later.records_;
  return true;
}

}  // namespace clprof::readers::detail
