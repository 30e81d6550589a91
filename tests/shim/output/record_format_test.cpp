#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <cstring>
#include <memory>
#include <string>

#include "clprof/trace_schema.hpp"
#include "output/object_format.hpp"
#include "output/record_format.hpp"
#include "output/utf8.hpp"
#include "record_text.hpp"

using namespace clprof::shim;
using shim_test::record_text;

namespace {

std::unique_ptr<OpRecord> blank(RecordKind kind) {
  auto r = std::make_unique<OpRecord>();
  std::memset(static_cast<void*>(r.get()), 0, sizeof(OpRecord));
  r->kind = kind;
  return r;
}

ArgSnapshot buffer_arg(std::uint64_t id, std::uint64_t bytes) {
  ArgSnapshot a{};
  a.kind = ArgKind::Buffer;
  a.size = 8;
  a.object.id = id;
  a.object.mem_bytes = bytes;
  return a;
}

ArgSnapshot scalar_arg(const void* data, std::uint32_t size) {
  ArgSnapshot a{};
  a.kind = ArgKind::Scalar;
  a.size = size;
  std::memcpy(a.bytes, data, size < 64 ? size : 64);
  return a;
}

std::unique_ptr<OpRecord> vadd_launch() {
  auto r = blank(RecordKind::Launch);
  r->seq = 7;
  r->tid = 1234;
  r->kernel_name = "\"vadd\"";
  r->kernel_id = 1;
  r->program_id = 1;
  r->queue_id = 1;
  r->context_id = 1;
  r->device_id = 1;
  r->work_dim = 1;
  r->gws[0] = 1024;
  r->has_lws = true;
  r->lws[0] = 64;
  r->n_args = r->total_args = 3;
  r->args[0] = buffer_arg(1, 4096);
  r->args[1] = buffer_arg(2, 4096);
  const std::uint32_t n = 1024;
  r->args[2] = scalar_arg(&n, 4);
  r->host_begin_ns = 100;
  r->host_end_ns = 200;
  r->has_device_ns = true;
  r->device_ns[0] = 1000;
  r->device_ns[1] = 1100;
  r->device_ns[2] = 1200;
  r->device_ns[3] = 1300;
  r->status = OpStatus::Complete;
  r->n_ranges = 2;
  r->ranges[0] = 1;
  r->ranges[1] = 2;
  return r;
}

}  // namespace

TEST_CASE("launch record: the documented example, byte for byte") {
  CHECK(
      record_text(*vadd_launch()) ==
      R"({"type":"launch","seq":7,"tid":1234,"rc":0,"kernel":"vadd","kernel_id":1,"program_id":1,)"
      R"("queue_id":1,"context_id":1,"device_id":1,"gwo":null,"gws":[1024],"lws":[64],)"
      R"("args":[["buffer",8,1,4096],["buffer",8,2,4096],["scalar",4,"00040000",1024]],)"
      R"("host_ns":[100,200],"device_ns":[1000,1100,1200,1300],"status":"complete","ranges":[1,2]})");
}

TEST_CASE("a 3-argument launch stays under 400 bytes with realistic numbers") {
  // The budget's case: the 100000th launch a minute into the run, a 13-digit device
  // clock (PoCL: ns since boot), no open range, 64 Ki work-items on 256 KiB buffers.
  // The margin is small: each open range costs 2+ bytes, 4 MiB buffers and 1 Mi
  // work-items ~6, a 19-digit device clock ~25 (see docs/trace-format.md).
  auto r = vadd_launch();
  r->seq = 100000;
  r->tid = 12345;
  r->gws[0] = 65536;
  r->has_lws = false;
  r->args[0].object.mem_bytes = r->args[1].object.mem_bytes = 262144;
  const std::uint32_t n = 65536;
  std::memcpy(r->args[2].bytes, &n, 4);
  r->host_begin_ns = 60000000000;
  r->host_end_ns = 60000012345;
  for (auto& t : r->device_ns) t = 1034372325729ULL;
  r->n_ranges = 0;
  CHECK(record_text(*r).size() + 2 <= 400);  // + ",\n"
}

TEST_CASE("launch variants: task api, 3-D offsets, error status, not enqueued") {
  auto r = vadd_launch();
  r->api = "clEnqueueTask";
  r->work_dim = 3;
  r->has_gwo = true;
  r->gwo[0] = 1;
  r->gwo[1] = 2;
  r->gwo[2] = 3;
  r->gws[1] = r->gws[2] = 2;
  r->lws[1] = r->lws[2] = 1;
  r->n_args = r->total_args = 0;
  r->status = OpStatus::Error;
  r->exec_status = -5;
  r->n_ranges = 0;
  CHECK(
      record_text(*r) ==
      R"({"type":"launch","seq":7,"tid":1234,"rc":0,"api":"clEnqueueTask","kernel":"vadd","kernel_id":1,)"
      R"("program_id":1,"queue_id":1,"context_id":1,"device_id":1,"gwo":[1,2,3],"gws":[1024,2,2],)"
      R"("lws":[64,1,1],"args":[],"host_ns":[100,200],"device_ns":[1000,1100,1200,1300],)"
      R"("status":"error","exec_status":-5,"ranges":[]})");

  r->rc = -48;
  r->status = OpStatus::NotEnqueued;
  r->has_device_ns = false;
  const std::string s = record_text(*r);
  CHECK(s.find(R"("rc":-48,)") != std::string::npos);
  CHECK(s.find(R"("device_ns":null,"status":"not_enqueued","ranges":[])") != std::string::npos);
}

TEST_CASE("every argument kind") {
  auto r = vadd_launch();
  ArgSnapshot local{};
  local.kind = ArgKind::Local;
  local.size = 256;
  ArgSnapshot svm{};
  svm.kind = ArgKind::Svm;
  svm.svm_pointer = 0x7f00dead0000ULL;
  ArgSnapshot sampler{};
  sampler.kind = ArgKind::Sampler;
  sampler.size = 8;
  sampler.object.id = 3;
  ArgSnapshot unset{};
  unset.kind = ArgKind::Unset;
  ArgSnapshot image = buffer_arg(5, 65536);
  image.kind = ArgKind::Image;
  ArgSnapshot pipe = buffer_arg(6, 1024);
  pipe.kind = ArgKind::Pipe;
  const unsigned char three[3] = {1, 2, 255};
  const std::uint64_t big = 0x0102030405060708ULL;
  unsigned char wide[80];
  for (unsigned i = 0; i < sizeof wide; ++i) wide[i] = static_cast<unsigned char>(i);
  const ArgSnapshot args[] = {local,
                              svm,
                              sampler,
                              unset,
                              image,
                              pipe,
                              scalar_arg(three, 3),
                              scalar_arg(&big, 8),
                              scalar_arg(wide, 80)};
  r->n_args = r->total_args = sizeof args / sizeof args[0];
  for (unsigned i = 0; i < r->n_args; ++i) r->args[i] = args[i];
  std::string hex64;
  for (unsigned i = 0; i < 64; ++i) {
    static const char* d = "0123456789abcdef";
    hex64 += d[i >> 4];
    hex64 += d[i & 15];
  }
  const std::string s = record_text(*r);
  CHECK(s.find(R"("args":[["local",256],["svm",0,"0x7f00dead0000"],["sampler",8,3],["unset"],)"
               R"(["image",8,5,65536],["pipe",8,6,1024],["scalar",3,"0102ff"],)"
               R"(["scalar",8,"0807060504030201",72623859790382856],["scalar",80,")" +
               hex64 + R"("]],)") != std::string::npos);
}

TEST_CASE("scalar arguments of 1 to 9 bytes: hex and value for every byte value") {
  // The formatter turns up to eight bytes into hex without a table; this checks it against
  // a plain byte-by-byte reference for every byte value in every position, with bytes past
  // the argument's size set (they must not show).
  auto r = vadd_launch();
  r->n_args = r->total_args = 1;
  for (std::uint32_t size = 1; size <= 9; ++size) {
    for (unsigned v = 0; v < 256; ++v) {
      unsigned char bytes[64];
      for (unsigned i = 0; i < sizeof bytes; ++i)
        bytes[i] = static_cast<unsigned char>(v + 37 * i);  // every value at every index
      r->args[0] = scalar_arg(bytes, 64);
      r->args[0].size = size;
      std::string hex;
      std::uint64_t value = 0;
      for (unsigned i = 0; i < size; ++i) {
        static const char* d = "0123456789abcdef";
        hex += d[bytes[i] >> 4];
        hex += d[bytes[i] & 15];
        if (i < 8) value |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
      }
      const bool integer = size == 1 || size == 2 || size == 4 || size == 8;
      const std::string want = R"("args":[["scalar",)" + std::to_string(size) + ",\"" + hex + "\"" +
                               (integer ? "," + std::to_string(value) : "") + "]],";
      const std::string got = record_text(*r);
      INFO("size " << size << " first byte " << v);
      CHECK(got.find(want) != std::string::npos);
    }
  }
}

TEST_CASE("an argument kind out of range reads as unset") {
  auto r = vadd_launch();
  r->n_args = r->total_args = 1;
  std::memset(static_cast<void*>(&r->args[0]), 0xbe, sizeof r->args[0]);
  CHECK(record_text(*r).find(R"("args":[["unset"]],)") != std::string::npos);
}

TEST_CASE("more arguments than the record keeps are counted") {
  auto r = vadd_launch();
  r->total_args = 40;
  CHECK(record_text(*r).find(R"(["scalar",4,"00040000",1024]],"args_total":40,"host_ns")") !=
        std::string::npos);
}

TEST_CASE("transfer and sync records") {
  auto t = blank(RecordKind::Transfer);
  t->seq = 8;
  t->tid = 1234;
  t->api = "clEnqueueReadBuffer";
  t->op = TransferOp::Read;
  t->queue_id = 1;
  t->device_id = 1;
  t->bytes = 4096;
  t->blocking = true;
  t->host_begin_ns = 300;
  t->host_end_ns = 900;
  t->status = OpStatus::Incomplete;
  CHECK(
      record_text(*t) ==
      R"({"type":"transfer","seq":8,"tid":1234,"rc":0,"api":"clEnqueueReadBuffer","op":"read","queue_id":1,)"
      R"("device_id":1,"bytes":4096,"blocking":true,"host_ns":[300,900],"device_ns":null,)"
      R"("status":"incomplete","ranges":[]})");

  auto s = blank(RecordKind::Sync);
  s->seq = 9;
  s->tid = 1234;
  s->api = "clWaitForEvents";
  s->host_begin_ns = 1000;
  s->host_end_ns = 5000;
  CHECK(
      record_text(*s) ==
      R"({"type":"sync","seq":9,"tid":1234,"rc":0,"api":"clWaitForEvents","queue_id":0,"host_ns":[1000,5000]})");
}

TEST_CASE("records parse as JSON") {
  const std::string s = record_text(*vadd_launch());
  rapidjson::Document d;
  d.Parse(s.c_str());
  REQUIRE_FALSE(d.HasParseError());
  CHECK(d["args"][2][3].GetUint64() == 1024);
}

TEST_CASE("strings become well-formed UTF-8: each stray byte one U+FFFD") {
  const std::string fffd = "\xEF\xBF\xBD";
  // Well-formed, at every length's lowest and highest code point: unchanged.
  for (const std::string& ok : {std::string("plain ascii \x7f"), std::string("\xC2\x80 \xDF\xBF"),
                                std::string("\xE0\xA0\x80 \xEF\xBF\xBF \xED\x9F\xBF"),
                                std::string("\xF0\x90\x80\x80 \xF4\x8F\xBF\xBF"), std::string()}) {
    CAPTURE(ok);
    CHECK(utf8_valid_prefix(ok) == ok.size());
    CHECK(valid_utf8(ok) == ok);
  }
  const std::pair<std::string, std::string> bad[] = {
      {"caf\xE9", "caf" + fffd},                        // Latin-1
      {"\x80x", fffd + "x"},                            // a lone continuation byte
      {"\xC0\x80", fffd + fffd},                        // overlong NUL
      {"\xE0\x80\x80", fffd + fffd + fffd},             // overlong 3-byte
      {"\xED\xA0\x80", fffd + fffd + fffd},             // a UTF-16 surrogate
      {"\xF4\x90\x80\x80", fffd + fffd + fffd + fffd},  // above U+10FFFF
      {"ab\xE2\x82", "ab" + fffd + fffd},               // cut short at the end
      {"\xFF\xFE", fffd + fffd},
      {"\xE2\x82\xAC\xE9\xE2\x82\xAC",
       "\xE2\x82\xAC" + fffd + "\xE2\x82\xAC"},  // around a euro sign
  };
  for (const auto& [in, want] : bad) {
    CAPTURE(in);
    CHECK(utf8_valid_prefix(in) < in.size());
    CHECK(valid_utf8(in) == want);
    CHECK(utf8_valid_prefix(valid_utf8(in)) == want.size());
  }
  CHECK(json_quote("k\xE9") == "\"k" + fffd + "\"");
  CHECK(JsonLine("build").str("options", "-DX=\xE9").finish() ==
        "{\"type\":\"build\",\"options\":\"-DX=" + fffd + "\"}");
}

TEST_CASE("json_quote escapes") {
  CHECK(json_quote("vadd") == "\"vadd\"");
  CHECK(json_quote("a\"b\\c\n") == R"("a\"b\\c\n")");
}

TEST_CASE("JsonLine builds cold records in call order") {
  const std::string s = JsonLine("range_begin")
                            .unum("id", 2)
                            .unum("parent", 1)
                            .str("name", "conv\"1")
                            .num("tid", 1234)
                            .num("host_ns", -5)
                            .boolean("open", true)
                            .null("x")
                            .unums("ids", {1, 2})
                            .strs("k", {"a", "b"})
                            .finish();
  CHECK(s == R"({"type":"range_begin","id":2,"parent":1,"name":"conv\"1","tid":1234,"host_ns":-5,)"
             R"("open":true,"x":null,"ids":[1,2],"k":["a","b"]})");
}

TEST_CASE("header line opens the records array; end record closes counts") {
  HeaderFacts h;
  h.pid = 10;
  h.ppid = 1;
  h.command_line = {"./app", "-n", "3"};
  h.start_unix_ns = 1700000000000000000;
  h.host_start_ns = 5000;
  h.host_name = "box";
  h.clprof_version = "0.1.0";
  h.settings = {{"CLPROF_OUTPUT", "t.json"}};
  h.session_id = "0123456789abcdef";
  CHECK(
      format_header_line(h) ==
      R"({"format":"clprof-trace","version":4,"header":{"pid":10,"ppid":1,"command_line":["./app","-n","3"],)"
      R"("start_unix_ns":1700000000000000000,"host_start_ns":5000,"host_clock":"CLOCK_MONOTONIC",)"
      R"("host_name":"box","rank":null,"world_size":null,"clprof_version":"0.1.0",)"
      R"("settings":{"CLPROF_OUTPUT":"t.json"},"session_id":"0123456789abcdef"},"records":[)");
  h.rank = 2;
  h.world_size = 4;
  CHECK(format_header_line(h).find(
            R"("host_name":"box","rank":2,"world_size":4,"clprof_version")") != std::string::npos);
  CHECK(format_end_record(99, {{"launch", 3}, {"mark", 0}}, 1, 0) ==
        R"({"type":"end","host_ns":99,"counts":{"launch":3,"mark":0},"incomplete":1,"dropped":0})");
  // With the live objects (events unknown: absent).
  LiveFacts live;
  live.counts = {{"buffers", 2}, {"buffer_bytes", 8192}};
  CHECK(format_end_record(99, {{"launch", 3}}, 0, 0, &live) ==
        R"({"type":"end","host_ns":99,"counts":{"launch":3},"incomplete":0,"dropped":0,)"
        R"("live":{"buffers":2,"buffer_bytes":8192}})");
}

TEST_CASE("kernel_device line: known values, and null for what the driver refused") {
  // kernel 3, program 2, device 1, name k"q: a multiple of 32, no work-group size.
  const KernelDeviceFacts f{3, 2, 1, "k\"q", true, false, 32, 0};
  CHECK(format_kernel_device_line(f) ==
        R"({"type":"kernel_device","kernel_id":3,"program_id":2,"kernel":"k\"q","device_id":1,)"
        R"("preferred_multiple":32,"work_group_size":null})");
}

TEST_CASE("integer formatter: every digit count and the extremes, as std::to_string") {
  std::uint64_t v = 1;
  for (int digits = 1; digits <= 20; ++digits) {
    for (std::uint64_t x : {v - 1, v, v + 1, v * 2, v * 9 + (v - 1)}) {
      if (digits == 20 && x < v) continue;
      CHECK(format_u64_for_test(x) == std::to_string(x));
    }
    if (digits < 20) v *= 10;
  }
  CHECK(format_u64_for_test(UINT64_MAX) == "18446744073709551615");
  CHECK(format_u64_for_test(0) == "0");
  std::uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < 10000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const std::uint64_t y = x >> (i % 64);
    CHECK(format_u64_for_test(y) == std::to_string(y));
    const auto s = static_cast<std::int64_t>(y);
    CHECK(format_i64_for_test(s) == std::to_string(s));
    CHECK(format_i64_for_test(-s / 3) == std::to_string(-s / 3));
  }
  CHECK(format_i64_for_test(INT64_MIN) == "-9223372036854775808");
  CHECK(format_i64_for_test(INT64_MAX) == "9223372036854775807");
  CHECK(format_i64_for_test(-1) == "-1");
}

TEST_CASE("format_op into a buffer: same text, room bound holds a long kernel name") {
  auto r = vadd_launch();
  const std::string expected = record_text(*r);
  std::string buf(op_chars_bound(*r), '\0');
  CHECK(std::string(buf.data(), format_op(*r, buf.data())) == expected);

  const std::string long_name = "\"" + std::string(20000, 'k') + "\"";
  r->kernel_name = long_name.c_str();
  r->n_args = r->total_args = 32;
  const std::uint8_t bytes[64] = {0xff};
  for (unsigned i = 0; i < 32; ++i) r->args[i] = scalar_arg(bytes, 0xffffffffu);
  r->host_begin_ns = INT64_MIN;
  r->host_end_ns = INT64_MAX;
  const std::size_t bound = op_chars_bound(*r);
  std::string big(bound, '\0');
  const std::size_t n = static_cast<std::size_t>(format_op(*r, big.data()) - big.data());
  CHECK(n <= bound);
  CHECK(n > 20000);
  const std::string via_string = record_text(*r);
  CHECK(via_string == std::string(big.data(), n));
  rapidjson::Document d;
  d.Parse(via_string.c_str());
  CHECK_FALSE(d.HasParseError());
}

TEST_CASE("room bound with a cache: a cached kernel name needs no strlen, a long one still fits") {
  LaunchTextCache cache;
  auto r = vadd_launch();
  const std::string expected = record_text(*r);
  for (int i = 0; i < 2; ++i) {  // the second launch finds its name in the cache
    const std::size_t bound = op_chars_bound(*r, &cache);
    CHECK(bound >= kMaxOpChars + std::strlen(r->kernel_name));
    std::string buf(bound, '\0');
    CHECK(std::string(buf.data(), format_op(*r, buf.data(), &cache)) == expected);
  }
  CHECK(cache.launch.valid);
  CHECK(cache.launch.kernel_name == r->kernel_name);

  // A name too long for the cache (which then drops the launch text): counted in full.
  const std::string long_name = "\"" + std::string(3000, 'k') + "\"";
  r->kernel_name = long_name.c_str();
  r->n_args = r->total_args = 32;
  const std::uint8_t bytes[64] = {0xff};
  for (unsigned i = 0; i < 32; ++i) r->args[i] = scalar_arg(bytes, 0xffffffffu);
  const std::size_t bound = op_chars_bound(*r, &cache);
  CHECK(bound == op_chars_bound(*r));
  std::string big(bound, '\0');
  const std::size_t n = static_cast<std::size_t>(format_op(*r, big.data(), &cache) - big.data());
  CHECK(n <= bound);
  CHECK(std::string(big.data(), n) == record_text(*r));
  CHECK_FALSE(cache.launch.valid);
}

// Deterministic pseudo-random numbers in [0, n) (xorshift64).
struct XorShift {
  std::uint64_t x;
  std::uint64_t operator()(std::uint64_t n) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x % n;
  }
};

TEST_CASE("launch text cache: output identical to formatting without it") {
  // Launches that change one field at a time (and sometimes nothing): every record
  // formatted through the cache must equal the uncached text.
  LaunchTextCache cache;
  auto r = vadd_launch();
  const std::string other_name = "\"other\"";
  const std::string long_name = "\"" + std::string(600, 'n') + "\"";
  XorShift rnd{88172645463325252ULL};
  std::string buf(op_chars_bound(*r) + 1000, '\0');
  for (int i = 0; i < 20000; ++i) {
    r->seq = static_cast<std::uint64_t>(i) + 1;
    switch (rnd(16)) {
      case 0:
        r->kernel_name = r->kernel_name == other_name.c_str() ? "\"vadd\"" : other_name.c_str();
        break;
      case 1:
        r->kernel_id = rnd(3);
        break;
      case 2:
        r->queue_id = rnd(3);
        break;
      case 3:
        r->device_id = rnd(2);
        break;
      case 4:
        r->work_dim = static_cast<std::uint8_t>(rnd(4));
        break;
      case 5:
        r->gws[rnd(3)] = rnd(5);
        break;
      case 6:
        r->gwo[rnd(3)] = rnd(2);
        r->has_gwo = rnd(2) == 1;
        break;
      case 7:
        r->lws[rnd(3)] = rnd(3);
        r->has_lws = rnd(2) == 1;
        break;
      case 8: {
        const std::uint32_t v = static_cast<std::uint32_t>(rnd(3));
        r->args[2] = scalar_arg(&v, 4);
      } break;
      case 9:
        r->args[rnd(3)] = buffer_arg(rnd(3), rnd(2) ? 4096 : 8192);
        break;
      case 10: {
        const std::uint8_t b[8] = {static_cast<std::uint8_t>(rnd(2))};
        r->args[rnd(3)] = scalar_arg(b, static_cast<std::uint32_t>(1 + rnd(8)));
      } break;
      case 11:
        r->n_args = r->total_args = static_cast<std::uint16_t>(rnd(4));
        break;
      case 12: {
        ArgSnapshot a{};
        a.kind = rnd(2) ? ArgKind::Local : ArgKind::Image;
        a.size = static_cast<std::uint32_t>(rnd(3));
        a.object.id = rnd(2);
        r->args[rnd(3)] = a;
      } break;
      case 13:
        r->kernel_name = long_name.c_str();
        break;
      case 14:
        r->api = rnd(2) ? "clEnqueueTask" : nullptr;
        break;
      default:
        break;  // the same launch again
    }
    const std::string plain = record_text(*r);
    const std::size_t n = static_cast<std::size_t>(format_op(*r, buf.data(), &cache) - buf.data());
    REQUIRE(std::string(buf.data(), n) == plain);
  }
}

TEST_CASE("launch text cache: an argument that changes at every launch, then repeats") {
  // A loop counter misses the cache every time, and the cache then stops saving it (it
  // saves one miss in 16); values that come back must still read right, cache or not.
  LaunchTextCache cache;
  auto r = vadd_launch();
  std::string buf(op_chars_bound(*r) + 1000, '\0');
  std::uint64_t seq = 0;
  auto check_same = [&](std::uint64_t value, std::uint32_t size) {
    r->seq = ++seq;
    r->args[2] = scalar_arg(&value, size);  // size <= 8: the low bytes of value
    const std::string plain = record_text(*r);
    const std::size_t n = static_cast<std::size_t>(format_op(*r, buf.data(), &cache) - buf.data());
    REQUIRE(std::string(buf.data(), n) == plain);
  };
  for (std::uint32_t i = 0; i < 100; ++i) check_same(i, 4);              // a counter
  for (std::uint32_t i = 0; i < 200; ++i) check_same(1000 + i / 2, 4);   // each value twice
  for (std::uint32_t i = 0; i < 100; ++i) check_same(i % 3, 4);          // then a few values again
  for (std::uint32_t i = 0; i < 100; ++i) check_same(7, i % 2 ? 4 : 2);  // same bytes, sizes differ
  for (std::uint64_t i = 0; i < 300; ++i) check_same(i * 0x9e3779b97f4a7c15ULL, 1 + i % 8);
}

// The hot-path formatter copies its keys from the schema (trace_schema.hpp); this checks
// that it writes exactly the schema's fields, in the schema's order: every key it writes
// is one of the record type's fields, and every field the schema says is always written
// is there.
TEST_CASE("the formatter writes each record type's schema fields, in order") {
  namespace ts = clprof::trace;
  auto launch = vadd_launch();
  launch->status = OpStatus::Error;
  launch->exec_status = -5;
  launch->api = "clEnqueueTask";
  launch->total_args = 40;
  auto transfer = blank(RecordKind::Transfer);
  transfer->api = "clEnqueueReadBuffer";
  auto sync = blank(RecordKind::Sync);
  sync->api = "clFinish";
  const std::pair<const OpRecord*, ts::RecordType> records[] = {
      {launch.get(), ts::RecordType::Launch},
      {transfer.get(), ts::RecordType::Transfer},
      {sync.get(), ts::RecordType::Sync}};
  for (const auto& [r, type] : records) {
    CAPTURE(ts::name(type));
    const auto& schema = ts::kRecordFields[static_cast<unsigned>(type)];
    const std::string s = record_text(*r);
    rapidjson::Document d;
    d.Parse(s.c_str());
    REQUIRE_FALSE(d.HasParseError());
    auto m = d.MemberBegin();
    REQUIRE(m != d.MemberEnd());
    CHECK(std::string_view(m->name.GetString()) == "type");
    CHECK(std::string_view(m->value.GetString()) == ts::name(type));
    std::size_t next = 0;  // the schema row the next key may be at or after
    for (++m; m != d.MemberEnd(); ++m) {
      const std::string_view key(m->name.GetString(), m->name.GetStringLength());
      const std::size_t i = ts::find_field(schema.fields, schema.count, key);
      CHECK_MESSAGE(i < schema.count, "key not in the schema: " << key);
      CHECK_MESSAGE(i >= next, "key out of the schema's order: " << key);
      for (; next < i && next < schema.count; ++next)
        CHECK_MESSAGE(schema.fields[next].presence == ts::Presence::Optional,
                      "missing: " << schema.fields[next].key);
      next = i + 1;
    }
    for (; next < schema.count; ++next)
      CHECK_MESSAGE(schema.fields[next].presence == ts::Presence::Optional,
                    "missing: " << schema.fields[next].key);
  }
}

TEST_CASE("numbers: seq, tid, host and device times read back as written, cache or not") {
  // The formatter shortcuts these (seq incremented as text, tid reused, the shared
  // leading digits of a group of times copied): the values must survive every carry and
  // digit-count change.
  LaunchTextCache cache;
  auto r = vadd_launch();
  r->has_device_ns = true;
  XorShift rnd{2463534242ULL};
  // Around digit-count changes and the 10^8 boundary the shared digits end at.
  const std::uint64_t bases[] = {
      0, 9, 9999, 99999999, 499999997, 12345699999990, 1234567890123, UINT64_MAX - 100};
  std::string buf(op_chars_bound(*r) + 1000, '\0');
  std::uint64_t seq = 0;
  for (int i = 0; i < 50000; ++i) {
    seq = rnd(10) == 0 ? rnd(2000000) : seq + 1;  // mostly +1, across 9 -> 10 etc.
    r->seq = seq;
    if (rnd(50) == 0) r->tid = static_cast<std::int32_t>(rnd(100000)) - 2;
    const std::uint64_t base = bases[rnd(8)] + rnd(3);
    r->device_ns[0] = base;
    for (int k = 1; k < 4; ++k) {
      const std::uint64_t step = rnd(3) == 0 ? rnd(100000) : rnd(20);
      r->device_ns[k] = base > UINT64_MAX - step ? base : base + step;
    }
    const auto host = static_cast<std::int64_t>(rnd(4000000000000ULL)) - 1000;
    r->host_begin_ns = host;
    r->host_end_ns = host + static_cast<std::int64_t>(rnd(3) == 0 ? rnd(50000) : rnd(300));
    for (LaunchTextCache* c : {&cache, static_cast<LaunchTextCache*>(nullptr)}) {
      const std::size_t n = static_cast<std::size_t>(format_op(*r, buf.data(), c) - buf.data());
      rapidjson::Document d;
      d.Parse(buf.data(), n);
      REQUIRE_FALSE(d.HasParseError());
      REQUIRE(d["seq"].GetUint64() == r->seq);
      REQUIRE(d["tid"].GetInt64() == r->tid);
      REQUIRE(d["host_ns"][0].GetInt64() == r->host_begin_ns);
      REQUIRE(d["host_ns"][1].GetInt64() == r->host_end_ns);
      for (rapidjson::SizeType k = 0; k < 4; ++k)
        REQUIRE(d["device_ns"][k].GetUint64() == r->device_ns[k]);
    }
  }
}
