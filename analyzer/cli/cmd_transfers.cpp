// clprof transfers: reads, writes, copies, fills, maps and unmaps per device kind and op,
// with their size classes (per layer, queue, thread, process or device with --by).
#include "analyses/grouping.hpp"
#include "analyses/transfers.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "output/tables/grouping.hpp"
#include "output/tables/transfers.hpp"

namespace clprof::cli {

Runner setup_transfers(CLI::App& app) {
  using analyses::GroupBy;
  return table_command(
      app, analyses::transfer_groupings(), "transfers",
      "Bytes moved: a read's, write's, copy's or fill's size; a map or unmap moves nothing on a "
      "CPU device and an unknown amount elsewhere (copy or zero-copy), so maps are never counted "
      "as moved. GB/s = bytes moved / device time over the timed transfers. Size classes: <4 "
      "KiB, 4-64 KiB, 64 KiB-1 MiB, 1-16 MiB, >=16 MiB.",
      output::tables::transfers_schema(), [](const TableRun& t) {
        const GroupBy by = t.by;
        auto session = run_session(
            t.request,
            [by](analyses::LaunchPredicate) {
              return analyses::maybe_grouped(
                  by, [] { return std::make_unique<analyses::TransfersAnalysis>(); });
            },
            kFoldedRanges);
        std::vector<analyses::TransferRow> rows;
        if (by == GroupBy::None) {
          rows = analyses::transfer_rows(
              static_cast<analyses::TransfersAnalysis&>(*session.analysis), session.run);
        } else {
          const auto& g = static_cast<analyses::GroupedAnalysis&>(*session.analysis);
          rows = analyses::grouped_transfer_rows(
              g, analyses::GroupLabels(session.run, by, &g.devices()), session.run);
        }
        return output::tables::transfers_result(rows, by);
      });
}

}  // namespace clprof::cli
