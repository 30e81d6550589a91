#include "output/views/export.hpp"

namespace clprof::output::views {

void ExportWriter::begin() {
  rows_.metadata([this](ExportTable t, const Row& r) { sink_.row(t, r); });
}

void ExportWriter::note_records(uint32_t process, bool launch, uint64_t seq) {
  auto [it, fresh] = first_.try_emplace(process, launch, seq);
  if (fresh) {
    sink_.begin_records(process);
    launches_at_first_[process] = launches_;
    return;
  }
  if (it->second != std::make_pair(launch, seq)) return;
  // The reader delivers this process's records again from the first: drop the first delivery.
  sink_.restart_records(process);
  gemm_.erase(process);
  launches_ = launches_at_first_[process];
}

analyses::GemmAnalysis& ExportWriter::gemm(uint32_t process) {
  auto& a = gemm_[process];
  if (!a) a = std::make_unique<analyses::GemmAnalysis>(rules_, keep_, false);
  return *a;
}

void ExportWriter::add_launch(const model::Launch& l) {
  note_records(l.process, true, l.seq);
  gemm(l.process).add_launch(l);
  if (keep_ && !keep_(l)) return;
  ++launches_;
  rows_.launch(l, [this](ExportTable t, const Row& r) { sink_.row(t, r); });
}

void ExportWriter::end() {
  analyses::GemmAnalysis all(rules_, keep_, false);
  for (auto& [process, a] : gemm_) all.merge(std::move(*a));
  gemm_.clear();
  rows_.gemm_calls(analyses::finish_gemm(std::move(all), run_, 0),
                   [this](ExportTable t, const Row& r) { sink_.row(t, r); });
  sink_.finish();
}

void ExportWriter::add_transfer(const model::Transfer& t) {
  note_records(t.process, false, t.seq);
  rows_.transfer(t, [this](ExportTable table, const Row& r) { sink_.row(table, r); });
}

}  // namespace clprof::output::views
