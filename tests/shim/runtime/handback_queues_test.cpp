// The queues of the event hand-back (runtime/handback_queues.hpp): freed cells and the
// events waiting to go back to the app's threads.
#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include "runtime/handback_queues.hpp"

using namespace clprof::shim;

TEST_CASE("freed cells: oldest first; only the last `capacity` positions are kept") {
  FreedCells f(4);
  std::size_t pos = 99;
  CHECK_FALSE(f.pop(pos));
  for (std::size_t p = 10; p < 16; ++p) f.push(p);  // 10 and 11 dropped
  CHECK(f.size() == 4);
  for (std::size_t want = 12; want < 16; ++want) {
    REQUIRE(f.pop(pos));
    CHECK(pos == want);
  }
  CHECK_FALSE(f.pop(pos));
  f.push(20);
  f.clear();
  CHECK_FALSE(f.pop(pos));
}

namespace {

std::vector<void*> g_released;
void note_release(void* e) {
  g_released.push_back(e);
}
void* event_no(std::size_t i) {
  return reinterpret_cast<void*>(0x1000 + 16 * i);
}

}  // namespace

TEST_CASE("hand-backs: first in first out; beyond kMaxWaiting an event is released at once") {
  g_released.clear();
  Handbacks h(note_release);
  CHECK(h.next() == nullptr);
  constexpr std::size_t kMax = Handbacks::kMaxWaiting;
  for (std::size_t i = 0; i < kMax + 10; ++i) h.add(event_no(i));
  CHECK(h.waiting() == kMax);
  REQUIRE(g_released.size() == 10);
  for (std::size_t i = 0; i < 10; ++i) CHECK(g_released[i] == event_no(kMax + i));
  // Taking some makes room again; order is kept across the wrap of the fixed array.
  for (std::size_t i = 0; i < 100; ++i) CHECK(h.next() == event_no(i));
  for (std::size_t i = 0; i < 100; ++i) h.add(event_no(1000 + i));
  CHECK(h.waiting() == kMax);
  CHECK(g_released.size() == 10);
  for (std::size_t i = 100; i < kMax; ++i) CHECK(h.next() == event_no(i));
  CHECK(h.next() == event_no(1000));
  h.release_all();
  CHECK(h.waiting() == 0);
  CHECK(h.next() == nullptr);
  REQUIRE(g_released.size() == 10 + 99);
  CHECK(g_released.back() == event_no(1099));
}
