// Kernel argument types, so that float, double and half scalar arguments print as their
// values (clprof launches): from the types the shim recorded (kernel.arg_types, the driver's
// CL_KERNEL_ARG_TYPE_NAME), else from a program's recorded source (CLPROF_CAPTURE_SOURCE=1).
//
// A light parser, not a compiler: comments are skipped, the kernel's parameter list is the
// parenthesised list after `void NAME` (the first such definition), a parameter with `*` is
// a pointer, and a scalar's type is the token float, double or half. Macros are not
// expanded: a type hidden behind one stays unknown. Pure functions; bounded by the source's
// length.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace clprof::analyses {

enum class ScalarType : unsigned char { Unknown, Float, Double, Half };

// The scalar types of `kernel`'s parameters in `source` (empty when no definition is found).
std::vector<ScalarType> kernel_param_types(std::string_view source, std::string_view kernel);

// The scalar types of recorded argument type names ("float" -> Float, "float*", "float4",
// "int" -> Unknown), one per name.
std::vector<ScalarType> arg_type_name_types(const std::vector<std::string>& type_names);

}  // namespace clprof::analyses
