#include "analyses/gemm/gemm_rules.hpp"

namespace clprof::gemm {

std::optional<int64_t> option_value(std::string_view options, std::string_view name) {
  // Scan whitespace-separated tokens; "-D NAME=V" (two tokens) is accepted too, as
  // clBuildProgram does. The last definition wins, like the compiler.
  std::optional<int64_t> found;
  size_t i = 0;
  bool pending_d = false;
  while (i < options.size()) {
    while (i < options.size() && (options[i] == ' ' || options[i] == '\t' || options[i] == '\n'))
      ++i;
    size_t j = i;
    while (j < options.size() && options[j] != ' ' && options[j] != '\t' && options[j] != '\n') ++j;
    std::string_view tok = options.substr(i, j - i);
    i = j;
    if (tok.empty()) break;
    std::string_view def;
    if (pending_d) {
      def = tok;
      pending_d = false;
    } else if (tok == "-D") {
      pending_d = true;
      continue;
    } else if (tok.substr(0, 2) == "-D") {
      def = tok.substr(2);
    } else {
      continue;
    }
    if (def.size() <= name.size() + 1 || def.substr(0, name.size()) != name ||
        def[name.size()] != '=')
      continue;
    std::string_view v = def.substr(name.size() + 1);
    if (v.size() > 18 || v.find_first_not_of("0123456789") != std::string_view::npos) continue;
    found = std::stoll(std::string(v));
  }
  return found;
}

DimValue evaluate(const DimSource& s, const model::Launch& launch, const std::string* options) {
  DimValue out;
  switch (s.kind) {
    case DimSource::Kind::Const:
      out.value = s.value;
      return out;
    case DimSource::Kind::Gws:
      if (s.index >= launch.gws.size()) {
        out.problem = "gws has no dimension " + std::to_string(s.index);
        return out;
      }
      out.value = static_cast<int64_t>(launch.gws[s.index]);
      return out;
    case DimSource::Kind::Option: {
      if (!options) {
        out.problem = "build options of program " + std::to_string(launch.program_id) + " unknown";
        return out;
      }
      out.value = option_value(*options, s.option);
      if (!out.value) out.problem = "-D" + s.option + "= not in the build options";
      return out;
    }
    case DimSource::Kind::Arg: {
      if (s.index >= launch.args.size()) {
        out.problem = "no arg " + std::to_string(s.index);
        return out;
      }
      const auto& a = launch.args[s.index];
      if (a.kind != model::KernelArg::Kind::Scalar || !a.has_value) {
        out.problem = "arg " + std::to_string(s.index) + " is not an integer scalar";
        return out;
      }
      const bool wide = s.type == DimSource::ArgType::Int64 || s.type == DimSource::ArgType::Uint64;
      if (a.size != (wide ? 8u : 4u)) {
        out.problem = "arg " + std::to_string(s.index) + " has " + std::to_string(a.size) +
                      " bytes, the rule expects " + (wide ? "8" : "4");
        return out;
      }
      int64_t v = 0;
      switch (s.type) {
        case DimSource::ArgType::Int32:
          v = static_cast<int32_t>(static_cast<uint32_t>(a.value));
          break;
        case DimSource::ArgType::Uint32:
          v = static_cast<uint32_t>(a.value);
          break;
        case DimSource::ArgType::Int64:
          v = static_cast<int64_t>(a.value);
          break;
        case DimSource::ArgType::Uint64:
          if (a.value > static_cast<uint64_t>(INT64_MAX)) {
            out.problem = "arg " + std::to_string(s.index) + " is too large";
            return out;
          }
          v = static_cast<int64_t>(a.value);
          break;
      }
      if (v < 0) {
        out.problem = "arg " + std::to_string(s.index) + " is negative (" + std::to_string(v) + ")";
        return out;
      }
      out.value = v;
      return out;
    }
  }
  return out;
}

std::string describe(const DimSource& s) {
  switch (s.kind) {
    case DimSource::Kind::Const:
      return std::to_string(s.value);
    case DimSource::Kind::Gws:
      return "gws[" + std::to_string(s.index) + "]";
    case DimSource::Kind::Option:
      return "-D" + s.option + "=";
    case DimSource::Kind::Arg: {
      const char* t = s.type == DimSource::ArgType::Int32    ? "int32"
                      : s.type == DimSource::ArgType::Uint32 ? "uint32"
                      : s.type == DimSource::ArgType::Int64  ? "int64"
                                                             : "uint64";
      return "arg " + std::to_string(s.index) + " (" + t + ")";
    }
  }
  return "?";
}

}  // namespace clprof::gemm
