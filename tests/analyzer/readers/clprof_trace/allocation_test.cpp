// Steady-state streaming allocates nothing per launch: the allocation count for a trace
// of 4000 launches is the same as for 1000 launches (counted by a replaced operator new).
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "readers/clprof_trace/clprof_trace.hpp"
#include "test_util.hpp"

namespace {
std::atomic<uint64_t> g_allocations{0};
}  // namespace

// The replacements below pair malloc with free on purpose; GCC cannot see that through
// inlined standard-library code and warns.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

// Every form that libraries use (simdjson allocates with nothrow new), so that all of
// them pair with the deletes below.
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n ? n : 1);
}
void* operator new(size_t n) {
  if (void* p = operator new(n, std::nothrow)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) {
  return operator new(n);
}
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  return operator new(n, std::nothrow);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p, size_t) noexcept {
  std::free(p);
}

using namespace clprof;

namespace {

// Sums durations; allocates nothing itself.
class DurationSum : public Analysis {
 public:
  void add_launch(const model::Launch& l) override {
    if (auto d = l.duration_ns()) total_ns += *d;
    args += l.args.size();
  }
  void merge(Analysis&& other) override {
    total_ns += static_cast<DurationSum&>(other).total_ns;
    args += static_cast<DurationSum&>(other).args;
  }
  int64_t total_ns = 0;
  uint64_t args = 0;
};

std::string launches_trace(int n) {
  std::string t =
      test::trace_lines({R"({"format":"clprof-trace","version":1,"header":{"pid":1},"records":[)",
                         R"({"type":"device","id":1,"name":"d"},)"});
  for (int i = 0; i < n; ++i) {
    // Alternating shapes: argument counts, lws null or not, short and long names.
    if (i % 2)
      t +=
          R"({"type":"launch","seq":)" + std::to_string(i + 1) +
          R"(,"tid":2,"rc":0,"kernel":"XgemmDirectTN_with_a_long_name","kernel_id":1,"program_id":1,"queue_id":1,"context_id":1,"device_id":1,"gwo":null,"gws":[8,8],"lws":[8,8],"args":[["scalar",4,"60000000",96],["scalar",8,"0100000000000000",1],["buffer",8,3,64]],"host_ns":[1,2],"device_ns":[1,2,3,5],"status":"complete","ranges":[]},)"
          "\n";
    else
      t +=
          R"({"type":"launch","seq":)" + std::to_string(i + 1) +
          R"(,"tid":2,"rc":0,"kernel":"k","kernel_id":1,"program_id":1,"queue_id":1,"context_id":1,"device_id":1,"gwo":null,"gws":[8],"lws":null,"args":[["local",64]],"host_ns":[1,2],"device_ns":[1,2,3,4],"status":"complete","ranges":[]},)"
          "\n";
  }
  return t + R"({"type":"end"}]})"
             "\n";
}

uint64_t allocations_for(const std::string& path, unsigned threads, int64_t& total_ns) {
  model::Run run;
  readers::Diagnostics diag;
  const auto tuning = test::small_chunks(threads, 4096);
  AnalysisFactory factory = [] { return std::unique_ptr<Analysis>(new DurationSum); };
  uint64_t before = g_allocations.load();
  auto a = readers::detail::stream_clprof_trace_file(path, run, factory, diag, tuning);
  uint64_t used = g_allocations.load() - before;
  total_ns = static_cast<DurationSum&>(*a).total_ns;
  return used;
}

}  // namespace

TEST_CASE("streaming allocates nothing per launch in steady state") {
  test::TempDir dir;
  std::string small = dir.write("small.json", launches_trace(1000));
  std::string large = dir.write("large.json", launches_trace(4000));
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    int64_t small_ns = 0, large_ns = 0;
    uint64_t small_allocs = allocations_for(small, threads, small_ns);
    uint64_t large_allocs = allocations_for(large, threads, large_ns);
    CHECK(small_ns == 1000 / 2 * 1 + 1000 / 2 * 2);
    CHECK(large_ns == 4000 / 2 * 1 + 4000 / 2 * 2);
    // The same fixed set of buffers whatever the number of launches (3000 more here).
    CHECK(large_allocs <= small_allocs + 8);
  }
}
