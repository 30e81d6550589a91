// What every reader's output is checked for once it is read: records whose end comes
// before their start (a dvdt-prof record, a damaged trace) and ranges whose parent no input
// defines. They stay in the run as read (the analyses treat an inverted interval as
// untimed: Launch::duration_ns), but each kind is said once as a warning with its count and
// an example, so that no figure rests on them silently. Pure; single-threaded.
#pragma once

#include <cstddef>

#include "model.hpp"
#include "readers/reader.hpp"

namespace clprof::readers {

// Checks the ranges of processes [first_process, ...) and the launches and transfers from
// index `first_launch` / `first_transfer` on, adding warnings to `diagnostics`.
void check_consistency(const model::Run& run, size_t first_process, size_t first_launch,
                       size_t first_transfer, Diagnostics& diagnostics);

}  // namespace clprof::readers
