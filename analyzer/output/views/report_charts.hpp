// The report's charts from a finished run (report_data.hpp) or a comparison: each returns
// an HTML fragment — the <svg>, then notes saying what the chart leaves out — or a short
// paragraph saying why there is nothing to draw. The limits below are the documented ones
// (docs/cli.md "clprof report"); the page says when one was reached.
#pragma once

#include <string>

#include "analyses/compare.hpp"
#include "output/views/report_data.hpp"

namespace clprof::output::report {

inline constexpr size_t kMaxBars = 25;         // kernels in the bar charts (the rest summed)
inline constexpr size_t kMaxIterations = 100;  // columns of the per-layer chart
inline constexpr size_t kMaxLayerSeries = 9;   // layers told apart there (the rest summed)
inline constexpr size_t kMaxPoints = 1000;     // GEMM shapes in the scatter plot
inline constexpr size_t kMaxLanes = 24;        // queues in the timeline
inline constexpr size_t kMaxCompareLayers = 40;

std::string kernels_chart(const RunReport& run);
std::string layers_chart(const RunReport& run);
std::string gemm_chart(const RunReport& run, double peak_gflops);
std::string distributions_chart(const RunReport& run);
std::string timeline_overview(const RunReport& run);
// Kernel time per rank (a multi-rank run), outliers in the warning colour.
std::string ranks_chart(const RunReport& run);
std::string compare_kernels_chart(const analyses::Comparison& comparison);
std::string compare_layers_chart(const analyses::Comparison& comparison);

// <p class="note">text</p>, escaped.
std::string note(const std::string& text);

}  // namespace clprof::output::report
