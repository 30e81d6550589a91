// `clprof replay`: one captured launch run again (replay/replay.hpp), as one record with
// its candidates (--sweep local, --options) nested.
#pragma once

#include <cstdint>
#include <optional>

#include "output/render.hpp"
#include "replay/replay.hpp"

namespace clprof::output::tables {

const Schema& replay_schema();
// `seq`: the launch's seq in its trace (nullopt when chosen by --kernel in a capture
// folder without a trace record naming it).
Result replay_result(const replay::Capture& capture, const replay::Outcome& outcome,
                     std::optional<uint64_t> seq, unsigned repeat, bool with_candidates);

}  // namespace clprof::output::tables
