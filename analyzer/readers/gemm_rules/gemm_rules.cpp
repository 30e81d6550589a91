#include "readers/gemm_rules/gemm_rules.hpp"

#include <set>

#include "readers/import_json.hpp"

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

namespace ij = readers::import_json;

// Rules files are read with the importers' JSON tree (iterative parsing with a nesting
// ceiling: a file nested 30,000 deep is an error, not a stack overflow), comments allowed.
class RulesParser {
 public:
  RulesParser(std::string_view json, const std::string& file) : src_{file, json} {}

  std::vector<Rule> parse() {
    size_t end = 0;
    const ij::Value root = ij::parse_value(src_, 0, &end, /*allow_comments=*/true);
    const size_t rest = skip_comments(end);
    if (rest < src_.content.size()) fail(rest, "expected end of input after the rules object");
    if (!root.is_object()) fail(root.offset, "expected an object {\"gemm_rules\": [...]}");
    const ij::Value* list = nullptr;
    for (const auto& [key, value] : root.members) {
      if (key == "gemm_rules")
        list = &value;
      else if (key != "comment")
        fail(key_offset(value), "unknown key \"" + key + "\" (expected \"gemm_rules\")");
    }
    if (!list) fail(root.offset, "missing \"gemm_rules\"");
    if (!list->is_array()) fail(list->offset, "\"gemm_rules\" must be an array");
    if (list->items.size() > kMaxRules)
      fail(list->offset, "more than " + std::to_string(kMaxRules) + " rules");
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
    throw src_.error_at(offset, message);
  }

  // The tree keeps where values start, not keys: a member's key starts at the '"' before
  // the value's ':' -- good enough to point at the line of an unknown key.
  size_t key_offset(const ij::Value& value) const {
    size_t p = value.offset;
    while (p > 0 && src_.content[p - 1] != '"') --p;  // back over ':' and spaces
    if (p > 0) --p;
    while (p > 0 && src_.content[p - 1] != '"') --p;  // back over the key's text
    return p > 0 ? p - 1 : 0;
  }

  size_t skip_comments(size_t p) const {
    const std::string_view c = src_.content;
    for (;;) {
      p = ij::skip_whitespace(c, p);
      if (c.substr(p, 2) == "//") {
        const size_t nl = c.find('\n', p);
        p = nl == std::string_view::npos ? c.size() : nl + 1;
      } else if (c.substr(p, 2) == "/*") {
        const size_t close = c.find("*/", p + 2);
        p = close == std::string_view::npos ? c.size() : close + 2;
      } else {
        return p;
      }
    }
  }

  const std::string& string_of(const ij::Value& n, const std::string& what) const {
    if (!n.is_string()) fail(n.offset, what + " must be a string");
    return n.text;
  }

  // A JSON integer in [min, max], else fail with `message`.
  int64_t integer(const ij::Value& v, int64_t min, int64_t max, const std::string& message) const {
    int64_t x = 0;
    if (!v.is_number() || v.text.find_first_of(".eE") != std::string::npos ||
        !ij::scaled_integer(v.text, 0, &x) || x < min || x > max)
      fail(v.offset, message);
    return x;
  }

  DimSource dim(const ij::Value& n, const std::string& what) const {
    if (!n.is_object())
      fail(n.offset, what + " must be an object such as {\"arg\": 0, \"type\": \"int32\"}");
    DimSource d;
    int kinds = 0;
    const ij::Value* type = nullptr;
    for (const auto& [key, v] : n.members) {
      auto index = [&, &key = key, &v = v]() -> unsigned {
        return static_cast<unsigned>(
            integer(v, 0, 1023, what + "." + key + " must be an integer in 0..1023"));
      };
      if (key == "arg") {
        d.kind = DimSource::Kind::Arg;
        d.index = index();
        ++kinds;
      } else if (key == "gws") {
        d.kind = DimSource::Kind::Gws;
        d.index = index();
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
        d.value = integer(v, 0, INT64_MAX, what + ".const must be a non-negative integer");
        ++kinds;
      } else if (key == "type") {
        type = &v;
      } else {
        fail(key_offset(v), "unknown key \"" + key + "\" in " + what +
                                " (expected arg+type, option, gws or const)");
      }
    }
    if (kinds != 1)
      fail(n.offset, what + " needs exactly one of \"arg\", \"option\", \"gws\", \"const\"");
    if (d.kind == DimSource::Kind::Arg) {
      if (!type) fail(n.offset, what + ": \"arg\" needs a \"type\" (int32, uint32, int64, uint64)");
      const std::string& t = string_of(*type, what + ".type");
      if (t == "int32")
        d.type = DimSource::ArgType::Int32;
      else if (t == "uint32")
        d.type = DimSource::ArgType::Uint32;
      else if (t == "int64")
        d.type = DimSource::ArgType::Int64;
      else if (t == "uint64")
        d.type = DimSource::ArgType::Uint64;
      else
        fail(type->offset,
             what + ".type must be int32, uint32, int64 or uint64, not \"" + t + "\"");
    } else if (type) {
      fail(type->offset, what + ": \"type\" only goes with \"arg\"");
    }
    return d;
  }

  Rule rule(const ij::Value& n) const {
    if (!n.is_object()) fail(n.offset, "each rule must be an object");
    Rule r;
    bool has_m = false, has_n = false, has_k = false, has_kernel = false;
    for (const auto& [key, v] : n.members) {
      if (key == "id") {
        r.id = string_of(v, "\"id\"");
      } else if (key == "kernel") {
        r.kernel = string_of(v, "\"kernel\"");
        try {
          r.regex = NameRegex(r.kernel);
        } catch (const RegexError& e) {
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
        if (v.type != ij::Value::Type::Bool) fail(v.offset, "\"padded\" must be true or false");
        r.padded = v.boolean;
      } else if (key == "verified") {
        r.verified = string_of(v, "\"verified\"");
      } else if (key != "comment") {
        fail(key_offset(v),
             "unknown key \"" + key +
                 "\" in rule (expected id, kernel, m, n, k, batch, padded, verified, comment)");
      }
    }
    if (r.id.empty()) fail(n.offset, "rule without an \"id\"");
    if (!has_kernel) fail(n.offset, "rule \"" + r.id + "\" has no \"kernel\" regex");
    if (!has_m || !has_n || !has_k)
      fail(n.offset, "rule \"" + r.id + "\" needs \"m\", \"n\" and \"k\"");
    return r;
  }

  ij::Source src_;
};

}  // namespace

std::string_view builtin_rules_json() {
  return kBuiltinJson;
}

const std::vector<Rule>& builtin_rules() {
  static const std::vector<Rule> rules = parse_rules(kBuiltinJson, "<built-in gemm rules>");
  return rules;
}

std::shared_ptr<const std::vector<Rule>> shared_builtin_rules() {
  static const auto rules = std::make_shared<const std::vector<Rule>>(builtin_rules());
  return rules;
}

std::vector<Rule> parse_rules(std::string_view json, const std::string& file) {
  return RulesParser(json, file).parse();
}

}  // namespace clprof::gemm
