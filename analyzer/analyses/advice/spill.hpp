// Bounded-memory storage for `clprof advise`'s ordered rules (commands.hpp): a log of fixed-size
// records on an unlinked temporary file, and an external merge sort over such records.
//
// SpillFile: an unlinked temporary file in $TMPDIR (or /tmp), written and read at explicit
// offsets. Created on the first write; removed from the directory at once, so the space is
// given back when the last owner closes it (or the process ends). A failed create, write or
// read throws std::runtime_error naming the reason ("set TMPDIR to a directory with space").
//
// RecordLog<Rec>: appends records (trivially copyable) in order; keeps up to 256 KiB
// (SpillLimits::log_bytes) in memory, the rest on its SpillFile; for_each visits them in append
// order. Logs are moved, never copied.
//
// ExternalSort<Rec, Less>: push records, then for_each visits them in Less order (which must
// be a strict total order on the records pushed: the callers break ties by file position).
// Up to `budget` bytes (SpillLimits::sort_bytes, 32 MiB) are sorted in memory; past that, sorted
// runs go to a SpillFile and are merged through a 64 KiB buffer each (about budget / sizeof(Rec)
// records a run, so a few dozen runs for the 4 GB trace's ~8.5 M commands at 32 MiB). Memory: the
// budget plus the merge buffers, whatever the number of records.
//
// Threads: none of these is thread-safe; one owner at a time (a reading thread's Commands,
// then the merging thread). Units: bytes.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace clprof::analyses::advice {

class SpillFile {
 public:
  SpillFile() = default;
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;
  ~SpillFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  // Appends `n` bytes; returns their offset.
  uint64_t append(const void* data, size_t n) {
    open();
    const uint64_t at = size_;
    const char* p = static_cast<const char*>(data);
    for (size_t done = 0; done < n;) {
      const ssize_t w = ::pwrite(fd_, p + done, n - done, static_cast<off_t>(at + done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) fail("write to", errno ? errno : ENOSPC);
      done += static_cast<size_t>(w);
    }
    size_ += n;
    return at;
  }
  void read(uint64_t at, void* data, size_t n) const {
    char* p = static_cast<char*>(data);
    for (size_t done = 0; done < n;) {
      const ssize_t r = ::pread(fd_, p + done, n - done, static_cast<off_t>(at + done));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) fail("read from", r == 0 ? EIO : errno);
      done += static_cast<size_t>(r);
    }
  }
  uint64_t size() const { return size_; }

 private:
  void open() {
    if (fd_ >= 0) return;
    const char* dir = std::getenv("TMPDIR");
    std::string path = std::string(dir && *dir ? dir : "/tmp") + "/clprof-advise-XXXXXX";
    fd_ = ::mkstemp(path.data());
    if (fd_ < 0) fail("create", errno);
    ::unlink(path.c_str());
  }
  [[noreturn]] static void fail(const char* what, int err) {
    throw std::runtime_error(std::string("advise: cannot ") + what + " its temporary file: " +
                             std::strerror(err) + "; set TMPDIR to a directory with free space");
  }
  int fd_ = -1;
  uint64_t size_ = 0;
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
    if (!file_) file_ = std::make_unique<SpillFile>();
    file_->append(tail_.data(), tail_.size() * sizeof(Rec));
    spilled_ += tail_.size();
    tail_.clear();
  }
  size_t cap_ = std::max<size_t>(1, spill_limits().log_bytes / sizeof(Rec));
  std::unique_ptr<SpillFile> file_;
  uint64_t spilled_ = 0;  // records on file_, from offset 0
  std::vector<Rec> tail_;
};

template <typename Rec, typename Less>
class ExternalSort {
  static_assert(std::is_trivially_copyable_v<Rec>);

 public:
  explicit ExternalSort(Less less = Less(), uint64_t budget = spill_limits().sort_bytes)
      : less_(less), cap_(std::max<uint64_t>(2, budget / sizeof(Rec))) {}
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

}  // namespace clprof::analyses::advice
