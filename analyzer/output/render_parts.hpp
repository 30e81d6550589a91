// The renderers behind output::render(), one file each: render_table.cpp (table and
// markdown layouts), render_data.cpp (CSV and JSON). Not for use outside output/.
#pragma once

#include "output/render.hpp"

namespace clprof::output::detail {

void render_table(const Result& result, const RenderOptions& options, const TextSink& sink);
void render_csv(const Result& result, const TextSink& sink);
void render_json(const Result& result, const TextSink& sink);

}  // namespace clprof::output::detail
