#include "analyses/duration_sample.hpp"

#include "analyses/spill.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace clprof::analyses {

namespace {

std::atomic<uint64_t> g_budget{kDefaultDurationBudget};
std::atomic<uint64_t> g_resident{0};
std::atomic<uint64_t> g_spilled{0};

constexpr size_t kReadBuffer = 64 * 1024;  // bytes a spilled run's reader holds
constexpr size_t kMaxVarint = 10;          // bytes of a token (65 bits)

uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t unzigzag(uint64_t u) {
  return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
}

// The int64 value of a 128-bit sum, saturated (and noted, stats.hpp) when it does not fit.
int64_t fit(__int128 v) {
  if (v > INT64_MAX) return saturated_ns(INT64_MAX);
  if (v <= INT64_MIN) return saturated_ns(INT64_MIN + 1);
  return static_cast<int64_t>(v);
}

// The process's spill file, shared by every sample (regions reserved under its lock).
SpillFile& spill_file() {
  static SpillFile file("durations");
  return file;
}

}  // namespace

void set_duration_memory_budget(uint64_t bytes) {
  g_budget.store(bytes, std::memory_order_relaxed);
}
uint64_t duration_memory_budget() {
  return g_budget.load(std::memory_order_relaxed);
}
uint64_t duration_resident_bytes() {
  return g_resident.load(std::memory_order_relaxed);
}
uint64_t duration_spilled_bytes() {
  return g_spilled.load(std::memory_order_relaxed);
}

// A sorted run: in memory (`bytes`) or in the spill file (`offset`, `length`).
struct DurationSample::Run {
  std::vector<uint8_t> bytes;
  bool spilled = false;
  uint64_t offset = 0;
  uint64_t length = 0;  // encoded bytes
  uint64_t count = 0;   // values
  uint32_t level = 0;
  int64_t min = 0, max = 0;  // the first and last value

  ~Run() {
    if (spilled)
      spill_file().release(offset, length);
    else
      g_resident.fetch_sub(bytes.capacity(), std::memory_order_relaxed);
  }
};

namespace {

using Run = DurationSample::Run;

// The encoding of a run: tokens, each an unsigned varint of up to 65 bits. The first is the
// first value, zigzag-encoded. Each following token t is a new value t/2 above the previous
// one when t is even, or (t odd) the previous value occurring t/2 + 1 more times: a gap
// costs about what it did in 8 bytes' stead, and repeats cost a token however many they
// are (a histogram of a million equal values is two tokens).

// Reads one run's values, ascending, as (value, count) pairs.
class RunReader {
 public:
  explicit RunReader(const Run& run) : left_(run.count) {
    if (!run.spilled) {
      p_ = run.bytes.data();
      end_ = p_ + run.bytes.size();
      return;
    }
    buffer_.reset(new uint8_t[kReadBuffer]);
    file_pos_ = run.offset;
    file_end_ = run.offset + run.length;
    p_ = end_ = buffer_.get();
  }
  bool next(int64_t& value, uint64_t& count) {
    if (left_ == 0) return false;
    const unsigned __int128 t = token();
    if (first_) {
      prev_ = static_cast<uint64_t>(unzigzag(static_cast<uint64_t>(t)));
      first_ = false;
      count = 1;
    } else if (t & 1) {
      count = static_cast<uint64_t>(t >> 1) + 1;
    } else {
      prev_ += static_cast<uint64_t>(t >> 1);
      count = 1;
    }
    // A corrupt spill file (never ours) must not read past the run's count.
    count = std::min(count, left_);
    left_ -= count;
    value = static_cast<int64_t>(prev_);
    return true;
  }

 private:
  void refill() {
    const size_t kept = static_cast<size_t>(end_ - p_);
    std::memmove(buffer_.get(), p_, kept);
    const size_t want =
        static_cast<size_t>(std::min<uint64_t>(kReadBuffer - kept, file_end_ - file_pos_));
    spill_file().read(file_pos_, buffer_.get() + kept, want);
    file_pos_ += want;
    p_ = buffer_.get();
    end_ = p_ + kept + want;
  }
  unsigned __int128 token() {
    if (buffer_ && static_cast<size_t>(end_ - p_) < kMaxVarint && file_pos_ < file_end_) refill();
    unsigned __int128 u = 0;
    for (int shift = 0; p_ < end_ && shift < 70; shift += 7) {
      const uint8_t b = *p_++;
      u |= static_cast<unsigned __int128>(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    return u;
  }

  uint64_t left_;
  bool first_ = true;
  uint64_t prev_ = 0;
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  std::unique_ptr<uint8_t[]> buffer_;
  uint64_t file_pos_ = 0, file_end_ = 0;
};

// Encodes ascending values into a new run: in memory, or (`spill`) straight into a region
// of the spill file of `reserve` bytes, an upper bound of the run's encoded size.
class RunWriter {
 public:
  RunWriter(bool spill, uint64_t reserve, uint32_t level) : run_(new Run) {
    run_->level = level;
    run_->spilled = spill;
    if (spill) {
      run_->offset = spill_file().reserve(reserve);
      reserved_ = reserve;
      buffer_.reserve(kReadBuffer + 3 * kMaxVarint);
    } else {
      run_->bytes.reserve(static_cast<size_t>(reserve));
    }
  }
  ~RunWriter() {
    if (!run_) return;
    if (!run_->spilled) g_resident.fetch_add(run_->bytes.capacity(), std::memory_order_relaxed);
    run_->length = reserved_;  // the destructor gives the whole region back
  }
  // `count` (> 0) more of `value`, which is at least the previous one.
  void put(int64_t value, uint64_t count) {
    if (run_->count == 0) run_->min = value;
    run_->max = value;
    if (run_->count > 0 && value == prev_) {
      repeats_ += count;
    } else {
      end_repeats();
      if (run_->count == 0)
        token(zigzag(value));
      else
        token(static_cast<unsigned __int128>(static_cast<uint64_t>(value) -
                                             static_cast<uint64_t>(prev_))
              << 1);
      prev_ = value;
      repeats_ = count - 1;
    }
    run_->count += count;
  }
  // All of `r` (in memory; its values at least the last put): its first value as put()
  // writes it, the rest of its tokens copied as they are (they are gaps and repeats relative
  // to its own values), so that merging runs that do not overlap costs a copy.
  void append_run(const Run& r) {
    const uint8_t* p = r.bytes.data();
    const uint8_t* end = p + r.bytes.size();
    while (p < end && (*p & 0x80)) ++p;  // the first token: r.min, zigzag-encoded
    if (p < end) ++p;
    put(r.min, 1);
    end_repeats();
    std::vector<uint8_t>& out = run_->spilled ? buffer_ : run_->bytes;
    out.insert(out.end(), p, end);
    run_->count += r.count - 1;
    run_->max = r.max;
    prev_ = r.max;
    if (run_->spilled && buffer_.size() >= kReadBuffer) flush();
  }
  Run* finish() {
    end_repeats();
    if (run_->spilled) {
      flush();
      spill_file().release(run_->offset + written_, reserved_ - written_);
      run_->length = written_;
      g_spilled.fetch_add(written_, std::memory_order_relaxed);
    } else {
      if (run_->bytes.capacity() > run_->bytes.size() + run_->bytes.size() / 8)
        run_->bytes.shrink_to_fit();
      run_->length = run_->bytes.size();
      g_resident.fetch_add(run_->bytes.capacity(), std::memory_order_relaxed);
    }
    return run_.release();
  }

 private:
  void end_repeats() {
    if (repeats_ == 0) return;
    token((static_cast<unsigned __int128>(repeats_ - 1) << 1) | 1);
    repeats_ = 0;
  }
  void token(unsigned __int128 u) {
    std::vector<uint8_t>& out = run_->spilled ? buffer_ : run_->bytes;
    while (u >= 0x80) {
      out.push_back(static_cast<uint8_t>(u | 0x80));
      u >>= 7;
    }
    out.push_back(static_cast<uint8_t>(u));
    if (run_->spilled && buffer_.size() >= kReadBuffer) flush();
  }
  void flush() {
    if (written_ + buffer_.size() > reserved_)
      throw std::logic_error("duration run past its spill reservation");
    spill_file().write(run_->offset + written_, buffer_.data(), buffer_.size());
    written_ += buffer_.size();
    buffer_.clear();
  }

  std::unique_ptr<Run> run_;
  int64_t prev_ = 0;
  uint64_t repeats_ = 0;  // more of prev_ not yet written
  std::vector<uint8_t> buffer_;
  uint64_t reserved_ = 0, written_ = 0;
};

// Merges sources of ascending values (runs, and one sorted vector) into one ascending
// stream of (value, count) pairs; equal values of different sources come as separate pairs.
class Merger {
 public:
  void add_run(const Run& run) { readers_.emplace_back(run); }
  void add_sorted(std::vector<int64_t> values) { values_ = std::move(values); }
  bool next(int64_t& value, uint64_t& count) {
    if (!started_) start();
    if (heap_.empty()) return false;
    Head& top = heap_.front();
    value = top.value;
    count = top.count;
    // The source's next pair replaces the top (one sift instead of a pop and a push).
    if (!pull(top)) {
      top = heap_.back();
      heap_.pop_back();
    }
    sift_down();
    return true;
  }

 private:
  struct Head {
    int64_t value;
    uint64_t count;
    size_t source;  // index into readers_, or readers_.size(): values_
    bool before(const Head& o) const {
      return value != o.value ? value < o.value : source < o.source;
    }
  };
  bool pull(Head& h) {
    if (h.source < readers_.size()) return readers_[h.source].next(h.value, h.count);
    if (next_value_ >= values_.size()) return false;
    h.value = values_[next_value_++];
    h.count = 1;
    return true;
  }
  void start() {
    started_ = true;
    for (size_t s = 0; s <= readers_.size(); ++s) {
      Head h{0, 0, s};
      if (pull(h)) heap_.push_back(h);
    }
    for (size_t i = heap_.size() / 2; i-- > 0;) sift_down(i);
  }
  // A min-heap on (value, source).
  void sift_down(size_t i = 0) {
    const size_t n = heap_.size();
    if (n < 2) return;
    const Head moving = heap_[i];
    for (;;) {
      size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && heap_[child + 1].before(heap_[child])) ++child;
      if (!heap_[child].before(moving)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = moving;
  }

  std::vector<RunReader> readers_;
  std::vector<int64_t> values_;
  size_t next_value_ = 0;
  bool started_ = false;
  std::vector<Head> heap_;
};

}  // namespace

struct DurationSample::Cursor::State {
  Merger merger;
};

DurationSample::Cursor::Cursor(const DurationSample& sample) : state_(new State) {
  for (const Run* r : sample.runs_) state_->merger.add_run(*r);
  std::vector<int64_t> pending = sample.pending_;
  std::sort(pending.begin(), pending.end());
  state_->merger.add_sorted(std::move(pending));
}
DurationSample::Cursor::~Cursor() = default;
bool DurationSample::Cursor::next(int64_t& value_ns, uint64_t& count) {
  return state_->merger.next(value_ns, count);
}

DurationSample::DurationSample() = default;
DurationSample::~DurationSample() {
  release();
}

void DurationSample::release() {
  for (Run* r : runs_) delete r;
  runs_.clear();
}

DurationSample::DurationSample(const DurationSample& other)
    : pending_(other.pending_),
      count_(other.count_),
      sum_(other.sum_),
      min_(other.min_),
      max_(other.max_) {
  runs_.reserve(other.runs_.size());
  for (const Run* r : other.runs_) {
    const bool spill = r->spilled;
    RunWriter w(spill, r->length, r->level);
    RunReader reader(*r);
    int64_t v = 0;
    uint64_t n = 0;
    while (reader.next(v, n)) w.put(v, n);
    runs_.push_back(w.finish());
  }
}

DurationSample& DurationSample::operator=(const DurationSample& other) {
  if (this != &other) {
    DurationSample copy(other);
    *this = std::move(copy);
  }
  return *this;
}

DurationSample::DurationSample(DurationSample&& other) noexcept
    : pending_(std::move(other.pending_)),
      runs_(std::move(other.runs_)),
      count_(other.count_),
      sum_(other.sum_),
      min_(other.min_),
      max_(other.max_) {
  other.pending_.clear();
  other.runs_.clear();
  other.count_ = 0;
  other.sum_ = 0;
}

DurationSample& DurationSample::operator=(DurationSample&& other) noexcept {
  if (this != &other) {
    release();
    pending_ = std::move(other.pending_);
    runs_ = std::move(other.runs_);
    count_ = other.count_;
    sum_ = other.sum_;
    min_ = other.min_;
    max_ = other.max_;
    other.pending_.clear();
    other.runs_.clear();
    other.count_ = 0;
    other.sum_ = 0;
  }
  return *this;
}

void DurationSample::add(int64_t value_ns, uint64_t count) {
  if (count == 0) return;
  if (count_ == 0) {
    min_ = max_ = value_ns;
  } else {
    min_ = std::min(min_, value_ns);
    max_ = std::max(max_, value_ns);
  }
  count_ += count;
  sum_ += static_cast<__int128>(value_ns) * count;
  if (count < kRunValues / 16) {
    for (uint64_t i = 0; i < count; ++i) {
      pending_.push_back(value_ns);
      if (pending_.size() >= kRunValues) seal_pending();
    }
    return;
  }
  // Many of one value (a histogram's bucket): a run of its own, two tokens.
  RunWriter w(false, 2 * kMaxVarint, 0);
  w.put(value_ns, count);
  runs_.push_back(w.finish());
  compact();
}

void DurationSample::seal_pending() {
  std::sort(pending_.begin(), pending_.end());
  // A first guess of the encoded size (one or two bytes a gap); the vector grows past it.
  RunWriter w(false, pending_.size() * 2 + kMaxVarint, 0);
  for (int64_t v : pending_) w.put(v, 1);
  runs_.push_back(w.finish());
  pending_.clear();
  pending_.shrink_to_fit();
  compact();
}

// While kFanIn runs share a level, merges the first kFanIn of the lowest such level into one
// of the next level (merging can fill the next level: the loop goes on). A merged run's
// encoded size is at most the sum of its inputs' plus 10 bytes an input, the spill region's
// reservation: a value's gap in the merged run is never longer than in its own run; an
// input's first value (>= 1 byte) becomes a gap of at most 10; equal values of k inputs
// become one gap and one repeat token, whose count needs at most 1 + log2(k) bits more than
// the largest input's, fewer than the (k - 1) bytes the other inputs' tokens took.
void DurationSample::compact() {
  for (;;) {
    uint32_t level = UINT32_MAX;
    {
      std::vector<uint32_t> per_level;
      for (const Run* r : runs_) {
        if (r->level >= per_level.size()) per_level.resize(r->level + 1, 0);
        ++per_level[r->level];
      }
      for (uint32_t l = 0; l < per_level.size(); ++l)
        if (per_level[l] >= kFanIn) {
          level = l;
          break;
        }
    }
    if (level == UINT32_MAX) return;
    std::vector<Run*> group, rest;
    for (Run* r : runs_) (r->level == level && group.size() < kFanIn ? group : rest).push_back(r);
    uint64_t bound = 0;
    for (const Run* r : group) bound += r->length + kMaxVarint;
    const bool spill = duration_resident_bytes() + bound > duration_memory_budget();
    RunWriter w(spill, bound, level + 1);
    // Runs that follow each other without overlapping (timestamps read in file order, often)
    // are copied one after the other; others merge value by value.
    std::sort(group.begin(), group.end(),
              [](const Run* a, const Run* b) { return a->min < b->min; });
    bool ordered = true;
    for (size_t i = 0; i < group.size(); ++i)
      ordered = ordered && !group[i]->spilled && (i == 0 || group[i - 1]->max <= group[i]->min);
    if (ordered) {
      for (const Run* r : group) w.append_run(*r);
    } else {
      Merger merger;
      for (const Run* r : group) merger.add_run(*r);
      int64_t v = 0;
      uint64_t n = 0;
      while (merger.next(v, n)) w.put(v, n);
    }
    rest.push_back(w.finish());
    for (Run* r : group) delete r;
    runs_ = std::move(rest);
  }
}

void DurationSample::merge(DurationSample&& other) {
  if (other.count_ == 0) return;
  if (count_ == 0) {
    *this = std::move(other);
    return;
  }
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
  runs_.insert(runs_.end(), other.runs_.begin(), other.runs_.end());
  other.runs_.clear();
  for (int64_t v : other.pending_) {
    pending_.push_back(v);
    if (pending_.size() >= kRunValues) seal_pending();
  }
  other.pending_.clear();
  other.pending_.shrink_to_fit();
  other.count_ = 0;
  other.sum_ = 0;
  compact();
}

int64_t DurationSample::total_ns() const {
  return count_ ? fit(sum_) : 0;
}

namespace {

// The median of `count` values visited ascending by `c` (count > 0), as median_of rounds it.
// Also calls `each(value, n)` for every pair when `all` (else stops past the middle).
template <class Each>
int64_t median_walk(DurationSample::Cursor& c, uint64_t count, bool all, Each&& each) {
  const uint64_t upper_at = count / 2;  // 0-based position of the upper middle value
  uint64_t seen = 0;                    // values before the current pair
  int64_t lower = 0, upper = 0, v = 0;
  uint64_t n = 0;
  bool found = false;
  while (c.next(v, n)) {
    each(v, n);
    if (!found) {
      // lower: position upper_at - 1 (even counts); upper: position upper_at.
      if (upper_at >= 1 && seen <= upper_at - 1 && upper_at - 1 < seen + n) lower = v;
      if (seen <= upper_at && upper_at < seen + n) {
        upper = v;
        found = true;
        if (!all) break;
      }
    }
    seen += n;
  }
  if (count % 2) return upper;
  // The mean of two int64 always fits; half-away-from-zero rounding, as median_of.
  const __int128 sum = static_cast<__int128>(lower) + upper;
  const __int128 half = sum / 2;
  return static_cast<int64_t>(sum % 2 == 0 ? half : half + (sum > 0 ? 1 : -1));
}

}  // namespace

int64_t DurationSample::median_ns() const {
  if (count_ == 0) return 0;
  Cursor c(*this);
  return median_walk(c, count_, false, [](int64_t, uint64_t) {});
}

DurationStats DurationSample::stats() const {
  DurationStats s;
  if (count_ == 0) return s;
  s.count = count_;
  s.min_ns = min_;
  s.max_ns = max_;
  s.total_ns = fit(sum_);
  const __int128 n = static_cast<__int128>(count_);
  __int128 q = sum_ / n, r = sum_ % n;
  if (2 * (r < 0 ? -r : r) >= n) q += sum_ < 0 ? -1 : 1;
  s.mean_ns = static_cast<int64_t>(q);
  // One ascending pass: the median's middle values and the two-pass variance's sum (the
  // mean is known from the exact sum).
  const long double mean = static_cast<long double>(sum_) / static_cast<long double>(count_);
  long double sq = 0;
  Cursor c(*this);
  s.median_ns = median_walk(c, count_, true, [&sq, mean](int64_t v, uint64_t k) {
    const long double d = v - mean;
    sq += d * d * static_cast<long double>(k);
  });
  if (count_ > 1) {
    const long double sd = std::sqrt(sq / static_cast<long double>(count_ - 1));
    s.stddev_ns = sd < 9.2e18L ? static_cast<int64_t>(std::llround(sd)) : saturated_ns(INT64_MAX);
  }
  return s;
}

std::vector<int64_t> DurationSample::sorted_values() const {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(count_));
  Cursor c(*this);
  int64_t v = 0;
  uint64_t n = 0;
  while (c.next(v, n)) out.insert(out.end(), n, v);
  return out;
}

}  // namespace clprof::analyses
