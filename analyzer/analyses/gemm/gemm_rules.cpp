#include "analyses/gemm/gemm_rules.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <map>
#include <memory>
#include <set>

#include "readers/reader.hpp"

namespace clprof::gemm {

namespace {

// The built-in table. Each rule's "verified" says which library sources the argument
// layout was read from; docs/gemm-rules.md has the details and the caveats.
constexpr std::string_view kBuiltinJson = R"json({"gemm_rules": [
{"id": "clblast-xgemm-direct",
 "kernel": "^XgemmDirect(NN|NT|TN|TT)$",
 "m": {"arg": 0, "type": "int32"}, "n": {"arg": 1, "type": "int32"}, "k": {"arg": 2, "type": "int32"},
 "verified": "CLBlast src/kernels/level3/xgemm_direct_part3.opencl (XgemmDirectNN/NT/TN/TT: const int kSizeM, kSizeN, kSizeK are args 0-2; also checked in the kernel strings of Debian's libclblast.so.1.5.3); set by src/routines/level3/xgemm.cpp GemmDirect with the unpadded m, n, k"},
{"id": "clblast-xgemm-direct-batched",
 "kernel": "^XgemmDirect(Strided)?Batched(NN|NT|TN|TT)$",
 "m": {"arg": 0, "type": "int32"}, "n": {"arg": 1, "type": "int32"}, "k": {"arg": 2, "type": "int32"},
 "batch": {"gws": 2},
 "verified": "CLBlast src/kernels/level3/xgemm_direct_batched.opencl (args 0-2 = kSizeM, kSizeN, kSizeK); src/routines/levelx/xgemmbatched.cpp BatchedGemmDirect and xgemmstridedbatched.cpp: global = {.., .., batch_count}, local[2] = 1"},
{"id": "clblast-xgemm-batched",
 "kernel": "^Xgemm(Strided)?Batched$",
 "m": {"arg": 0, "type": "int32"}, "n": {"arg": 1, "type": "int32"}, "k": {"arg": 2, "type": "int32"},
 "batch": {"gws": 2},
 "padded": true,
 "verified": "CLBlast src/kernels/level3/xgemm_batched.opencl (args 0-2); src/routines/levelx/xgemmbatched.cpp BatchedGemmIndirect / xgemmstridedbatched.cpp set args 0-2 to m_ceiled, n_ceiled, k_ceiled (padded to the MWG/NWG/KWG tile) and global[2] = batch_count"},
{"id": "clblast-xgemm",
 "kernel": "^Xgemm$",
 "m": {"arg": 0, "type": "int32"}, "n": {"arg": 1, "type": "int32"}, "k": {"arg": 2, "type": "int32"},
 "padded": true,
 "verified": "CLBlast src/kernels/level3/xgemm_part4.opencl (Xgemm: kSizeM, kSizeN, kSizeK are args 0-2); src/routines/level3/xgemm.cpp GemmIndirect sets them to m_ceiled, n_ceiled, k_ceiled: sizes padded (and possibly transposed) by the pre-processing kernels"},
{"id": "clblas-autogemm",
 "kernel": "^[sdcz]gemm_(Col|Row)_[NTC]{2}_B[01]_M[XL]\\d+_N[XL]\\d+_KX\\d+",
 "m": {"arg": 5, "type": "uint32"}, "n": {"arg": 6, "type": "uint32"}, "k": {"arg": 7, "type": "uint32"},
 "verified": "clBLAS src/library/blas/AutoGemm (generated and hand-tuned kernels such as dgemm_Col_NT_B0_MX048_NX048_KX08: A, B, C, alpha, beta, then uint const M, N, K at args 5-7)"},
{"id": "clblas-cltemplates",
 "kernel": "^[sdcz]gemm_[NT]{2}_\\d+_\\d+_\\d+_\\d+x\\d+_\\d+x\\d+__ALPHA",
 "m": {"arg": 3, "type": "uint32"}, "n": {"arg": 4, "type": "uint32"}, "k": {"arg": 5, "type": "uint32"},
 "verified": "clBLAS src/library/blas/gens/clTemplates/sgemm_hawaiiSplitKernel.cl, dgemm_NT_MN48.cl (e.g. sgemm_NT_96_96_16_16x16_6x6__ALPHABETA: A, B, C, then uint const M, N, K at args 3-5)"},
{"id": "viennacl-prod-generated",
 "kernel": "^prod_?(NN|NT|TN|TT)",
 "m": {"arg": 0, "type": "uint32"}, "n": {"arg": 1, "type": "uint32"}, "k": {"arg": 2, "type": "uint32"},
 "verified": "ViennaCL viennacl/device_specific/templates/matrix_product_template.hpp generate_impl: prototype starts with unsigned int M, N, K (args 0-2); kernels registered as prod_NN/TN/NT/TT in viennacl/linalg/opencl/kernels/matrix_prod.hpp"},
{"id": "viennacl-prod-legacy-a",
 "kernel": "^prod(16)?_A[AT]$",
 "m": {"arg": 25, "type": "uint32"}, "n": {"arg": 26, "type": "uint32"}, "k": {"arg": 7, "type": "uint32"},
 "verified": "ViennaCL viennacl/linalg/opencl/kernels/matrix_prod.hpp generate_matrix_prod_blas3: alpha, A, A_row_start..A_internal_cols (A_col_size = arg 7 = K when A is not transposed), B + 8 uints, beta, C, C_row_start, C_col_start, C_row_inc, C_col_inc, C_row_size (arg 25 = M), C_col_size (arg 26 = N)"},
{"id": "viennacl-prod-legacy-t",
 "kernel": "^prod(16)?_T[AT]$",
 "m": {"arg": 25, "type": "uint32"}, "n": {"arg": 26, "type": "uint32"}, "k": {"arg": 6, "type": "uint32"},
 "verified": "as viennacl-prod-legacy-a; with A transposed K is A_row_size (arg 6)"},
{"id": "acl-gemmlowp",
 "kernel": "^gemmlowp_mm_",
 "m": {"option": "M"}, "n": {"option": "N"}, "k": {"option": "K"},
 "verified": "Arm Compute Library src/core/CL/kernels/CLGEMMLowpMatrixMultiplyReshapedOnlyRHSKernel.cpp (newer: src/gpu/cl/kernels/ClGemmLowpMatrixMultiplyReshapedOnlyRhsKernel.cpp): build options -DM=<rows of LHS>, -DN=gemm_info.n, -DK=gemm_info.k; batches (-DDEPTH_GEMM3D, window Z) are not counted"},
{"id": "acl-gemm-float",
 "kernel": "^gemm_mm_(native|reshaped)",
 "m": {"option": "M"}, "n": {"option": "N"}, "k": {"option": "K"},
 "verified": "Arm Compute Library CLGEMMMatrixMultiplyNativeKernel.cpp / ReshapedOnlyRHS: build options -DM=, -DN=, -DK= as for gemmlowp; batches not counted"}
]}
)json";

// A JSON value that remembers where it started, for file:line:column messages.
struct Node {
  enum class Type { Null, Bool, Int, Double, String, Array, Object } type = Type::Null;
  bool b = false;
  int64_t i = 0;
  bool i_fits = true;  // false for integers beyond int64
  double d = 0;
  std::string s;
  std::vector<Node> items;
  std::vector<std::pair<std::string, Node>> members;
  size_t offset = 0;
  size_t key_offset = 0;  // for object members: where the key was
};

struct Builder : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Builder> {
  rapidjson::StringStream* stream = nullptr;
  Node root;
  std::vector<Node*> stack;
  std::string key;
  size_t key_offset = 0;

  size_t here() const { return stream->Tell() ? stream->Tell() - 1 : 0; }
  Node* place(Node n) {
    n.offset = here();
    if (stack.empty()) {
      root = std::move(n);
      return &root;
    }
    Node* parent = stack.back();
    if (parent->type == Node::Type::Array) {
      parent->items.push_back(std::move(n));
      return &parent->items.back();
    }
    n.key_offset = key_offset;
    parent->members.emplace_back(key, std::move(n));
    return &parent->members.back().second;
  }
  bool Null() { place(Node{}); return true; }
  bool Bool(bool v) { Node n; n.type = Node::Type::Bool; n.b = v; place(std::move(n)); return true; }
  bool Int(int v) { return Int64(v); }
  bool Uint(unsigned v) { return Int64(v); }
  bool Int64(int64_t v) { Node n; n.type = Node::Type::Int; n.i = v; place(std::move(n)); return true; }
  bool Uint64(uint64_t v) {
    Node n;
    n.type = Node::Type::Int;
    n.i = static_cast<int64_t>(v);
    n.i_fits = v <= static_cast<uint64_t>(INT64_MAX);
    place(std::move(n));
    return true;
  }
  bool Double(double v) { Node n; n.type = Node::Type::Double; n.d = v; place(std::move(n)); return true; }
  bool String(const char* str, rapidjson::SizeType len, bool) {
    Node n;
    n.type = Node::Type::String;
    n.s.assign(str, len);
    place(std::move(n));
    return true;
  }
  bool StartObject() { Node n; n.type = Node::Type::Object; stack.push_back(place(std::move(n))); return true; }
  bool Key(const char* str, rapidjson::SizeType len, bool) {
    key.assign(str, len);
    key_offset = here();
    return true;
  }
  bool EndObject(rapidjson::SizeType) { stack.pop_back(); return true; }
  bool StartArray() { Node n; n.type = Node::Type::Array; stack.push_back(place(std::move(n))); return true; }
  bool EndArray(rapidjson::SizeType) { stack.pop_back(); return true; }
};

class RulesParser {
 public:
  RulesParser(std::string_view json, const std::string& file) : json_(json), file_(file) {}

  std::vector<Rule> parse() {
    // rapidjson needs a NUL-terminated buffer.
    const std::string text(json_);
    rapidjson::StringStream ss(text.c_str());
    Builder builder;
    builder.stream = &ss;
    rapidjson::Reader reader;
    auto result = reader.Parse<rapidjson::kParseCommentsFlag>(ss, builder);
    if (result.IsError())
      fail(result.Offset(), std::string("malformed JSON: ") + rapidjson::GetParseError_En(result.Code()));
    const Node& root = builder.root;
    if (root.type != Node::Type::Object) fail(root.offset, "expected an object {\"gemm_rules\": [...]}");
    const Node* list = nullptr;
    for (const auto& [key, value] : root.members) {
      if (key == "gemm_rules") list = &value;
      else if (key != "comment") fail(value.key_offset, "unknown key \"" + key + "\" (expected \"gemm_rules\")");
    }
    if (!list) fail(root.offset, "missing \"gemm_rules\"");
    if (list->type != Node::Type::Array) fail(list->offset, "\"gemm_rules\" must be an array");
    std::vector<Rule> rules;
    std::set<std::string> ids;
    for (const auto& item : list->items) {
      rules.push_back(rule(item));
      if (!ids.insert(rules.back().id).second)
        fail(item.offset, "duplicate rule id \"" + rules.back().id + "\"");
    }
    return rules;
  }

 private:
  [[noreturn]] void fail(size_t offset, const std::string& message) const {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < offset && i < json_.size(); ++i) {
      if (json_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw readers::InputError(file_, line, column, message);
  }

  const std::string& string_of(const Node& n, const std::string& what) const {
    if (n.type != Node::Type::String) fail(n.offset, what + " must be a string");
    return n.s;
  }

  DimSource dim(const Node& n, const std::string& what) const {
    if (n.type != Node::Type::Object)
      fail(n.offset, what + " must be an object such as {\"arg\": 0, \"type\": \"int32\"}");
    DimSource d;
    int kinds = 0;
    const Node* type = nullptr;
    for (const auto& [key, v] : n.members) {
      auto index = [&]() -> int64_t {
        if (v.type != Node::Type::Int || !v.i_fits || v.i < 0 || v.i > 1023)
          fail(v.offset, what + "." + key + " must be an integer in 0..1023");
        return v.i;
      };
      if (key == "arg") {
        d.kind = DimSource::Kind::Arg;
        d.index = static_cast<unsigned>(index());
        ++kinds;
      } else if (key == "gws") {
        d.kind = DimSource::Kind::Gws;
        d.index = static_cast<unsigned>(index());
        if (d.index > 2) fail(v.offset, what + ".gws must be 0, 1 or 2");
        ++kinds;
      } else if (key == "option") {
        d.kind = DimSource::Kind::Option;
        d.option = string_of(v, what + ".option");
        if (d.option.empty() || d.option.find_first_of(" =") != std::string::npos)
          fail(v.offset, what + ".option must be a macro name such as \"M\"");
        ++kinds;
      } else if (key == "const") {
        d.kind = DimSource::Kind::Const;
        if (v.type != Node::Type::Int || !v.i_fits || v.i < 0)
          fail(v.offset, what + ".const must be a non-negative integer");
        d.value = v.i;
        ++kinds;
      } else if (key == "type") {
        type = &v;
      } else {
        fail(v.key_offset, "unknown key \"" + key + "\" in " + what +
                               " (expected arg+type, option, gws or const)");
      }
    }
    if (kinds != 1) fail(n.offset, what + " needs exactly one of \"arg\", \"option\", \"gws\", \"const\"");
    if (d.kind == DimSource::Kind::Arg) {
      if (!type) fail(n.offset, what + ": \"arg\" needs a \"type\" (int32, uint32, int64, uint64)");
      const std::string& t = string_of(*type, what + ".type");
      if (t == "int32") d.type = DimSource::ArgType::Int32;
      else if (t == "uint32") d.type = DimSource::ArgType::Uint32;
      else if (t == "int64") d.type = DimSource::ArgType::Int64;
      else if (t == "uint64") d.type = DimSource::ArgType::Uint64;
      else fail(type->offset, what + ".type must be int32, uint32, int64 or uint64, not \"" + t + "\"");
    } else if (type) {
      fail(type->offset, what + ": \"type\" only goes with \"arg\"");
    }
    return d;
  }

  Rule rule(const Node& n) const {
    if (n.type != Node::Type::Object) fail(n.offset, "each rule must be an object");
    Rule r;
    bool has_m = false, has_n = false, has_k = false, has_kernel = false;
    for (const auto& [key, v] : n.members) {
      if (key == "id") {
        r.id = string_of(v, "\"id\"");
      } else if (key == "kernel") {
        r.kernel = string_of(v, "\"kernel\"");
        try {
          r.regex = std::regex(r.kernel, std::regex::ECMAScript | std::regex::optimize);
        } catch (const std::regex_error& e) {
          fail(v.offset, "invalid regex \"" + r.kernel + "\": " + e.what());
        }
        has_kernel = true;
      } else if (key == "m") {
        r.m = dim(v, "\"m\"");
        has_m = true;
      } else if (key == "n") {
        r.n = dim(v, "\"n\"");
        has_n = true;
      } else if (key == "k") {
        r.k = dim(v, "\"k\"");
        has_k = true;
      } else if (key == "batch") {
        r.batch = dim(v, "\"batch\"");
      } else if (key == "padded") {
        if (v.type != Node::Type::Bool) fail(v.offset, "\"padded\" must be true or false");
        r.padded = v.b;
      } else if (key == "verified") {
        r.verified = string_of(v, "\"verified\"");
      } else if (key != "comment") {
        fail(v.key_offset, "unknown key \"" + key +
                               "\" in rule (expected id, kernel, m, n, k, batch, padded, verified, comment)");
      }
    }
    if (r.id.empty()) fail(n.offset, "rule without an \"id\"");
    if (!has_kernel) fail(n.offset, "rule \"" + r.id + "\" has no \"kernel\" regex");
    if (!has_m || !has_n || !has_k) fail(n.offset, "rule \"" + r.id + "\" needs \"m\", \"n\" and \"k\"");
    return r;
  }

  std::string_view json_;
  const std::string& file_;
};

}  // namespace

std::string_view builtin_rules_json() { return kBuiltinJson; }

const std::vector<Rule>& builtin_rules() {
  static const std::vector<Rule> rules = parse_rules(kBuiltinJson, "<built-in gemm rules>");
  return rules;
}

std::vector<Rule> parse_rules(std::string_view json, const std::string& file) {
  return RulesParser(json, file).parse();
}

std::optional<int64_t> option_value(std::string_view options, std::string_view name) {
  // Scan whitespace-separated tokens; "-D NAME=V" (two tokens) is accepted too, as
  // clBuildProgram does. The last definition wins, like the compiler.
  std::optional<int64_t> found;
  size_t i = 0;
  bool pending_d = false;
  while (i < options.size()) {
    while (i < options.size() && (options[i] == ' ' || options[i] == '\t' || options[i] == '\n')) ++i;
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
    if (def.size() <= name.size() + 1 || def.substr(0, name.size()) != name || def[name.size()] != '=')
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
        case DimSource::ArgType::Int32: v = static_cast<int32_t>(static_cast<uint32_t>(a.value)); break;
        case DimSource::ArgType::Uint32: v = static_cast<uint32_t>(a.value); break;
        case DimSource::ArgType::Int64: v = static_cast<int64_t>(a.value); break;
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
    case DimSource::Kind::Const: return std::to_string(s.value);
    case DimSource::Kind::Gws: return "gws[" + std::to_string(s.index) + "]";
    case DimSource::Kind::Option: return "-D" + s.option + "=";
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
