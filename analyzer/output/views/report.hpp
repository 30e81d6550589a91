// `clprof report`: one self-contained HTML page — inline CSS, inline SVG charts, one small
// inline script that sorts the tables; no network, no external script, style or font —
// for one run, or BASE against OTHER. Sections: summary cards; time per kernel; per layer
// per iteration; GEMM GFLOPS against problem size; launch-time distributions; a timeline
// overview per queue; the CLI's tables (from the column model); and for two runs the
// comparison first. Every name from the inputs is escaped. Pure: runs in, text out.
#pragma once

#include <string>
#include <vector>

#include "analyses/compare.hpp"
#include "output/views/report_data.hpp"

namespace clprof::output::report {

struct PageOptions {
  double peak_gflops = 0;  // --peak (0: none)
  std::string version;     // clprof's
  std::string selection;   // the selection options given, for the page's footer ("" = none)
};

// The page for `runs` (one, or BASE and OTHER with `comparison` set).
std::string render_page(const std::vector<RunReport>& runs, const analyses::Comparison* comparison,
                        const PageOptions& options);

}  // namespace clprof::output::report
