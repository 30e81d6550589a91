// Table-driven GEMM decoding: which kernels are matrix multiplications and where their
// M, N, K and batch count come from. The built-in table (gemm_rules.cpp) covers CLBlast,
// clBLAS, ViennaCL and the Arm Compute Library; docs/gemm-rules.md documents every rule
// and the JSON schema users extend it with (--rules FILE.json).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"
#include "name_regex.hpp"

namespace clprof::gemm {

// Where one dimension comes from.
struct DimSource {
  enum class Kind { Arg, Option, Gws, Const };
  enum class ArgType { Int32, Uint32, Int64, Uint64 };
  Kind kind = Kind::Const;
  unsigned index = 0;             // Arg: argument index; Gws: global-size dimension
  ArgType type = ArgType::Int32;  // Arg only
  std::string option;             // Option: the macro name, e.g. "M" for -DM=...
  int64_t value = 1;              // Const only
};

struct Rule {
  std::string id;      // short unique name, e.g. "clblast-xgemm-direct"
  std::string kernel;  // regex (name_regex.hpp syntax) searched in the kernel name
  NameRegex regex;
  DimSource m, n, k, batch;  // batch defaults to Const 1
  bool padded = false;       // the decoded sizes are padded (FLOPs overstate the useful work)
  std::string verified;      // provenance: which sources the layout was checked against
};

// The built-in rules, in matching order (first match wins).
const std::vector<Rule>& builtin_rules();
// The JSON text the built-in rules are parsed from (printed by `clprof gemm --list-rules`).
std::string_view builtin_rules_json();

// Most rules one document may hold (each compiles a regex).
inline constexpr size_t kMaxRules = 1000;

// Parses a rules document (schema in docs/gemm-rules.md). Throws readers::InputError with
// `file`, line and column on malformed JSON (nesting deeper than 256 levels included),
// unknown keys, bad regexes, bad sources or more than kMaxRules rules.
std::vector<Rule> parse_rules(std::string_view json, const std::string& file);

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
