#include "output/command_fields.hpp"

#include "clprof/trace_schema.hpp"

namespace clprof::output {

std::string kernel_arg_kind(model::KernelArg::Kind kind) {
  return std::string(clprof::trace::name(kind));
}

}  // namespace clprof::output
