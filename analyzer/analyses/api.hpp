// Host-side time per OpenCL function (clprof api), like clIntercept's host performance
// timing and `nsys stats`' API summary, from the calls a trace holds: every enqueue of a
// launch or transfer (its host_ns), every sync (clFinish, clWaitForEvents), every build
// (clBuildProgram, clCompileProgram, clLinkProgram), and the API events of imported
// profiles (model::ApiCall). Other functions (clSetKernelArg, clCreate*, clRelease*, ...)
// are not recorded by the shim: docs/cli.md "clprof api" lists what is covered.
//
// Memory: 8 bytes per timed call (for the median), fixed sums per (group, function).
// Streams launches and transfers from any thread (one instance per thread, merged); the
// run's syncs, builds and API calls are added once, from its metadata.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyses/duration_sample.hpp"
#include "analyses/grouping.hpp"
#include "analyses/ranges.hpp"
#include "analyses/stats.hpp"
#include "analysis.hpp"

namespace clprof::analyses {

// Whether `name` reads as an OpenCL entry point ("cl" then an upper-case letter): importers'
// launches carry other names ("trace_event") and are no API calls.
bool is_opencl_function(std::string_view name);

class ApiAnalysis : public Analysis {
 public:
  // `by`: None, Thread or Process. `keep_launch`: the selection ({} = all; the session
  // selects transfers itself).
  explicit ApiAnalysis(GroupBy by = GroupBy::None, LaunchPredicate keep_launch = {});
  void add_launch(const model::Launch& launch) override;
  void add_transfer(const model::Transfer& transfer) override;
  void merge(Analysis&& other) override;
  // One call. `begin_ns`/`end_ns` kNoTime when unknown (counted, not timed).
  void add_call(uint32_t process, uint64_t tid, std::string_view function, int64_t begin_ns,
                int64_t end_ns, int32_t rc);
  // The run's syncs, builds and API calls.
  void add_run_calls(const model::Run& run);

  struct Figures {
    uint64_t calls = 0;
    DurationSample durations_ns;        // of the timed calls (exact, compressed)
    uint64_t errors = 0;                // calls that returned an error (rc != 0)
    std::map<int32_t, uint64_t> codes;  // error code -> calls
  };
  using Key = std::pair<GroupKey, std::string>;
  const std::map<Key, Figures>& figures() const { return figures_; }
  GroupBy by() const { return by_; }

 private:
  GroupBy by_;
  LaunchPredicate keep_launch_;
  std::map<Key, Figures> figures_;
};

struct ApiRow {
  GroupKey group;
  std::string function;
  uint64_t calls = 0;
  DurationStats stats;            // over the timed calls
  std::optional<double> percent;  // share of all the rows' host time, 0..100
  uint64_t errors = 0;
  std::string error_codes;  // "CL_OUT_OF_RESOURCES x2, error -9999 x1" (most first)
};

// The rows, ordered by group, then total time (descending), then name.
std::vector<ApiRow> api_rows(const ApiAnalysis& analysis);

}  // namespace clprof::analyses
