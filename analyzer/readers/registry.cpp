// The list of input formats. To add a reader: include its header and add one line to
// the list below (most specific sniffer first; the clprof trace stays first); an importer
// made of a sniff and a read function (format_reader.hpp) gets its FormatReader here too.
#include "readers/armnn/armnn.hpp"
#include "readers/caffe/caffe.hpp"
#include "readers/chrome/chrome_trace.hpp"
#include "readers/clprof_trace/clprof_trace.hpp"
#include "readers/dvdt_prof/dvdt_prof.hpp"
#include "readers/format_reader.hpp"
#include "readers/reader.hpp"

namespace clprof::readers {

namespace {

// The importers: each one's name (--input-format), its line for --help, its two functions.
const FormatReader kArmnn{"armnn",
                          "Arm NN ExecuteNetwork -e profile (JSON, or the whole stdout around it)",
                          looks_like_armnn, read_armnn};
const FormatReader kDvdtProf{
    "dvdt", "dvdt-prof OpenCL trace (JSON call list, or stdout in cJSON or line mode)",
    looks_like_dvdt_prof, read_dvdt_prof};
const FormatReader kCaffe{
    "caffe", "Caffe per-layer times (CK-Caffe per_layer_info JSON, or the caffe time log)",
    looks_like_caffe, read_caffe};
const FormatReader kChromeTrace{
    "chrome", "Chrome Trace Event JSON (chrome://tracing, Perfetto, Neural Engine profiling)",
    looks_like_chrome_trace, read_chrome_trace};

}  // namespace

const Reader& armnn_reader() {
  return kArmnn;
}
const Reader& dvdt_prof_reader() {
  return kDvdtProf;
}
const Reader& caffe_reader() {
  return kCaffe;
}
const Reader& chrome_trace_reader() {
  return kChromeTrace;
}

const std::vector<const Reader*>& all_readers() {
  static const std::vector<const Reader*> readers = {
      &clprof_trace_reader(),
      &armnn_reader(),         // {"ArmNN": ...}, also inside ExecuteNetwork stdout
      &dvdt_prof_reader(),     // "[dv/dt] " lines or [{"call": "cl...
      &caffe_reader(),         // {"per_layer_info" | "dvdt_prof" ...} or caffe.cpp log lines
      &chrome_trace_reader(),  // {"traceEvents": ...} or [{..."ph"...
  };
  return readers;
}

const Reader* find_reader(std::string_view name) {
  for (const Reader* r : all_readers())
    if (r->name() == name) return r;
  return nullptr;
}

}  // namespace clprof::readers
