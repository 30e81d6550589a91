// Reading GEMM rules (gemm_rule.hpp): the built-in table (gemm_rules.cpp: CLBlast, clBLAS,
// ViennaCL and the Arm Compute Library, as JSON) and the files users extend it with
// (--rules FILE.json). docs/gemm-rules.md documents every rule and the schema. Applying
// a rule to a launch is analyses/gemm's job (analyses/gemm/gemm_rules.hpp).
//
// Threads: builtin_rules() is parsed once (thread-safe static) and immutable after;
// parse_rules() keeps no state.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gemm_rule.hpp"

namespace clprof::gemm {

// The built-in rules, in matching order (first match wins).
const std::vector<Rule>& builtin_rules();
// The same, as the shared list the GEMM analysis holds (one copy for the process).
std::shared_ptr<const std::vector<Rule>> shared_builtin_rules();
// The JSON text the built-in rules are parsed from (printed by `clprof gemm --list-rules`).
std::string_view builtin_rules_json();

// Most rules one document may hold (each compiles a regex).
inline constexpr size_t kMaxRules = 1000;

// Parses a rules document (schema in docs/gemm-rules.md). Throws readers::InputError with
// `file`, line and column on malformed JSON (nesting deeper than 256 levels included),
// unknown keys, bad regexes, bad sources or more than kMaxRules rules.
std::vector<Rule> parse_rules(std::string_view json, const std::string& file);

}  // namespace clprof::gemm
