// The progress line's text (output/progress.hpp); when it is shown is tested on a real
// terminal in tests/analyzer/cli/long_work_test.cpp.
#include <doctest/doctest.h>

#include "output/progress.hpp"

using clprof::output::ReadProgress;

TEST_CASE("progress line: bytes, share, rate and time left") {
  const uint64_t mib = 1 << 20;
  CHECK(ReadProgress::line(0, 4096 * mib, 0) == "reading 0 MiB of 4.0 GiB (0%)");
  // 1 GiB in 2 s: 512 MiB/s, 3 GiB left = 6 s.
  CHECK(ReadProgress::line(1024 * mib, 4096 * mib, 2.0) ==
        "reading 1.0 GiB of 4.0 GiB (25%), 512 MiB/s, 6 s left");
  CHECK(ReadProgress::line(300 * mib, 600 * mib, 1.0) ==
        "reading 300 MiB of 600 MiB (50%), 300 MiB/s, 1 s left");
  // No rate in the first half second; never past the total.
  CHECK(ReadProgress::line(10 * mib, 600 * mib, 0.2) == "reading 10 MiB of 600 MiB (2%)");
  CHECK(ReadProgress::line(700 * mib, 600 * mib, 3.0) ==
        "reading 600 MiB of 600 MiB (100%), 200 MiB/s, 0 s left");
}

TEST_CASE("progress line: once everything is read, the analysis phase") {
  const uint64_t mib = 1 << 20;
  // 40 s since the start, everything read 30 s ago: read in 10 s, analysing for 30 s.
  CHECK(ReadProgress::line(4096 * mib, 4096 * mib, 40.0, 30.0) ==
        "read 4.0 GiB in 10 s; analysing (30 s)");
  CHECK(ReadProgress::line(600 * mib, 600 * mib, 1.0, 0.0) ==
        "read 600 MiB in 1 s; analysing (0 s)");
}
