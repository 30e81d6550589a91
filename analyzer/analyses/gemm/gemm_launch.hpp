// One launch's GEMM sizes, decoded on the spot (the timeline and export label each launch;
// `clprof gemm` aggregates with GemmAnalysis instead). Same rule table, same evaluation as
// gemm.hpp: M, N, K and batch, and FLOPs = 2*M*N*K*batch when all four are known.
// Not thread-safe (a per-name cache): one decoder per thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyses/gemm/gemm_rules.hpp"
#include "model.hpp"

namespace clprof::gemm {

struct LaunchDims {
  const Rule* rule = nullptr;  // the matching rule
  std::optional<int64_t> m, n, k, batch;
  std::optional<double> flops;  // all four known
  // GFLOPS over `duration_ns` (nullopt without FLOPs or a positive duration).
  std::optional<double> gflops(std::optional<int64_t> duration_ns) const;
};

class LaunchDecoder {
 public:
  explicit LaunchDecoder(const std::vector<Rule>& rules) : rules_(rules) {}
  // nullopt when no rule matches the kernel's name. `program_options`: the build options of
  // the launch's program (nullptr: unknown; dimensions read from options stay unknown).
  std::optional<LaunchDims> decode(const model::Launch& launch, const std::string* program_options);

 private:
  const std::vector<Rule>& rules_;
  std::unordered_map<std::string, int> match_;  // kernel name -> rule index or -1
};

}  // namespace clprof::gemm
