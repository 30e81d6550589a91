// `clprof record --list-options`: one row per CLPROF_* setting of the shim.
#pragma once

#include "output/render.hpp"

namespace clprof::output::tables {

const Schema& settings_schema();
// `markdown`: names and defaults in backticks (the form of docs/settings.md).
Result settings_result(bool markdown);

}  // namespace clprof::output::tables
