// Records and their copies (recording/record.hpp): PendingCopies keeps the used part of a
// record in storage sized for it.
#include <doctest/doctest.h>

#include <cstring>
#include <memory>

#include "recording/record.hpp"

using namespace clprof::shim;

namespace {

// A launch with n arguments whose fields and argument bytes all differ.
void fill_launch(OpRecord& r, unsigned n_args, std::uint64_t salt) {
  std::memset(static_cast<void*>(&r), 0xEE, sizeof r);  // args past n_args: junk
  r.kind = RecordKind::Launch;
  r.n_args = static_cast<std::uint16_t>(n_args);
  r.total_args = static_cast<std::uint16_t>(n_args);
  r.n_ranges = 2;
  r.ranges[0] = 7;
  r.ranges[1] = 9;
  r.kernel_id = salt;
  r.gws[0] = salt * 3;
  r.host_end_ns = static_cast<std::int64_t>(salt * 5);
  r.event = &r;
  for (unsigned i = 0; i < n_args; ++i) {
    r.args[i].kind = ArgKind::Scalar;
    r.args[i].size = 8;
    for (unsigned b = 0; b < sizeof r.args[i].bytes; ++b)
      r.args[i].bytes[b] = static_cast<std::uint8_t>(salt + i + b);
  }
}

}  // namespace

TEST_CASE("pending copies: a copy keeps the used part, in storage sized for it, reused per size") {
  CHECK(PendingCopies::room_for(0) == 4);
  CHECK(PendingCopies::room_for(3) == 4);
  CHECK(PendingCopies::room_for(5) == 8);
  CHECK(PendingCopies::room_for(16) == 16);
  CHECK(PendingCopies::room_for(17) == kMaxRecordedArgs);
  CHECK(PendingCopies::bytes_for_args(kMaxRecordedArgs) == sizeof(OpRecord));
  CHECK(PendingCopies::bytes_for_args(4) * 3 < sizeof(OpRecord));
  auto slot = std::make_unique<OpRecord>();
  PendingCopies copies;
  for (unsigned n : {0u, 3u, 8u, 20u, kMaxRecordedArgs}) {
    CAPTURE(n);
    fill_launch(*slot, n, 40 + n);
    OpRecord* c = copies.copy(*slot);
    REQUIRE(c);
    CHECK(c->n_args == n);
    CHECK(c->n_ranges == 2);
    CHECK(c->ranges[1] == 9);
    CHECK(c->kernel_id == 40 + n);
    CHECK(c->gws[0] == (40 + n) * 3);
    CHECK(c->host_end_ns == static_cast<std::int64_t>((40 + n) * 5));
    CHECK(c->event == slot.get());
    for (unsigned i = 0; i < n; ++i) {
      CHECK(c->args[i].kind == ArgKind::Scalar);
      CHECK(std::memcmp(c->args[i].bytes, slot->args[i].bytes, sizeof c->args[i].bytes) == 0);
    }
    // Freed and asked again for the same size: the same storage; another size: other storage.
    copies.recycle(c);
    OpRecord* again = copies.copy(*slot);
    CHECK(again == c);
    fill_launch(*slot, n < 4 ? 30 : 1, 1);
    OpRecord* other = copies.copy(*slot);
    CHECK(other != c);
    copies.recycle(again);
    copies.recycle(other);
  }
}
