#include "output/tables/registry.hpp"

#include <stdexcept>

#include "output/tables/advise.hpp"
#include "output/tables/api.hpp"
#include "output/tables/builds.hpp"
#include "output/tables/compare.hpp"
#include "output/tables/gemm.hpp"
#include "output/tables/kernels.hpp"
#include "output/tables/launches.hpp"
#include "output/tables/layers.hpp"
#include "output/tables/ranks.hpp"
#include "output/tables/replay.hpp"
#include "output/tables/summary.hpp"
#include "output/tables/transfers.hpp"

namespace clprof::output::tables {

const std::vector<CommandViews>& all_commands() {
  static const std::vector<CommandViews> all = {
      {"summary", {&summary_schema()}},
      {"kernels", {&kernels_schema()}},
      {"launches", {&launches_schema()}},
      {"layers", {&layers_schema(), &iterations_schema()}},
      {"gemm", {&gemm_schema(), &gemm_group_schema()}},
      {"transfers", {&transfers_schema()}},
      {"builds", {&builds_schema()}},
      {"api", {&api_schema()}},
      {"ranks", {&ranks_schema(), &rank_kernel_schema()}},
      {"compare", {&compare_schema()}},
      {"advise", {&advise_schema()}},
      {"replay", {&replay_schema()}},
  };
  return all;
}

const CommandViews& command_views(const std::string& command) {
  for (const auto& c : all_commands())
    if (c.command == command) return c;
  throw std::out_of_range("no command " + command);
}

}  // namespace clprof::output::tables
