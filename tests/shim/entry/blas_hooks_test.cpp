// The BLAS hooks (shim/entry/blas_hooks.cpp, blas_call.cpp) on real CLBlast calls: blas_app
// runs on the real OpenCL device (PoCL) without the shim, with it, and with it and
// CLPROF_HOOK_BLAS=0. The app must compute the same results in all three runs; the hooked
// trace must hold one call range per library call (a C call, which CLBlast forwards to its
// C++ twin, once), with the arguments as passed, the returned status, and the launches the
// call made marked with its id; the unhooked trace none of that. The two traces stay in
// CLPROF_BLAS_WORK_DIR for the analyzer's tests (ctest fixture "blas_traces").
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "clprof/trace_schema.hpp"
#include "output_lines.hpp"
#include "run_child.hpp"

namespace fs = std::filesystem;

namespace {

// The shim, after the sanitizer runtime it was built against in a sanitizer build.
std::string shim_preload() {
  const std::string first = CLPROF_TEST_PRELOAD_FIRST;
  return first.empty() ? CLPROF_TEST_SHIM_LIB : first + ":" + CLPROF_TEST_SHIM_LIB;
}

namespace tf = clprof::trace;

struct Printed {
  std::string label, api, layout, trans;
  uint64_t m = 0, n = 0, k = 0, batch = 0;
  double beta = 0;
  int rc = 0;
  std::string line;
};

std::vector<Printed> printed_calls(const std::string& out) {
  std::vector<Printed> calls;
  for (const std::string& line : clprof::test::lines_starting_with(out, "call ")) {
    std::istringstream in(line.substr(5));
    Printed p;
    std::string rc;
    in >> p.label >> p.api >> p.layout >> p.trans >> p.m >> p.n >> p.k >> p.batch >> p.beta >> rc;
    REQUIRE_MESSAGE(rc.rfind("rc=", 0) == 0, "bad line: " << line);
    p.rc = std::stoi(rc.substr(3));
    p.line = line;
    calls.push_back(p);
  }
  return calls;
}

clprof::test::ChildResult run(const std::vector<std::pair<std::string, std::string>>& env) {
  const fs::path dir = CLPROF_BLAS_WORK_DIR;
  return clprof::test::run_child({CLPROF_BLAS_APP}, env, dir.string(), dir.string());
}

rapidjson::Document parse(const fs::path& trace) {
  rapidjson::Document d;
  const std::string text = clprof::test::slurp(trace.string());
  d.Parse(text.c_str());
  REQUIRE_MESSAGE(!d.HasParseError(), trace << " is not JSON");
  REQUIRE(d.HasMember("records"));
  return d;
}

std::string str(const rapidjson::Value& o, std::string_view key) {
  const std::string k(key);
  return o.HasMember(k.c_str()) && o[k.c_str()].IsString() ? o[k.c_str()].GetString() : "";
}
uint64_t num(const rapidjson::Value& o, std::string_view key) {
  const std::string k(key);
  return o.HasMember(k.c_str()) && o[k.c_str()].IsUint64() ? o[k.c_str()].GetUint64() : 0;
}
bool has(const rapidjson::Value& o, std::string_view key) {
  return o.HasMember(std::string(key).c_str());
}
double real(const rapidjson::Value& o, std::string_view key) {
  const std::string k(key);
  return o.HasMember(k.c_str()) && o[k.c_str()].IsNumber() ? o[k.c_str()].GetDouble() : -1.0;
}

}  // namespace

TEST_CASE("blas: CLBlast calls on PoCL, hooked and not") {
  const fs::path dir = CLPROF_BLAS_WORK_DIR;
  fs::create_directories(dir);
  const fs::path hooked = dir / "hooked.json", unhooked = dir / "unhooked.json";
  fs::remove(hooked);
  fs::remove(unhooked);

  const auto plain = run({{"LD_PRELOAD", ""}, {"CLPROF_OUTPUT", ""}});
  INFO("plain run:\n" << plain.out << plain.err);
  REQUIRE(plain.status == 0);
  const auto with = run({{"LD_PRELOAD", shim_preload()}, {"CLPROF_OUTPUT", hooked.string()}});
  INFO("hooked run:\n" << with.out << with.err);
  REQUIRE(with.status == 0);
  const auto without = run({{"LD_PRELOAD", shim_preload()},
                            {"CLPROF_OUTPUT", unhooked.string()},
                            {"CLPROF_HOOK_BLAS", "0"}});
  INFO("unhooked run:\n" << without.out << without.err);
  REQUIRE(without.status == 0);

  // Same statuses and results, call by call.
  const auto calls = printed_calls(plain.out);
  REQUIRE(calls.size() == 10);
  const auto calls_with = printed_calls(with.out), calls_without = printed_calls(without.out);
  REQUIRE(calls_with.size() == calls.size());
  REQUIRE(calls_without.size() == calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    CHECK(calls_with[i].line == calls[i].line);
    CHECK(calls_without[i].line == calls[i].line);
  }

  const auto d = parse(hooked);
  std::vector<const rapidjson::Value*> begins;
  std::map<uint64_t, const rapidjson::Value*> ends;
  std::map<uint64_t, std::vector<std::string>> kernels;  // by call id
  size_t launches = 0;
  for (const auto& r : d["records"].GetArray()) {
    const std::string type = str(r, "type");
    if (type == tf::range_begin::kTypeName && r.HasMember("blas")) begins.push_back(&r);
    if (type == tf::range_end::kTypeName) ends[num(r, tf::range_end::id)] = &r;
    if (type == tf::launch::kTypeName) {
      ++launches;
      kernels[num(r, tf::launch::call)].push_back(str(r, tf::launch::kernel));
    }
  }
  // One record per call: the C entry points call their C++ twins through the PLT.
  REQUIRE(begins.size() == calls.size());
  CHECK(kernels.count(0) == 0);  // every kernel of the app is CLBlast's, inside a call
  size_t in_calls = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    const Printed& p = calls[i];
    const rapidjson::Value& b = (*begins[i])["blas"];
    const uint64_t id = num(*begins[i], tf::range_begin::id);
    INFO("call " << p.line);
    CHECK(str(b, tf::blas::library) == "clblast");
    CHECK(str(b, tf::blas::api) == p.api);
    CHECK(str(*begins[i], tf::range_begin::name) == p.api);
    CHECK(str(b, tf::blas::precision) == "s");
    CHECK(str(b, tf::blas::layout) == p.layout);
    CHECK(str(b, tf::blas::trans_a) + str(b, tf::blas::trans_b) ==
          std::string{static_cast<char>(p.trans[0] + 32), static_cast<char>(p.trans[1] + 32)});
    CHECK(num(b, tf::blas::m) == p.m);
    CHECK(num(b, tf::blas::n) == p.n);
    CHECK(num(b, tf::blas::k) == p.k);
    CHECK(num(b, tf::blas::batch) == p.batch);
    CHECK(num(b, tf::blas::c_mem) != 0);
    // What blas_app passed: packed matrices (its leading dimensions), alpha 1, offsets 0
    // and, in the strided batch, one matrix after the other. The batched call has arrays
    // of scalars and offsets: none recorded.
    const bool row = p.layout == "row", ta = p.trans[0] == 'T', tb = p.trans[1] == 'T';
    CHECK(num(b, tf::blas::a_ld) == (row ? (ta ? p.m : p.k) : (ta ? p.k : p.m)));
    CHECK(num(b, tf::blas::b_ld) == (row ? (tb ? p.k : p.n) : (tb ? p.n : p.k)));
    CHECK(num(b, tf::blas::c_ld) == (row ? p.n : p.m));
    const bool strided = p.api.find("Strided") != std::string::npos;
    const bool arrays = !strided && p.api.find("Batched") != std::string::npos;
    CHECK(has(b, tf::blas::alpha) == !arrays);
    CHECK(has(b, tf::blas::a_offset) == !arrays);
    if (!arrays) {
      CHECK(real(b, tf::blas::alpha) == 1.0);
      CHECK(real(b, tf::blas::beta) == p.beta);
      CHECK(num(b, tf::blas::a_offset) == 0);
      CHECK(num(b, tf::blas::b_offset) == 0);
      CHECK(num(b, tf::blas::c_offset) == 0);
    }
    CHECK(has(b, tf::blas::a_stride) == strided);
    if (strided) {
      CHECK(num(b, tf::blas::a_stride) == p.m * p.k);
      CHECK(num(b, tf::blas::b_stride) == p.k * p.n);
      CHECK(num(b, tf::blas::c_stride) == p.m * p.n);
    }
    REQUIRE(ends.count(id) == 1);
    CHECK((*ends[id])[std::string(tf::range_end::status).c_str()].GetInt() == p.rc);
    const auto& ks = kernels[id];
    in_calls += ks.size();
    if (p.rc != 0) {
      CHECK(ks.empty());
      continue;
    }
    const bool direct = p.label.find("direct") == 0 || p.label.find("_direct") != std::string::npos;
    if (direct) {
      REQUIRE(ks.size() == 1);
      CHECK(ks[0].rfind("XgemmDirect", 0) == 0);
    } else {
      CHECK(ks.size() >= 2);  // padding/transposition around Xgemm
      size_t mains = 0;
      for (const auto& k : ks) mains += k.rfind("Xgemm", 0) == 0;
      CHECK(mains == 1);
    }
  }
  CHECK(in_calls == launches);

  // CLPROF_HOOK_BLAS=0: the same launches, no call record, no call marks.
  const auto u = parse(unhooked);
  size_t unhooked_launches = 0;
  for (const auto& r : u["records"].GetArray()) {
    const std::string type = str(r, "type");
    CHECK_FALSE(r.HasMember("blas"));
    CHECK_FALSE(r.HasMember(std::string(tf::launch::call).c_str()));
    unhooked_launches += type == tf::launch::kTypeName;
  }
  CHECK(unhooked_launches == launches);
}
