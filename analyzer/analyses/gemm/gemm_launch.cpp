#include "analyses/gemm/gemm_launch.hpp"

namespace clprof::gemm {

std::optional<double> LaunchDims::gflops(std::optional<int64_t> duration_ns) const {
  if (!flops || !duration_ns || *duration_ns <= 0) return std::nullopt;
  return *flops / static_cast<double>(*duration_ns);
}

std::optional<LaunchDims> LaunchDecoder::decode(const model::Launch& launch,
                                                const std::string* program_options) {
  auto it = match_.find(launch.name);
  if (it == match_.end()) {
    // One regex search per distinct kernel name, not per launch (first match wins).
    int found = -1;
    for (size_t i = 0; i < rules_.size() && found < 0; ++i)
      if (rules_[i].regex.search(launch.name)) found = static_cast<int>(i);
    it = match_.emplace(launch.name, found).first;
  }
  if (it->second < 0) return std::nullopt;
  LaunchDims d;
  d.rule = &rules_[static_cast<size_t>(it->second)];
  d.m = evaluate(d.rule->m, launch, program_options).value;
  d.n = evaluate(d.rule->n, launch, program_options).value;
  d.k = evaluate(d.rule->k, launch, program_options).value;
  // A batch count beside M, N and K all unknown says nothing (the rule's default 1 would
  // read as a decoded size): unknown too.
  if (d.m || d.n || d.k) d.batch = evaluate(d.rule->batch, launch, program_options).value;
  if (d.m && d.n && d.k && d.batch) d.flops = gemm_flops(*d.m, *d.n, *d.k, *d.batch);
  return d;
}

}  // namespace clprof::gemm
