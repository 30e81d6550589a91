// Caffe per-layer timings: CK-Caffe run characteristics ("per_layer_info", also inside
// "run" or a CK point's "characteristics_list"; a "dvdt_prof" member is imported as
// dvdt-prof calls), and the `caffe time` log those are parsed from. The timings become
// Run::layer_timings (a layer table without kernels). Their "timestamp" is when Caffe
// printed the summary, not when the layer ran, so nothing is attributed by it.
#pragma once

#include <string_view>

#include "readers/import_json.hpp"
#include "readers/reader.hpp"

namespace clprof::readers {

// The reader named "caffe" (registry.cpp lists and defines it). Sniffs true for a JSON object with
// "per_layer_info"/"dvdt_prof"/"characteristics_list", or glog lines of caffe.cpp. Reading appends
// one Process (source_format "caffe") and its layer timings (iteration = CK repetition); each
// repetition's "dvdt_prof" calls become one more Process.
const Reader& caffe_reader();
// Its two halves, of which registry.cpp makes the reader: the sniffer, and the reading of
// one input (FormatReader has checked it is text first).
bool looks_like_caffe(std::string_view head);
void read_caffe(const import_json::Source& source, model::Run& run, Diagnostics& diagnostics);

}  // namespace clprof::readers
