// analyses/spill.hpp: the spill file, the record log and the external sort behind advise's
// ordered rules and the exact durations. Limits are lowered so that the file paths (spilled
// logs, several sorted runs merged) run; expected values by hand in the comments.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyses/spill.hpp"

using namespace clprof::analyses;

namespace {

struct Less {
  bool operator()(int64_t a, int64_t b) const { return a < b; }
};

// Sets the spill limits for one scope, then puts the defaults back.
struct Limits {
  explicit Limits(SpillLimits l) : saved(spill_limits()) { set_spill_limits(l); }
  ~Limits() { set_spill_limits(saved); }
  SpillLimits saved;
};

}  // namespace

TEST_CASE("spill: an external sort merges its runs in order") {
  // A budget of 16 bytes holds 2 values: 5, 3 | 9, 1 | 7 become the runs [3, 5], [1, 9] and,
  // at the end, [7]; merged: 1 3 5 7 9.
  ExternalSort<int64_t, Less> s(Less(), 16);
  for (int64_t v : {5, 3, 9, 1, 7}) s.push(v);
  CHECK(s.size() == 5);
  std::vector<int64_t> out;
  s.for_each([&](int64_t v) { out.push_back(v); });
  CHECK(out == std::vector<int64_t>{1, 3, 5, 7, 9});

  // In memory (one run, never written): the same order.
  ExternalSort<int64_t, Less> small(Less(), 1 << 20);
  for (int64_t v : {5, 3, 9, 1, 7}) small.push(v);
  out.clear();
  small.for_each([&](int64_t v) { out.push_back(v); });
  CHECK(out == std::vector<int64_t>{1, 3, 5, 7, 9});

  // 100,000 values (a linear congruential sequence, repeats included) through runs of 1,000
  // values: what std::sort gives.
  ExternalSort<int64_t, Less> big(Less(), 8000);
  std::vector<int64_t> all;
  uint64_t x = 12345;
  for (int i = 0; i < 100000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t v = static_cast<int64_t>(x >> 40) - (int64_t{1} << 23);
    all.push_back(v);
    big.push(v);
  }
  std::sort(all.begin(), all.end());
  out.clear();
  big.for_each([&](int64_t v) { out.push_back(v); });
  CHECK(out == all);
}

TEST_CASE("spill: a record log gives its records back in order") {
  // 16 bytes in memory: 2 values; 0..9 pushed, 8 of them written to the file (flushed two
  // at a time), the last 2 in memory: 0..9 in order.
  Limits limits({16, 16});
  RecordLog<int64_t> log;
  for (int64_t v = 0; v < 10; ++v) log.push(v);
  CHECK(log.size() == 10);
  std::vector<int64_t> out;
  log.for_each([&](int64_t v) { out.push_back(v); });
  CHECK(out == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  // Moved (as Commands::merge moves the reading threads' logs): the same records.
  RecordLog<int64_t> moved = std::move(log);
  out.clear();
  moved.for_each([&](int64_t v) { out.push_back(v); });
  CHECK(out.size() == 10);
  CHECK(out.back() == 9);
}

TEST_CASE("spill: a spill file's regions read back as written, at their offsets") {
  SpillFile file("test records");
  CHECK(file.size() == 0);
  const char a[] = "abc";         // 4 bytes with the NUL
  const char b[] = "0123456789";  // 11 bytes
  const uint64_t at_a = file.append(a, sizeof a);
  const uint64_t at_b = file.reserve(sizeof b);
  CHECK(at_a == 0);
  CHECK(at_b == 4);  // reserved right after a's 4 bytes
  CHECK(file.size() == 15);
  file.write(at_b, b, sizeof b);
  char back[11] = {};
  file.read(at_b + 2, back, 3);  // "234"
  CHECK(std::string(back, 3) == "234");
  file.release(at_a, sizeof a);  // best effort: b is untouched
  file.read(at_b, back, sizeof b);
  CHECK(std::string(back) == "0123456789");
}

TEST_CASE("spill: a spill file in a missing directory fails with what and where") {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  setenv("TMPDIR", "/nonexistent-clprof-dir", 1);
  SpillFile file("test records");
  std::string message;
  try {
    file.reserve(8);
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  if (old)
    setenv("TMPDIR", saved.c_str(), 1);
  else
    unsetenv("TMPDIR");
  CHECK(message ==
        "cannot spill test records to disk (creating a file in /nonexistent-clprof-dir): No such "
        "file or directory; set TMPDIR to a directory with free space");
}
