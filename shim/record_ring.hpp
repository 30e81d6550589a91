// Bounded multi-producer / single-consumer ring of records (after Vyukov's bounded
// queue): producers claim a slot with one CAS and fill it in place, so the enqueue
// path neither locks nor allocates.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstring>
#include <memory>

namespace clprof::shim {

template <class T>
class MpscRing {
 public:
  struct Slot {
    T* value;
    std::size_t pos;
  };

  // capacity: a power of two. Allocates and touches all slots now, so the enqueue
  // path never takes a page fault on a fresh slot.
  explicit MpscRing(std::size_t capacity) : cells_(new Cell[capacity]), mask_(capacity - 1) {
    std::memset(static_cast<void*>(cells_.get()), 0, sizeof(Cell) * capacity);
    for (std::size_t i = 0; i < capacity; ++i) cells_[i].seq.store(i, std::memory_order_relaxed);
  }

  // Producer: claims a free slot, or returns {nullptr, 0} when the ring is full.
  // Threads: any number of producers.
  Slot try_claim() {
    std::size_t pos = enqueue_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& c = cells_[pos & mask_];
      const std::size_t seq = c.seq.load(std::memory_order_acquire);
      const auto diff = static_cast<std::ptrdiff_t>(seq) - static_cast<std::ptrdiff_t>(pos);
      if (diff == 0) {
        if (enqueue_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          return {&c.value, pos};
        }
      } else if (diff < 0) {
        return {nullptr, 0};
      } else {
        pos = enqueue_.load(std::memory_order_relaxed);
      }
    }
  }

  // Producer: hands a filled slot to the consumer.
  void publish(Slot s) { cells_[s.pos & mask_].seq.store(s.pos + 1, std::memory_order_release); }

  // Consumer: the oldest published value, or nullptr. Threads: one consumer only.
  T* front() {
    Cell& c = cells_[dequeue_ & mask_];
    return c.seq.load(std::memory_order_acquire) == dequeue_ + 1 ? &c.value : nullptr;
  }
  // Consumer: frees the slot returned by front().
  void pop() {
    cells_[dequeue_ & mask_].seq.store(dequeue_ + mask_ + 1, std::memory_order_release);
    ++dequeue_;
  }

 private:
  // Cache-line aligned so a record spans as few lines as its size allows.
  struct alignas(64) Cell {
    std::atomic<std::size_t> seq;
    T value;
  };
  std::unique_ptr<Cell[]> cells_;
  const std::size_t mask_;
  alignas(64) std::atomic<std::size_t> enqueue_{0};
  alignas(64) std::size_t dequeue_ = 0;
};

}  // namespace clprof::shim
