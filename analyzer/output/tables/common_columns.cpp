#include "output/tables/common_columns.hpp"

namespace clprof::output::tables {

Column pid_column() {
  return column("pid", "Pid", Type::Int, "", "process id").wide();
}

Column kernel_name_column() {
  return column("name", "Kernel", Type::Text, "", "kernel function name").shrink();
}

Column kernel_variant_column() {
  return column("name", "Kernel", Type::Text, "",
                "kernel function name; when programs of other sources or build options have a "
                "kernel of that name too: NAME [what sets this one apart] (clprof kernels)")
      .shrink();
}

Column calls_column(std::string meaning) {
  return column("count", "Calls", Type::Int, "", std::move(meaning));
}

Column total_column(std::string meaning, std::string header) {
  return column("total_ns", std::move(header), Type::Duration, "ns", std::move(meaning));
}

Column share_column(std::string meaning) {
  return column("percent", "%", Type::Real, "%", std::move(meaning)).allow_null();
}

Column statistic_column(Statistic which, std::string meaning) {
  static const char* const keys[] = {"mean_ns", "median_ns", "min_ns", "max_ns"};
  static const char* const headers[] = {"Mean", "Median", "Min", "Max"};
  const auto i = static_cast<size_t>(which);
  return column(keys[i], headers[i], Type::Duration, "ns", std::move(meaning)).allow_null();
}

Column stddev_column() {
  return column("stddev_ns", "Stddev", Type::Duration, "ns", "sample standard deviation (n - 1)")
      .allow_null()
      .wide();
}

Column untimed_column(std::string meaning) {
  return column("untimed", "Untimed", Type::Int, "", std::move(meaning)).wide();
}

Column est_total_column() {
  return column("est_total_ns", "Est. total", Type::Duration, "ns",
                "estimated total if the --speedup rules applied")
      .only_with("--speedup");
}

Column layer_column(std::string meaning) {
  return column("layer", "Layer", Type::Text, "", std::move(meaning)).shrink(Shorten::Head, 12);
}

std::vector<Column> iteration_kernel_columns(const std::string& total_header) {
  return {kernel_variant_column(), calls_column(), total_column("kernel time", total_header),
          share_column("share of the iteration's kernel time, 0-100").digits(2)};
}

}  // namespace clprof::output::tables
