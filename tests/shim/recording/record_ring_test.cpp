// The bounded multi-producer ring (recording/record_ring.hpp): every record arrives once,
// a full ring refuses, peek_ahead shows only what is published, hand-backs reach the next
// claimer of their cell, populate faults in only what it is asked to, when it is asked to.
#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "recording/record_ring.hpp"

using namespace clprof::shim;

namespace {

// Claims a cell (the claim must succeed) and publishes it; returns the claim (its cell).
template <class T>
auto claim_and_publish(MpscRing<T>& ring) {
  auto c = ring.try_claim();
  REQUIRE(c.value);
  ring.publish(c);
  return c;
}

}  // namespace

TEST_CASE("ring: every item from many producers arrives exactly once") {
  struct Item {
    int producer;
    int index;
  };
  MpscRing<Item> ring(64);  // small, so producers meet a full ring often
  constexpr int kProducers = 4;
  constexpr int kPerProducer = 20000;
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&ring, p] {
      for (int i = 0; i < kPerProducer; ++i) {
        auto slot = ring.try_claim();
        while (!slot.value) {
          std::this_thread::yield();
          slot = ring.try_claim();
        }
        slot.value->producer = p;
        slot.value->index = i;
        ring.publish(slot);
      }
    });
  }
  std::vector<int> next(kProducers, 0);
  int received = 0;
  bool in_order = true;
  while (received < kProducers * kPerProducer) {
    if (Item* it = ring.front()) {
      // One producer's items keep their order.
      if (it->index != next[it->producer]) in_order = false;
      next[it->producer] = it->index + 1;
      ring.pop();
      ++received;
    } else {
      std::this_thread::yield();
    }
  }
  for (auto& t : producers) t.join();
  CHECK(in_order);
  CHECK(ring.front() == nullptr);
  for (int p = 0; p < kProducers; ++p) CHECK(next[p] == kPerProducer);
}

TEST_CASE("ring: full ring refuses, then accepts after a pop") {
  MpscRing<int> ring(2);
  auto a = claim_and_publish(ring);
  auto b = claim_and_publish(ring);
  CHECK(ring.try_claim().value == nullptr);
  REQUIRE(ring.front());
  ring.pop();
  CHECK(ring.try_claim().value != nullptr);
}

TEST_CASE("ring: peek_ahead shows a published value ahead of front, not one being written") {
  MpscRing<int> ring(4);
  auto first = ring.try_claim();
  auto second = ring.try_claim();
  auto third = ring.try_claim();
  REQUIRE((first.value && second.value && third.value));
  *first.value = 1;
  *second.value = 2;
  *third.value = 3;
  ring.publish(first);
  ring.publish(third);  // the second is still being written
  CHECK(ring.peek_ahead(1) == nullptr);
  ring.publish(second);
  const int* next = ring.peek_ahead(1);
  REQUIRE(next);
  CHECK(*next == 2);
  REQUIRE(ring.peek_ahead(2));
  CHECK(*ring.peek_ahead(2) == 3);
  CHECK(ring.peek_ahead(3) == nullptr);  // never claimed
  // Looking takes nothing: front() still gives the values in order.
  for (int want = 1; want <= 3; ++want) {
    REQUIRE(ring.front());
    CHECK(*ring.front() == want);
    ring.pop();
  }
  CHECK(ring.peek_ahead(1) == nullptr);
  // A lap later the cells' old values are not shown as published.
  auto again = claim_and_publish(ring);
  CHECK(ring.peek_ahead(1) == nullptr);
  REQUIRE(ring.front());
}

TEST_CASE("ring: a hand-back left at pop goes to the next claimer of that cell, once") {
  MpscRing<int> ring(2);
  int token_a = 0, token_b = 0;
  auto s0 = ring.try_claim();  // position 0, cell 0
  REQUIRE(s0.value);
  CHECK(s0.handback == nullptr);
  ring.publish(s0);
  REQUIRE(ring.front());
  ring.pop(&token_a);          // cell 0 freed, carrying token_a
  auto s1 = ring.try_claim();  // position 1, cell 1: nothing there
  REQUIRE(s1.value);
  CHECK(s1.handback == nullptr);
  ring.publish(s1);
  auto s2 = ring.try_claim();  // position 2, cell 0 again
  REQUIRE(s2.value);
  CHECK(s2.handback == &token_a);
  ring.publish(s2);
  CHECK(ring.take_handback(0) == nullptr);  // the claimer took it already
  REQUIRE(ring.front());
  ring.pop(&token_b);  // position 1 -> cell 1
  CHECK(ring.dequeue_pos() == 2);
  CHECK(ring.take_handback(1) == &token_b);  // the consumer takes it back itself
  CHECK(ring.take_handback(1) == nullptr);
  REQUIRE(ring.front());
  ring.pop();
  auto s3 = ring.try_claim();  // position 3, cell 1: taken back, so empty
  REQUIRE(s3.value);
  CHECK(s3.handback == nullptr);
}

TEST_CASE("ring: a hand-back offered to a freed cell later reaches its next claimer") {
  MpscRing<int> ring(4);
  int token_a = 0, token_b = 0, token_c = 0;
  for (int i = 0; i < 2; ++i) {  // positions 0 and 1, freed without hand-backs
    auto s = claim_and_publish(ring);
    REQUIRE(ring.front());
    CHECK(ring.pop() == nullptr);
  }
  CHECK(ring.offer_handback(0, &token_a));
  CHECK_FALSE(ring.offer_handback(0, &token_b));  // one per cell
  // Positions 2, 3, then 4 = cell 0 again: its claimer takes token_a.
  std::vector<MpscRing<int>::Slot> slots;
  for (int i = 0; i < 3; ++i) {
    slots.push_back(ring.try_claim());
    REQUIRE(slots.back().value);
  }
  CHECK(slots[2].pos == 4);
  CHECK(slots[2].handback == &token_a);
  // Cell 1, freed at position 1, is claimed next at position 5, not yet: an offer lands.
  CHECK(ring.offer_handback(1, &token_b));
  // A cell claimed since it was freed (position 0 -> claimed as 4) takes no offer.
  CHECK_FALSE(ring.offer_handback(0, &token_c));
  for (auto& s : slots) ring.publish(s);
  // (An offer that lands just after a claimer looked would come back from pop(); that
  // needs two threads at the same moment, which this test does not stage.)
  REQUIRE(ring.front());
  CHECK(ring.pop() == nullptr);  // position 2
  auto s5 = ring.try_claim();    // position 5, cell 1: takes token_b
  REQUIRE(s5.value);
  CHECK(s5.handback == &token_b);
  ring.publish(s5);
  REQUIRE(ring.front());
  CHECK(ring.pop() == nullptr);  // position 3
  REQUIRE(ring.front());
  CHECK(ring.pop() == nullptr);  // position 4 (cell 0): token_a went to its claimer
}

TEST_CASE("ring: populate faults in cells ahead of the producers, once they claimed enough") {
  struct Page {  // one cell per page or more, so each cell's residency can be asked
    char bytes[4096];
  };
  MpscRing<Page> ring(64);
  auto first = claim_and_publish(ring);
  auto second = claim_and_publish(ring);
  const auto stride = reinterpret_cast<std::uintptr_t>(second.value) -
                      reinterpret_cast<std::uintptr_t>(first.value);
  REQUIRE(stride >= sizeof(Page));
  // Whether the page of the value of the cell `k` places after the first is resident.
  const long page = ::sysconf(_SC_PAGESIZE);
  auto resident = [&](std::size_t k) {
    const auto addr = (reinterpret_cast<std::uintptr_t>(first.value) + k * stride) &
                      ~static_cast<std::uintptr_t>(page - 1);
    unsigned char in = 0;
    REQUIRE(::mincore(reinterpret_cast<void*>(addr), 1, &in) == 0);
    return (in & 1) != 0;
  };
  CHECK_FALSE(resident(20));
  ring.populate(32, /*once_claimed=*/3);  // two claimed: not yet
  CHECK_FALSE(resident(20));
  ring.populate(32, /*once_claimed=*/2);
  if (!resident(20)) {
    MESSAGE("MADV_POPULATE_WRITE had no effect (a kernel before 5.14): nothing to check");
    return;
  }
  CHECK(resident(33));        // 2 claimed + 32 ahead: cells up to 33
  CHECK_FALSE(resident(40));  // not beyond
}
