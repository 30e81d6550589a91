// The two queues of the event hand-back (runtime/handback.hpp says why and how): events
// waiting to go back to the app's threads, and ring cells freed without one. Plain data:
// no OpenCL calls of their own (unit-tested).
#pragma once

#include <cstddef>
#include <memory>

namespace clprof::shim {

// A first-in first-out queue of at most kMaxWaiting events, in a fixed array: an event
// added when it is full is released at once instead. Not thread-safe (the harvester's,
// then the finaliser's).
class Handbacks {
 public:
  static constexpr std::size_t kMaxWaiting = 256;
  using Release = void (*)(void* event);

  // `release`: lets go of one event (the shim's clReleaseEvent).
  explicit Handbacks(Release release) : release_(release) {}

  // Queues `event` to be handed back, or releases it when kMaxWaiting already wait.
  void add(void* event) {
    if (count_ == kMaxWaiting) {
      release_(event);
      return;
    }
    events_[(head_ + count_) % kMaxWaiting] = event;
    ++count_;
  }
  // The oldest waiting event, taken off the queue (the caller owns it), or nullptr.
  void* next() {
    if (count_ == 0) return nullptr;
    void* event = events_[head_];
    head_ = (head_ + 1) % kMaxWaiting;
    --count_;
    return event;
  }
  // Releases every waiting event.
  void release_all() {
    while (void* event = next()) release_(event);
  }
  std::size_t waiting() const { return count_; }

 private:
  Release release_;
  void* events_[kMaxWaiting] = {};
  std::size_t head_ = 0;
  std::size_t count_ = 0;
};

// Ring positions the harvester freed without leaving a hand-back in the cell, oldest
// first: an event that completes later can still ride in one of those cells (the
// producer that claims it next takes it). Holds the last `capacity` positions (a power
// of two); older ones are dropped, their cells having been claimed again by then. Not
// thread-safe (the harvester's).
class FreedCells {
 public:
  explicit FreedCells(std::size_t capacity)
      : positions_(new std::size_t[capacity]), mask_(capacity - 1) {}
  void push(std::size_t pos) {
    if (end_ - begin_ > mask_) ++begin_;  // full: drop the oldest
    positions_[end_++ & mask_] = pos;
  }
  // The oldest position, taken off; false when there is none.
  bool pop(std::size_t& pos) {
    if (begin_ == end_) return false;
    pos = positions_[begin_++ & mask_];
    return true;
  }
  void clear() { begin_ = end_; }
  std::size_t size() const { return end_ - begin_; }

 private:
  std::unique_ptr<std::size_t[]> positions_;
  std::size_t mask_;
  std::size_t begin_ = 0, end_ = 0;  // counters; positions_[i & mask_] for i in [begin_, end_)
};

}  // namespace clprof::shim
