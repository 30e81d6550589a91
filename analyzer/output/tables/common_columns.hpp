// The columns several commands' schemas share, declared once: the same key, header, type,
// unit and table behaviour wherever they stand. Where the figure means something particular
// to the command (what a call, a total or a share is of), the meaning is the argument; the
// caller refines the rest with the Column builders (output/columns.hpp).
//
// Pure functions building values; safe from any thread.
#pragma once

#include <string>
#include <vector>

#include "output/columns.hpp"

namespace clprof::output::tables {

// "pid": the process id (--wide).
Column pid_column();
// "name", Kernel: the kernel function name, shortened in the middle to fit.
Column kernel_name_column();
// The name of a row per kernel variant (kernels, layers' kernels: analyses/kernel_variants.hpp).
Column kernel_variant_column();
// "count", Calls: how many calls or launches a row counts.
Column calls_column(std::string meaning = "launches with a kernel time");
// "total_ns": the sum of a row's times (`header`: Total, or Time for one iteration).
Column total_column(std::string meaning, std::string header = "Total");
// "percent", %: a row's share of the whole, 0-100 (null: unknown).
Column share_column(std::string meaning);

// The duration statistics of a row's timed items (null: nothing timed): key `<stat>_ns`,
// header the statistic's name.
enum class Statistic { Mean, Median, Min, Max };
Column statistic_column(Statistic which, std::string meaning);
// "stddev_ns": the sample standard deviation (n - 1) of a row's times (--wide).
Column stddev_column();
// "untimed": how many of a row's items have no time (--wide).
Column untimed_column(std::string meaning);
// "est_total_ns": the total if the --speedup rules applied (only with --speedup).
Column est_total_column();
// "layer": the path of a launch's innermost range, shortened at the head to fit.
Column layer_column(std::string meaning = "path of the innermost range");

// "name", "count", "total_ns", "percent" of a kernel in one iteration (layers
// --per-iteration): its total headed `total_header`.
std::vector<Column> iteration_kernel_columns(const std::string& total_header);

}  // namespace clprof::output::tables
