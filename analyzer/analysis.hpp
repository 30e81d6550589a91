// How analyses consume a run: metadata (processes, devices, ranges, programs, builds,
// syncs, marks, layer timings) lives in a model::Run; the bulk records (launches,
// transfers) are either in that Run (importers, small traces) or streamed from a clprof
// trace by several reader threads, each feeding its own Analysis instance, merged at the end.
#pragma once

#include <functional>
#include <memory>

#include "model.hpp"

namespace clprof {

// An incremental analysis. Not thread-safe: one instance per reading thread.
class Analysis {
 public:
  virtual ~Analysis() = default;
  // Called once per launch / transfer, in no particular order. The reference is only
  // valid during the call (readers reuse the object).
  virtual void add_launch(const model::Launch& launch) = 0;
  virtual void add_transfer(const model::Transfer& transfer) {}
  // Absorbs `other` (always the same concrete type, built by the same factory).
  virtual void merge(Analysis&& other) = 0;
};

using AnalysisFactory = std::function<std::unique_ptr<Analysis>()>;

// Feeds every launch and transfer held in `run` to `analysis` (the in-memory path).
inline void feed(const model::Run& run, Analysis& analysis) {
  for (const auto& l : run.launches) analysis.add_launch(l);
  for (const auto& t : run.transfers) analysis.add_transfer(t);
}

// Moves the launches and transfers that `run` gained since it held `launches_before` and
// `transfers_before` of them into a new Analysis made by `factory`, and removes them from
// `run` (whose metadata stays). Used where a whole input is read into memory but the caller
// streams: the run's size then stays that of its metadata.
inline std::unique_ptr<Analysis> feed_new_records(model::Run& run, size_t launches_before,
                                                  size_t transfers_before,
                                                  const AnalysisFactory& factory) {
  auto analysis = factory();
  for (size_t i = launches_before; i < run.launches.size(); ++i)
    analysis->add_launch(run.launches[i]);
  for (size_t i = transfers_before; i < run.transfers.size(); ++i)
    analysis->add_transfer(run.transfers[i]);
  run.launches.resize(launches_before);
  run.transfers.resize(transfers_before);
  return analysis;
}

}  // namespace clprof
