// Applying a GEMM rule (gemm_rule.hpp) to a launch: the value of each dimension source,
// or why it has none, and the FLOPs of the sizes found. The rules themselves are read by
// readers/gemm_rules (the built-in table and --rules FILE.json).
//
// Units: sizes are element counts; FLOPs a count. Threads: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gemm_rule.hpp"
#include "model.hpp"

namespace clprof::gemm {

// The value of `-D<name>=<int>` (or `-D <name>=<int>`) in a build options string.
std::optional<int64_t> option_value(std::string_view options, std::string_view name);

// Why a dimension could not be decoded, or its value.
struct DimValue {
  std::optional<int64_t> value;
  std::string problem;  // set when !value, e.g. "arg 0 is not a scalar"
};

// Evaluates `source` on `launch`; `program_options` is the build options of the launch's
// program (nullptr when unknown; only Option sources need it).
DimValue evaluate(const DimSource& source, const model::Launch& launch,
                  const std::string* program_options);

// A readable form of a source: "arg 0 (int32)", "-DM=", "gws[2]", "1".
std::string describe(const DimSource& source);

// FLOPs of one GEMM: 2*M*N*K*batch (as double: it may exceed 2^63).
inline double gemm_flops(int64_t m, int64_t n, int64_t k, int64_t batch) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
         static_cast<double>(batch);
}

}  // namespace clprof::gemm
