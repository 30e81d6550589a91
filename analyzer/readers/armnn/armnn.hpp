// Arm NN profiles: the JSON printed by ExecuteNetwork -e (armnn::Profiler::Print), alone or
// inside the whole captured stdout (log lines before and after it). Each value of a
// measurement's "raw" array is one inference; see docs/importers.md for the mapping.
#pragma once

#include "readers/reader.hpp"

namespace clprof::readers {

class ArmnnReader : public Reader {
 public:
  // "armnn".
  std::string_view name() const override;
  // One line for --help.
  std::string_view description() const override;
  // True if `head` holds an Arm NN profile object ("ArmNN": {...}).
  bool sniff(std::string_view head) const override;
  // Appends one Process (source_format "armnn") with one "inference" range per inference,
  // the workload ranges inside it, and one Launch per kernel timer value.
  void read(const std::string& path, std::string_view content, model::Run& run,
            Diagnostics& diagnostics) const override;
};

// The reader instance listed in registry.cpp.
const Reader& armnn_reader();

}  // namespace clprof::readers
