// A thread's stack of open ranges (recording/range_stack.hpp).
#include <doctest/doctest.h>

#include "recording/range_stack.hpp"

using namespace clprof::shim;

TEST_CASE("range stack: push, pop, outermost first") {
  RangeStack s;
  bool open = true;
  CHECK(s.pop(open) == 0);
  CHECK_FALSE(open);  // unbalanced pop is reported, not fatal
  s.push(1);
  s.push(2);
  s.push(3);
  CHECK(s.top() == 3);
  std::uint32_t ids[2];
  CHECK(s.copy_outermost(ids, 2) == 2);
  CHECK(ids[0] == 1);
  CHECK(ids[1] == 2);
  CHECK(s.pop(open) == 3);
  CHECK(open);
  CHECK(s.top() == 2);
  CHECK(s.depth() == 2);
}

TEST_CASE("range stack: nesting deeper than the capacity is counted, not stored") {
  RangeStack s;
  for (std::uint32_t i = 1; i <= RangeStack::kCapacity + 2; ++i) s.push(i);
  CHECK(s.depth() == RangeStack::kCapacity + 2);
  CHECK(s.stored() == RangeStack::kCapacity);
  CHECK(s.top() == 0);
  bool open = false;
  CHECK(s.pop(open) == 0);
  CHECK(open);
  CHECK(s.pop(open) == 0);
  CHECK(s.pop(open) == RangeStack::kCapacity);
  CHECK(s.top() == RangeStack::kCapacity - 1);
}
