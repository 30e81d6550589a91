#include "fuzz_support.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <memory>

#include "analyses/gemm/gemm.hpp"
#include "analyses/kernels.hpp"
#include "analyses/layers.hpp"
#include "analyses/ranges.hpp"
#include "analyses/speedup.hpp"
#include "analyses/summary.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"
#include "readers/layers_from/layers_from.hpp"

namespace clprof::fuzz {

int memory_file(const uint8_t* data, size_t size) {
  const int fd = ::memfd_create("clprof-fuzz", MFD_CLOEXEC);
  if (fd < 0) return -1;
  size_t written = 0;
  while (written < size) {
    const ssize_t w = ::write(fd, data + written, size - written);
    if (w <= 0) break;
    written += static_cast<size_t>(w);
  }
  if (written == size) return fd;
  ::close(fd);
  return -1;
}

bool read_with(const readers::Reader& reader, std::string_view data, model::Run& run) {
  readers::Diagnostics diagnostics;
  try {
    reader.read("fuzz-input", data, run, diagnostics);
  } catch (const readers::InputError&) {
    return false;
  }
  return true;
}

void analyse_run(const model::Run& run) {
  static const auto rules = gemm::shared_builtin_rules();
  analyses::SummaryAnalysis summary;
  analyses::KernelsAnalysis kernels;
  analyses::LayersAnalysis layers;
  analyses::GemmAnalysis per_launch(rules, {}, false), grouped(rules, {}, true);
  for (Analysis* a :
       std::initializer_list<Analysis*>{&summary, &kernels, &layers, &per_launch, &grouped})
    feed(run, *a);
  const analyses::GemmResult gemm = analyses::finish_gemm(std::move(per_launch), run, 100.0);
  for (size_t i = 0; i < gemm.row_count(); ++i) gemm.row(i);
  analyses::finish_gemm(std::move(grouped), run, 100.0);
  analyses::make_summary(summary, run, gemm.gflop_per_device);
  // The slowest factor --speedup accepts: estimates grow 1000-fold.
  static const analyses::Speedup speedup({analyses::parse_speedup(".=0.001")});
  kernels.rows(run, &speedup);
  analyses::layer_rows(layers, run, &speedup);
  analyses::layer_timing_rows(run);
  analyses::iteration_details(layers, run, analyses::find_iterations(run));
  // --layers-from with the run as its own source: every launch looked up in hostile ranges.
  model::Run target = run;
  LayersFromOptions options;
  options.keep_existing_ranges = true;
  attribute_by_host_time(target, run, options);
}

int read_and_analyse(const readers::Reader& reader, const uint8_t* data, size_t size) {
  model::Run run;
  if (read_with(reader, text(data, size), run)) analyse_run(run);
  return 0;
}

}  // namespace clprof::fuzz
