// The stored local-size sweeps of a run (model::LocalSweep): for each captured launch of
// each clprof trace in the run, TRACE.capture/ID/sweep.json beside the trace when
// `clprof replay --sweep local` wrote one (docs/replay.md). `clprof advise` reads them.
// Threads: any (no shared state). Ownership: returns values.
#pragma once

#include <vector>

#include "model.hpp"
#include "sweep.hpp"

namespace clprof::readers {

// Throws InputError naming the file and what was expected when a sweep.json exists but is
// not one (a folder without it has no sweep: none returned for it).
std::vector<model::LocalSweep> load_sweeps(const model::Run& run);

}  // namespace clprof::readers
