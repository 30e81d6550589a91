// End-to-end tests of libclprof.so on the fake driver. Object ids and kernel arguments: ids never
// reused, sub-buffers, NULL and unset arguments, 8-byte scalars that are buffer handles, memory
// imported through wrapped extensions.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "../../support/skip.hpp"  // tests/support: CLPROF_SKIP
#include "run_app.hpp"
#include "trace_checks.hpp"

using rapidjson::Value;
using namespace shim_test;

TEST_CASE("trace: wrapped extensions: imported memory is a buffer, a USM pointer a pointer") {
  for (const bool shim_on : {false, true}) {
    CAPTURE(shim_on);
    TempDir dir;
    const std::string out = dir.file("x.json");
    const RunResult r = run_app({"import_memory", shim_on, out, {}}, dir.path());
    REQUIRE(r.exit_code == 0);
    CHECK(r.values.at("found") % 2 == 1);        // the platform's lookup finds it
    CHECK(r.values.at("bad_import_rc") == -30);  // CL_INVALID_VALUE, the driver's
    if (!shim_on) continue;
    Trace t;
    REQUIRE(load_trace(out, t));
    std::map<long long, const Value*> by_gws;
    for (const Value* l : t.of_type("launch")) by_gws[nums(*l, "gws")[0]] = l;
    REQUIRE(by_gws.count(70));
    REQUIRE(by_gws.count(71));
    const Value& a70 = member(*by_gws[70], "args")[0];
    const Value& a71 = member(*by_gws[71], "args")[0];
    CHECK(std::string(a70[0].GetString()) == "buffer");
    CHECK(a70[3].GetInt64() == 4096);
    CHECK(std::string(a71[0].GetString()) == "buffer");
    CHECK(a71[3].GetInt64() == 2048);
    CHECK(a70[2].GetInt64() > 0);
    CHECK(a71[2].GetInt64() != a70[2].GetInt64());
    REQUIRE(r.values.at("dlsym_found") == 1);
    REQUIRE(by_gws.count(72));
    const Value& a72 = member(*by_gws[72], "args")[0];
    CHECK(std::string(a72[0].GetString()) == "buffer");
    CHECK(a72[3].GetInt64() == 1024);
    REQUIRE(r.values.at("usm_found") == 1);
    CHECK(r.values.at("usm_bad_index_rc") == -49);  // CL_INVALID_ARG_INDEX, the driver's
    REQUIRE(by_gws.count(73));
    CHECK(to_json(member(*by_gws[73], "args")[0]) == R"(["svm",0,"0x7f0012340000"])");
  }
}

TEST_CASE("trace: ids are never reused; sub-buffers, NULL and unset arguments") {
  TempDir dir;
  const std::string out = dir.file("x.json");
  // glibc fills every new heap block with ~253 = 0x02 (ArgKind::Buffer): a kernel entry
  // whose never-set arguments were left as the allocator's memory would show them as
  // buffers here (AddressSanitizer's own fill, 0xbe, caught it first).
  const RunResult shim = run_app({"ids", true, out, {{"MALLOC_PERTURB_", "253"}}}, dir.path());
  REQUIRE(shim.exit_code == 0);
  CHECK(shim.values.at("unset_rc") == -52);  // CL_INVALID_KERNEL_ARGS passed through
  Trace t;
  REQUIRE(load_trace(out, t));
  std::map<long long, const Value*> by_gws;
  std::vector<const Value*> tasks;
  for (const Value* l : t.of_type("launch")) {
    if (str(*l, "kernel") == "noargs") {
      tasks.push_back(l);
    } else {
      by_gws[nums(*l, "gws")[0]] = l;
    }
  }
  REQUIRE(by_gws.size() == 7);
  for (long long g : {40, 41, 42, 43, 44, 45, 46}) REQUIRE(by_gws.count(g));
  // A launch without a kernel (the driver's CL_INVALID_KERNEL passed through) is a valid
  // record with an empty name and no kernel id (it once wrote "kernel":, with no value).
  CHECK(shim.values.at("null_kernel_rc") == -48);  // CL_INVALID_KERNEL
  CHECK(num(*by_gws[46], "rc") == -48);
  CHECK(str(*by_gws[46], "kernel").empty());
  CHECK(num(*by_gws[46], "kernel_id") == 0);
  CHECK(str(*by_gws[46], "status") == "not_enqueued");
  auto arg0 = [&](long long g) -> const Value& { return member(*by_gws[g], "args")[0]; };
  const long long a_id = member(*by_gws[40], "args")[1][2].GetInt64();  // vadd arg 1 = b
  for (long long g : {40, 41, 42}) {
    CAPTURE(g);
    REQUIRE(to_json(arg0(g)).rfind("[\"buffer\",8,", 0) == 0);
    REQUIRE(arg0(g).Size() == 4);
  }
  CHECK(arg0(40)[3].GetInt64() == 256);
  CHECK(arg0(41)[3].GetInt64() == 128);
  const long long x_id = arg0(40)[2].GetInt64(), y_id = arg0(41)[2].GetInt64();
  CHECK(x_id > 0);
  CHECK(y_id > 0);
  CAPTURE(shim.values.at("same_mem_handle"));
  CHECK(x_id != y_id);  // even when the driver handed out the same handle again
  CHECK(std::string(arg0(42)[0].GetString()) == "buffer");
  CHECK(arg0(42)[3].GetInt64() == 512);
  CHECK(arg0(42)[2].GetInt64() != x_id);
  CHECK(arg0(42)[2].GetInt64() != y_id);
  CHECK(arg0(42)[2].GetInt64() != a_id);
  // docs/trace-format.md: without kernel-argument info a NULL arg_value reads as __local
  // memory; a pointer to a NULL cl_mem is the NULL buffer.
  CHECK(to_json(arg0(43)) == "[\"local\",8]");
  CHECK(to_json(arg0(45)) == "[\"buffer\",8,0,0]");
  const Value& unset = *by_gws[44];
  CHECK(num(unset, "rc") == -52);
  CHECK(str(unset, "status") == "not_enqueued");
  CHECK(is_null(unset, "device_ns"));
  const std::string args = to_json(member(unset, "args"));
  CHECK(args.find(",[\"unset\"],[\"unset\"],[\"unset\"]]") != std::string::npos);
  REQUIRE(tasks.size() == 2);
  CAPTURE(shim.values.at("same_kernel_handle"));
  CHECK(num(*tasks[0], "kernel_id") != num(*tasks[1], "kernel_id"));
  std::set<long long> noargs_ids;
  for (const Value* k : t.of_type("kernel"))
    if (str(*k, "name") == "noargs") noargs_ids.insert(num(*k, "id"));
  CHECK(noargs_ids.size() == 3);
  CHECK(noargs_ids.count(num(*tasks[0], "kernel_id")) == 1);
  CHECK(noargs_ids.count(num(*tasks[1], "kernel_id")) == 1);
}

TEST_CASE("trace: an 8-byte scalar reads as a buffer once a buffer lives at that value") {
  TempDir dir;
  const std::string out = dir.file("s.json");
  const RunResult shim = run_app({"scalar64", true, out, {}}, dir.path());
  REQUIRE(shim.exit_code == 0);
  // Without the address reuse this test would prove nothing (glibc hands back the block
  // just freed, so the fake driver's second buffer lands where the first one was).
  // AddressSanitizer quarantines freed blocks: there the case cannot be staged.
  if (std::string(CLPROF_TEST_PRELOAD_FIRST).find("asan") != std::string::npos &&
      shim.values.at("same_mem_handle") == 0) {
    CLPROF_SKIP("freed memory is not reused under AddressSanitizer: the case cannot be staged");
  }
  REQUIRE(shim.values.at("same_mem_handle") == 1);
  Trace t;
  REQUIRE(load_trace(out, t));
  std::vector<const Value*> takes;
  for (const Value* l : by_seq(t))
    if (str(*l, "type") == "launch" && str(*l, "kernel") == "take64") takes.push_back(l);
  REQUIRE(takes.size() == 3);
  auto arg0 = [&](int i) { return to_json(member(*takes[i], "args")[0]); };
  CHECK(arg0(0).rfind("[\"scalar\",8,\"", 0) == 0);  // x was released: a number
  CHECK(arg0(1).rfind("[\"buffer\",8,", 0) == 0);    // y lives there now
  CHECK(member(*takes[1], "args")[0][3].GetInt64() == 64);
  CHECK(arg0(2) == "[\"scalar\",8,\"8877665544332211\",1234605616436508552]");
}
