// Fuzz target: GEMM rules files (--rules): the parser, then every rule's regex on a few
// names (the input itself among them) and every dimension source on a launch.
#include <string>

#include "analyses/gemm/gemm_rules.hpp"
#include "fuzz_support.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"
#include "readers/limits.hpp"

extern "C" int clprof_fuzz_gemm_rules(const uint8_t* data, size_t size) {
  using namespace clprof;
  const std::string_view input = fuzz::text(data, size);
  std::vector<gemm::Rule> rules;
  try {
    rules = gemm::parse_rules(input, "fuzz-input");
  } catch (const readers::InputError&) {
    return 0;
  }
  model::Launch launch;
  launch.name = std::string(readers::limits::capped_name(input));
  launch.gws = {64, 32, 8};
  for (uint64_t v : {uint64_t{16}, uint64_t{1} << 40, ~uint64_t{0}}) {
    model::KernelArg a;
    a.kind = model::KernelArg::Kind::Scalar;
    a.size = v > UINT32_MAX ? 8 : 4;
    a.has_value = true;
    a.value = v;
    launch.args.push_back(a);
  }
  const std::string options = "-DM=12 -D N=7 -DK=99999999999999999999 " + launch.name;
  for (const auto& r : rules) {
    for (const std::string& name :
         {launch.name, std::string("XgemmDirectNN"), std::string(5000, 'a')})
      r.regex.search(name);
    for (const gemm::DimSource* s : {&r.m, &r.n, &r.k, &r.batch}) {
      gemm::evaluate(*s, launch, &options);
      gemm::describe(*s);
    }
  }
  return 0;
}
