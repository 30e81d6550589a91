// This process's settings: parsed from the environment once, on first use (warnings
// printed once, the log level set from them). base/settings.hpp is the parser (no
// globals, unit-tested); this is the one parsed copy every room reads.
//
// Threads: any (a function-local static: the first caller parses, the others wait for
// it). Ownership: leaked on purpose (hooks may run during static destruction).
#pragma once

#include "base/settings.hpp"

namespace clprof::shim {

// Settings parsed from the environment on first use (warnings printed once).
const Settings& settings();

// True unless CLPROF_DISABLE=1. Never starts a trace.
bool hooks_may_be_handed_out();

}  // namespace clprof::shim
