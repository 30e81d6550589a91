// The list of input formats. To add a reader: include its header and add one line to
// the list below (most specific sniffer first; the clprof trace stays first).
#include "readers/armnn/armnn.hpp"
#include "readers/caffe/caffe.hpp"
#include "readers/chrome/chrome_trace.hpp"
#include "readers/clprof_trace/clprof_trace.hpp"
#include "readers/dvdt_prof/dvdt_prof.hpp"
#include "readers/reader.hpp"

namespace clprof::readers {

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
