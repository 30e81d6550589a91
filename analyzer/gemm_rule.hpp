// What a GEMM rule says: which kernels are matrix multiplications (a regex over the kernel
// name) and where their M, N, K and batch count come from. Plain data, shared by the room
// that reads rules (readers/gemm_rules: the built-in table and --rules FILE.json) and the
// one that applies them (analyses/gemm). docs/gemm-rules.md documents every rule.
//
// Threads: a Rule is immutable once read; read it from any thread (NameRegex::search is
// const and thread-safe).
#pragma once

#include <cstdint>
#include <string>

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

}  // namespace clprof::gemm
