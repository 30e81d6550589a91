// Bounded multi-producer / single-consumer ring of records (after Vyukov's bounded
// queue): producers claim a slot with one CAS and fill it in place, so the enqueue
// path neither locks nor allocates. Each cell also carries a "hand-back" pointer the
// consumer may leave when it frees the cell, for the producer that claims the cell next:
// a way back to the producers' threads that touches no line the producer does not
// already write.
//
// Memory: the cells are mapped anonymous memory, zero and untouched until used: a cell's
// sequence number is kept relative to its lap, so all-zero bytes are a free cell of the
// first lap and the ring costs nothing until records go through it (a process that makes
// few records never touches most of it). populate() faults pages in ahead of the producers.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

// ThreadSanitizer's annotation entry points, present only when its runtime is loaded (an
// app built with -fsanitize=thread): a release build of the shim then tells it about the
// hand-over of each slot, which it cannot see in uninstrumented code (without this, the
// app's TSan reports the shim's own producer/consumer accesses as races).
extern "C" void __tsan_acquire(void* addr) __attribute__((weak));
extern "C" void __tsan_release(void* addr) __attribute__((weak));

// LeakSanitizer's (in an app built with -fsanitize=address or =leak): the ring's cells hold
// the only pointers to some heap blocks (a record's line, an event) until the harvester
// drains them, and mapped memory is not scanned unless registered. The leak check may run
// before the shim's exit handler: a sanitizer runtime preloaded ahead of the shim is
// initialised after it and registers its check later (exit handlers run last-in first-out).
extern "C" void __lsan_register_root_region(const void* p, std::size_t size) __attribute__((weak));
extern "C" void __lsan_unregister_root_region(const void* p, std::size_t size)
    __attribute__((weak));

namespace clprof::shim {

inline void tsan_acquire(void* addr) {
  if (__tsan_acquire) __tsan_acquire(addr);
}
inline void tsan_release(void* addr) {
  if (__tsan_release) __tsan_release(addr);
}
// True when the process runs with ThreadSanitizer's runtime (an app built with it).
inline bool tsan_runtime_loaded() {
  return __tsan_acquire != nullptr;
}

template <class T>
class MpscRing {
 public:
  struct Slot {
    T* value;
    std::size_t pos;
    void* handback;  // what the consumer left in the cell (the claimer owns it), or null
  };

  // capacity: a power of two. Maps the cells (zero, touched lazily); throws std::bad_alloc
  // when it cannot.
  explicit MpscRing(std::size_t capacity) : mask_(capacity - 1) {
    void* p = ::mmap(nullptr, sizeof(Cell) * capacity, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    cells_ = static_cast<Cell*>(p);
    if (__lsan_register_root_region) __lsan_register_root_region(p, sizeof(Cell) * capacity);
  }
  ~MpscRing() {
    if (__lsan_unregister_root_region) {
      __lsan_unregister_root_region(cells_, sizeof(Cell) * (mask_ + 1));
    }
    ::munmap(cells_, sizeof(Cell) * (mask_ + 1));
  }
  MpscRing(const MpscRing&) = delete;
  MpscRing& operator=(const MpscRing&) = delete;

  // Consumer (or anyone): faults in the pages of the cells the producers will claim next, up
  // to `cells` ahead of the last claimed one, so that an enqueue does not take the page
  // fault of a fresh cell. Writes nothing (MADV_POPULATE_WRITE, Linux 5.14; a no-op
  // before): safe while producers fill those cells. Nothing until the producers have
  // claimed `once_claimed` cells (a process that makes few records keeps the rest of the
  // ring untouched). Once the whole ring was faulted in it returns at once.
  void populate(std::size_t cells, std::size_t once_claimed = 0) {
    if (populated_ > mask_) return;
    const std::size_t claimed = enqueue_.load(std::memory_order_relaxed);
    if (claimed < once_claimed) return;
    const std::size_t want = std::min(claimed + cells, mask_ + 1);
    if (want <= populated_) return;
    constexpr std::size_t kPage = 4096;
    const auto base = reinterpret_cast<std::uintptr_t>(cells_);
    const std::uintptr_t from = (base + sizeof(Cell) * populated_) & ~(kPage - 1);
    const std::uintptr_t to = base + sizeof(Cell) * want;
#ifdef MADV_POPULATE_WRITE
    ::madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);
#else
    static_cast<void>(from);
    static_cast<void>(to);
#endif
    populated_ = want;
  }

  // Producer: claims a free slot (taking the cell's hand-back), or returns
  // {nullptr, 0, nullptr} when the ring is full. Threads: any number of producers.
  Slot try_claim() {
    std::size_t pos = enqueue_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& c = cells_[pos & mask_];
      const std::size_t seq = c.seq.load(std::memory_order_acquire) + (pos & mask_);
      const auto diff = static_cast<std::ptrdiff_t>(seq) - static_cast<std::ptrdiff_t>(pos);
      if (diff == 0) {
        if (enqueue_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          void* handback = take(c.handback);
          tsan_acquire(&c);
          return {&c.value, pos, handback};
        }
      } else if (diff < 0) {
        return {nullptr, 0, nullptr};
      } else {
        pos = enqueue_.load(std::memory_order_relaxed);
      }
    }
  }

  // Producer: hands a filled slot to the consumer.
  void publish(Slot s) {
    Cell& c = cells_[s.pos & mask_];
    tsan_release(&c);
    c.seq.store(lap(s.pos) + 1, std::memory_order_release);
  }

  // Consumer: the oldest published value, or nullptr. Threads: one consumer only.
  T* front() {
    Cell& c = cells_[dequeue_ & mask_];
    if (c.seq.load(std::memory_order_acquire) != lap(dequeue_) + 1) return nullptr;
    tsan_acquire(&c);
    return &c.value;
  }
  // Producer, before the driver's call of its enqueue: starts loading the next cell's
  // header and the object a hand-back left there (its first two lines), so that the claim
  // and the hand-back's release after that call do not wait for memory the harvester and
  // the driver's threads touched last. A hint: reads only; a stale answer is harmless.
  // Measured side by side (bench/peer and interleaved enqueue_bench runs, 2026-11-29): on
  // PoCL the app thread's added CPU fell by 202-237 ns per launch in three runs (process
  // CPU and wall time within their spread); on the fake driver, whose enqueue is too short
  // to hide a load behind, it cost 24-40 ns.
  void prefetch_claim() const {
    const std::size_t pos = enqueue_.load(std::memory_order_relaxed);
    const Cell& c = cells_[pos & mask_];
    if (const void* h = c.handback.load(std::memory_order_relaxed)) {
      __builtin_prefetch(h, 1);
      __builtin_prefetch(static_cast<const char*>(h) + 64, 1);
    }
  }

  // Consumer: frees the slot returned by front(), leaving `handback` (may be null) for
  // the producer that claims the cell next. Returns a hand-back still in the cell (one
  // that offer_handback left after the cell's claimer had looked), which the consumer
  // owns again, or nullptr (the usual case).
  void* pop(void* handback = nullptr) {
    Cell& c = cells_[dequeue_ & mask_];
    void* left = take(c.handback);
    if (handback) c.handback.store(handback, std::memory_order_relaxed);
    tsan_release(&c);
    c.seq.store(lap(dequeue_) + mask_ + 1, std::memory_order_release);
    ++dequeue_;
    return left;
  }

  // Consumer: leaves `handback` in the cell freed at position `pos` (< dequeue_pos()), for
  // the producer that claims the cell next, if the cell carries none and no producer has
  // claimed it since; true if left. Best effort: a producer claiming the cell at the same
  // moment may miss it, and it then rides to the cell's next claimer, a lap later (or back
  // to the consumer with take_handback).
  bool offer_handback(std::size_t pos, void* handback) {
    if (enqueue_.load(std::memory_order_relaxed) > pos + mask_ + 1) return false;  // claimed
    void* none = nullptr;
    return cells_[pos & mask_].handback.compare_exchange_strong(
        none, handback, std::memory_order_release, std::memory_order_relaxed);
  }

  // Consumer (or, once producers are gone, anyone): takes back the hand-back left at
  // position `pos` (freed by pop, possibly claimed since), or null. Safe against a
  // producer claiming the cell at the same time: exactly one of them gets it.
  void* take_handback(std::size_t pos) {
    return take(cells_[pos & mask_].handback);
  }

  // Consumer: asks the CPU to start fetching the first `bytes` of the cell `ahead` places
  // after front()'s, if that cell is published already (one still being written is left
  // alone: fetching it would pull its lines away from the producer mid-write). A hint
  // only: nothing is read but the cell's sequence number.
  void prefetch_ahead(std::size_t ahead, std::size_t bytes) const {
    const std::size_t pos = dequeue_ + ahead;
    const Cell& c = cells_[pos & mask_];
    if (c.seq.load(std::memory_order_relaxed) != lap(pos) + 1) return;
    const char* p = reinterpret_cast<const char*>(&c);
    for (std::size_t off = 64; off < bytes; off += 64) __builtin_prefetch(p + off);
  }
  // Consumer: the value `ahead` places after front()'s if it is published, else nullptr.
  // Like front(), it stays the consumer's until popped; unlike it, it is only looked at.
  const T* peek_ahead(std::size_t ahead) {
    const std::size_t pos = dequeue_ + ahead;
    Cell& c = cells_[pos & mask_];
    if (c.seq.load(std::memory_order_acquire) != lap(pos) + 1) return nullptr;
    tsan_acquire(&c);
    return &c.value;
  }
  // Consumer: the position of the next front() (one past the last popped).
  std::size_t dequeue_pos() const {
    return dequeue_;
  }
  std::size_t capacity() const {
    return mask_ + 1;
  }

 private:
  // Cache-line aligned so a record spans as few lines as its size allows. seq is Vyukov's
  // sequence number less the cell's index, lap(pos) + state: lap(pos) free for the claim at
  // pos, + 1 published, + capacity freed (free for the next lap). Zero: free, first lap.
  struct alignas(64) Cell {
    std::atomic<std::size_t> seq;
    std::atomic<void*> handback;
    T value;
  };
  static_assert(std::is_trivially_default_constructible_v<T> && std::is_trivially_destructible_v<T>,
                "cells live in zeroed mapped memory: no constructor or destructor runs");
  static_assert(std::atomic<std::size_t>::is_always_lock_free &&
                    std::atomic<void*>::is_always_lock_free,
                "zero bytes must be a valid atomic");
  // The position of the first cell of pos's lap: Vyukov's seq of a cell less its index.
  std::size_t lap(std::size_t pos) const {
    return pos & ~mask_;
  }
  // Empties a hand-back (a plain load first: usually there is none to exchange).
  static void* take(std::atomic<void*>& handback) {
    return handback.load(std::memory_order_relaxed)
               ? handback.exchange(nullptr, std::memory_order_acquire)
               : nullptr;
  }

  Cell* cells_ = nullptr;
  const std::size_t mask_;
  std::size_t populated_ = 0;  // cells faulted in by populate() (its caller's)
  alignas(64) std::atomic<std::size_t> enqueue_{0};
  alignas(64) std::size_t dequeue_ = 0;
};

}  // namespace clprof::shim
