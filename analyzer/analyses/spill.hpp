// Bounded-memory storage shared by the analyses that would otherwise grow with the trace:
// an unlinked temporary file, a log of fixed-size records on it, and an external merge sort.
//
// SpillFile: an unlinked temporary file in $TMPDIR (or /tmp; O_TMPFILE where the file system
// has it), created on the first reserve or append and gone from the directory at once, so its
// space is given back when it closes (or the process ends). Regions are reserved, then written
// and read at their offsets; release punches a region's space out (best effort). A failed
// create, write or read throws std::runtime_error: "cannot spill <what> to disk (writing
// /tmp): No space left on device; set TMPDIR to a directory with free space".
//
// RecordLog<Rec>: appends records (trivially copyable) in order; keeps up to 256 KiB
// (SpillLimits::log_bytes) in memory, the rest on its SpillFile; for_each visits them in append
// order. Logs are moved, never copied.
//
// ExternalSort<Rec, Less>: push records, then for_each visits them in Less order (which must
// be a strict total order on the records pushed: callers break ties by file position).
// Up to `budget` bytes (SpillLimits::sort_bytes, 32 MiB) are sorted in memory; past that, sorted
// runs go to a SpillFile and are merged through a 64 KiB buffer each (about budget / sizeof(Rec)
// records a run, so a few dozen runs for the 4 GB trace's ~8.5 M commands at 32 MiB). Memory: the
// budget plus the merge buffers, whatever the number of records.
//
// Threads: SpillFile's reserve, append, write, read and release may be called from any thread
// (writes and reads of disjoint regions); RecordLog, SpillReader and ExternalSort have one
// owner at a time (a reading thread, then the merging thread). Units: bytes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace clprof::analyses {

class SpillFile {
 public:
  // `what` names the spilled data in errors ("advise's records", "kernel durations").
  explicit SpillFile(std::string what) : what_(std::move(what)) {}
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;
  ~SpillFile();
  // A region of `bytes` bytes of its own (opens the file on first use); returns its offset.
  uint64_t reserve(uint64_t bytes);
  // Reserves `bytes` and writes `data` there; returns the offset.
  uint64_t append(const void* data, size_t bytes) {
    const uint64_t at = reserve(bytes);
    write(at, data, bytes);
    return at;
  }
  void write(uint64_t offset, const void* data, size_t bytes) const;
  void read(uint64_t offset, void* data, size_t bytes) const;
  // Gives a region's disk space back (best effort: a file system without hole punching keeps
  // it until the file closes).
  void release(uint64_t offset, uint64_t bytes) const;
  uint64_t size() const;  // bytes reserved so far

 private:
  void open_file();  // under mutex_
  [[noreturn]] void fail(const std::string& doing, int error) const;
  template <class Io>
  void whole(const char* doing, int zero_error, uint64_t offset, char* data, size_t bytes,
             Io&& io) const;

  std::string what_;
  mutable std::mutex mutex_;
  int fd_ = -1;
  uint64_t end_ = 0;
  std::string dir_;
};

// Reads `count` records of a file from `at` through a buffer of about 64 KiB.
template <typename Rec>
class SpillReader {
 public:
  SpillReader(const SpillFile* file, uint64_t at, uint64_t count)
      : file_(file), at_(at), left_(count) {}
  // The next record, or nullptr at the end.
  const Rec* next() {
    if (pos_ == buf_.size()) {
      if (left_ == 0) return nullptr;
      const size_t n = static_cast<size_t>(std::min<uint64_t>(left_, kChunk));
      buf_.resize(n);
      file_->read(at_, buf_.data(), n * sizeof(Rec));
      at_ += n * sizeof(Rec);
      left_ -= n;
      pos_ = 0;
    }
    return &buf_[pos_++];
  }

 private:
  static constexpr size_t kChunk = std::max<size_t>(1, (size_t{64} << 10) / sizeof(Rec));
  const SpillFile* file_;
  uint64_t at_, left_;
  std::vector<Rec> buf_;
  size_t pos_ = 0;
};

// The bytes a RecordLog keeps in memory, and an ExternalSort sorts in memory at a time.
// Tests lower them (set_spill_limits) to make every log and sort go through the file; set
// them before any log or sort is made, from one thread.
struct SpillLimits {
  size_t log_bytes = size_t{256} << 10;
  uint64_t sort_bytes = uint64_t{32} << 20;
};
inline SpillLimits& spill_limits() {
  static SpillLimits limits;
  return limits;
}
inline void set_spill_limits(SpillLimits l) {
  spill_limits() = l;
}

template <typename Rec>
class RecordLog {
  static_assert(std::is_trivially_copyable_v<Rec>);

 public:
  // `what` names the records in a spill error.
  explicit RecordLog(const char* what = "records") : what_(what) {}
  void push(const Rec& r) {
    if (tail_.size() >= cap_) flush();
    if (tail_.capacity() == 0) tail_.reserve(cap_ + 1);
    tail_.push_back(r);
  }
  uint64_t size() const { return spilled_ + tail_.size(); }
  template <typename F>
  void for_each(F&& f) const {
    if (spilled_) {
      SpillReader<Rec> in(file_.get(), 0, spilled_);
      while (const Rec* r = in.next()) f(*r);
    }
    for (const Rec& r : tail_) f(r);
  }

 private:
  void flush() {
    if (!file_) file_ = std::make_unique<SpillFile>(what_);
    file_->append(tail_.data(), tail_.size() * sizeof(Rec));
    spilled_ += tail_.size();
    tail_.clear();
  }
  const char* what_;
  size_t cap_ = std::max<size_t>(1, spill_limits().log_bytes / sizeof(Rec));
  std::unique_ptr<SpillFile> file_;
  uint64_t spilled_ = 0;  // records on file_, from offset 0
  std::vector<Rec> tail_;
};

template <typename Rec, typename Less>
class ExternalSort {
  static_assert(std::is_trivially_copyable_v<Rec>);

 public:
  explicit ExternalSort(Less less = Less(), uint64_t budget = spill_limits().sort_bytes,
                        const char* what = "sorted records")
      : less_(less), cap_(std::max<uint64_t>(2, budget / sizeof(Rec))), file_(what) {}
  void push(const Rec& r) {
    if (buf_.size() >= cap_) spill();
    // Small sorts stay small; a large one grows to its budget once.
    if (buf_.capacity() == 0) buf_.reserve(std::min<uint64_t>(cap_, 4096));
    if (buf_.size() == buf_.capacity()) buf_.reserve(cap_);
    buf_.push_back(r);
  }
  uint64_t size() const { return spilled_ + buf_.size(); }
  // Visits every record in Less order (once: the records are consumed).
  template <typename F>
  void for_each(F&& f) {
    std::sort(buf_.begin(), buf_.end(), less_);
    if (runs_.empty()) {
      for (const Rec& r : buf_) f(r);
      std::vector<Rec>().swap(buf_);
      return;
    }
    spill();
    std::vector<Rec>().swap(buf_);
    std::vector<SpillReader<Rec>> in;
    in.reserve(runs_.size());
    // A heap of the runs' current records (indices into `in`), smallest on top.
    std::vector<std::pair<Rec, size_t>> heap;
    for (const auto& [at, n] : runs_) {
      in.emplace_back(&file_, at, n);
      if (const Rec* r = in.back().next()) heap.emplace_back(*r, in.size() - 1);
    }
    auto greater = [this](const std::pair<Rec, size_t>& a, const std::pair<Rec, size_t>& b) {
      return less_(b.first, a.first);
    };
    std::make_heap(heap.begin(), heap.end(), greater);
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), greater);
      auto& top = heap.back();
      f(static_cast<const Rec&>(top.first));
      if (const Rec* r = in[top.second].next()) {
        top.first = *r;
        std::push_heap(heap.begin(), heap.end(), greater);
      } else {
        heap.pop_back();
      }
    }
  }

 private:
  void spill() {
    if (buf_.empty()) return;
    std::sort(buf_.begin(), buf_.end(), less_);
    runs_.emplace_back(file_.append(buf_.data(), buf_.size() * sizeof(Rec)), buf_.size());
    spilled_ += buf_.size();
    buf_.clear();
  }
  Less less_;
  uint64_t cap_;
  std::vector<Rec> buf_;
  SpillFile file_;
  std::vector<std::pair<uint64_t, uint64_t>> runs_;  // (offset, records)
  uint64_t spilled_ = 0;
};

}  // namespace clprof::analyses
