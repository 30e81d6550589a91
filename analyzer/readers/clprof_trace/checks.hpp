// Internal to the clprof trace reader: the checks that depend on the order of records in
// a file, which no single record can fail on its own: a record after the end record, and
// a seq (one per-process counter over launch, transfer and sync records) used twice.
// A reading thread keeps its own OrderChecks for the lines it reads; merging them in file
// order tells whether another thread's records would have failed (then the caller reads
// the file again in order). One owner at a time.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "clprof/trace_schema.hpp"

namespace clprof::readers::detail {

// A set of seq numbers: a bitset over the span they cover (1 bit each: a trace's seqs
// go from 1 without gaps), and a hash set for a value far outside it (hostile input).
class SeqSet {
 public:
  // Adds `seq`; false if it was there already.
  bool insert(uint64_t seq);
  bool contains(uint64_t seq) const;
  // True if some value is in both sets.
  bool intersects(const SeqSet& other) const;
  // Adds every value of `other`.
  void merge(const SeqSet& other);

 private:
  // At most this many words of bitset (134 million seqs in 16 MiB).
  static constexpr uint64_t kMaxWords = uint64_t{1} << 21;
  bool dense_has(uint64_t seq) const {
    const uint64_t word = seq >> 6;
    if (words_.empty() || word < base_ || word - base_ >= words_.size()) return false;
    return words_[word - base_] >> (seq & 63) & 1;
  }
  std::vector<uint64_t> words_;  // words_[i] holds seqs (base_ + i) * 64 ... + 63
  uint64_t base_ = 0;            // the word of the first seq covered
  std::unordered_set<uint64_t> sparse_;
};

class OrderChecks {
 public:
  // Checks the next accepted record (of type `type`, with seq `seq`, 0 = none) in file
  // order: "" if it may be kept, else why it must be skipped.
  std::string check(trace::RecordType type, uint64_t seq);
  // Takes in the checks of the records that follow this one's in the file; false if one
  // of them would have failed with this one's records before it (a repeated seq, a record
  // after this one's end record): then the tallies are wrong and the file must be read
  // again in order.
  bool merge(const OrderChecks& later);
  bool end_seen() const { return end_seen_; }

 private:
  SeqSet seqs_;
  bool end_seen_ = false;
  uint64_t records_ = 0;  // records accepted
};

}  // namespace clprof::readers::detail
