// The trace schema end to end: the shim's own writer (shim/output/record_format.hpp)
// writes every record type with edge values (0, the largest integers, negative ones,
// empty, non-ASCII and control-character strings, NULL work sizes, every argument kind,
// every status, every transfer op), and every path of the reader (in memory and streamed,
// fast path on and off) reads every field back as written.
#include <doctest/doctest.h>

#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "clprof/trace_schema.hpp"
#include "every_way.hpp"
#include "output/object_format.hpp"
#include "output/record_format.hpp"
#include "run_dump.hpp"
#include "test_util.hpp"

using namespace clprof;
namespace ts = clprof::trace;
using shim::ArgKind;
using shim::JsonLine;
using shim::OpRecord;
using shim::OpStatus;
using shim::RecordKind;
using shim::TransferOp;

namespace {

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr uint32_t kU32Max = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kMaxRangeId = (uint64_t{1} << ts::kRangeIdBits) - 1;

// Strings every string field gets: empty, non-ASCII, control characters, JSON's own
// special characters.
const std::vector<std::string> kStrings = {"", "plain", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80",
                                           "ctl \x01\x1f\x7f\t\n\r", "q\"b\\s/"};

const std::string& str(size_t i) {
  return kStrings[i % kStrings.size()];
}

std::unique_ptr<OpRecord> blank(RecordKind kind, uint64_t seq) {
  auto r = std::make_unique<OpRecord>();
  std::memset(static_cast<void*>(r.get()), 0, sizeof(OpRecord));
  r->kind = kind;
  r->seq = seq;
  return r;
}

// What the writer wrote, kept to compare with what the readers read.
struct Written {
  shim::HeaderFacts header;
  std::vector<std::unique_ptr<OpRecord>> ops;
  std::vector<std::string> kernel_names;  // json_quote'd, alive as long as ops
  std::string text;
};

// Every argument kind, scalars of sizes 1 to 80.
std::vector<shim::ArgSnapshot> every_arg() {
  std::vector<shim::ArgSnapshot> args;
  for (uint32_t size : {1u, 2u, 3u, 4u, 8u, 9u, 64u, 80u}) {
    shim::ArgSnapshot a{};
    a.kind = ArgKind::Scalar;
    a.size = size;
    for (unsigned i = 0; i < ts::kMaxScalarBytes; ++i)
      a.bytes[i] = static_cast<uint8_t>(255 - 7 * i);
    args.push_back(a);
  }
  for (ArgKind k : {ArgKind::Buffer, ArgKind::Image, ArgKind::Pipe}) {
    for (uint64_t id : {uint64_t{0}, kU64Max}) {
      shim::ArgSnapshot a{};
      a.kind = k;
      a.size = id ? kU32Max : 0;
      a.object.id = id;
      a.object.mem_bytes = id ? kU64Max : 0;
      args.push_back(a);
    }
  }
  shim::ArgSnapshot local{};
  local.kind = ArgKind::Local;
  local.size = kU32Max;
  shim::ArgSnapshot svm{};
  svm.kind = ArgKind::Svm;
  svm.svm_pointer = kU64Max;
  shim::ArgSnapshot sampler{};
  sampler.kind = ArgKind::Sampler;
  sampler.size = 8;
  sampler.object.id = kU64Max;
  shim::ArgSnapshot unset{};
  unset.kind = ArgKind::Unset;
  args.push_back(local);
  args.push_back(svm);
  args.push_back(sampler);
  args.push_back(unset);
  return args;
}

Written write_trace() {
  Written w;
  shim::HeaderFacts& h = w.header;
  h.pid = kI64Max;
  h.ppid = -1;
  h.command_line = kStrings;
  h.start_unix_ns = kI64Min;
  h.host_start_ns = kI64Max;
  h.host_name = str(2);
  h.clprof_version = str(3);
  h.settings = {{"CLPROF_OUTPUT", ""}, {"CLPROF_A", str(2)}, {"CLPROF_B", str(3)}};
  h.session_id = str(4);
  std::string& t = w.text;
  t = shim::format_header_line(h) + "\n";
  auto line = [&](const std::string& record) { t += record + ",\n"; };

  // Two devices (trace ids 1 and the largest), clock syncs, queues, programs, builds.
  for (uint64_t id : {uint64_t{1}, kU64Max}) {
    const bool big = id == kU64Max;
    const size_t s = big ? 1 : 2;
    line(JsonLine(ts::device::kTypeName)
             .unum(ts::device::id, id)
             .str(ts::device::name, str(s))
             .str(ts::device::vendor, str(s + 1))
             .str(ts::device::platform, str(s + 2))
             .str(ts::device::platform_version, str(s + 3))
             .str(ts::device::version, str(s + 4))
             .str(ts::device::driver_version, str(s + 5))
             .str(ts::device::device_type, str(s + 6))
             .unum(ts::device::compute_units, big ? kU32Max : 0)
             .unum(ts::device::max_clock_mhz, big ? kU32Max : 0)
             .unum(ts::device::global_mem_bytes, id)
             .unum(ts::device::local_mem_bytes, id)
             .unum(ts::device::timer_resolution_ns, id)
             .finish());
    line(JsonLine(ts::clock_sync::kTypeName)
             .unum(ts::clock_sync::device_id, id)
             .str(ts::clock_sync::method, str(s))
             .num(ts::clock_sync::offset_ns, big ? kI64Min : kI64Max)
             .unum(ts::clock_sync::uncertainty_ns, id)
             .finish());
    line(JsonLine(ts::queue::kTypeName)
             .unum(ts::queue::id, id)
             .unum(ts::queue::context_id, id)
             .unum(ts::queue::device_id, id)
             .unum(ts::queue::properties, id)
             .boolean(ts::queue::profiling_added, big)
             .finish());
    JsonLine program(ts::program::kTypeName);
    program.unum(ts::program::id, id)
        .unum(ts::program::context_id, id)
        .str(ts::program::origin, str(s));
    if (big) {
      program.str(ts::program::source_hash, str(s + 1))
          .unum(ts::program::source_bytes, id)
          .str(ts::program::source, str(s + 2));
    }
    line(program.finish());
    JsonLine build(ts::build::kTypeName);
    build.str(ts::build::api, str(s))
        .unum(ts::build::program_id, id)
        .str(ts::build::options, str(s + 1))
        .unums(ts::build::device_ids, {id, 0})
        .nums(ts::build::host_ns, {kI64Min, kI64Max})
        .num(ts::build::rc, big ? kI32Min : kI32Max)
        .nums(ts::build::build_status, {kI32Min, 0, kI32Max})
        .strs(ts::build::kernels, big ? kStrings : std::vector<std::string>{});
    if (big) build.str(ts::build::source_hash, str(s + 2)).strs(ts::build::logs, {str(s + 3), ""});
    line(build.finish());
    line(JsonLine(ts::kernel::kTypeName)
             .unum(ts::kernel::id, id)
             .unum(ts::kernel::program_id, id)
             .unum(ts::kernel::context_id, id)
             .str(ts::kernel::name, str(s))
             .unum(ts::kernel::num_args, big ? kU32Max : 0)
             .strs(ts::kernel::arg_types,
                   big ? std::vector<std::string>{"float", "int*"} : std::vector<std::string>{})
             .finish());
    // Its work-group facts: the largest numbers, or both unknown (null).
    shim::KernelDeviceFacts kd;
    kd.kernel_id = id;
    kd.program_id = id;
    kd.device_id = id;
    kd.name = str(s);
    kd.has_preferred_multiple = kd.has_work_group_size = big;
    kd.preferred_multiple = kd.work_group_size = kU64Max;
    line(shim::format_kernel_device_line(kd));
  }
  // Ranges: the smallest and the largest id; one left open (closed at exit).
  line(JsonLine(ts::range_begin::kTypeName)
           .unum(ts::range_begin::id, 1)
           .unum(ts::range_begin::parent, 0)
           .str(ts::range_begin::name, str(2))
           .num(ts::range_begin::tid, 0)
           .num(ts::range_begin::host_ns, kI64Min)
           .finish());
  line(JsonLine(ts::range_begin::kTypeName)
           .unum(ts::range_begin::id, kMaxRangeId)
           .unum(ts::range_begin::parent, 1)
           .str(ts::range_begin::name, str(3))
           .num(ts::range_begin::tid, kI32Max)
           .num(ts::range_begin::host_ns, 0)
           .finish());
  // A BLAS call (range 2): every field of its "blas" object, closed with its status.
  line(JsonLine(ts::range_begin::kTypeName)
           .unum(ts::range_begin::id, 2)
           .unum(ts::range_begin::parent, 1)
           .str(ts::range_begin::name, "CLBlastCgemm")
           .num(ts::range_begin::tid, 0)
           .num(ts::range_begin::host_ns, 5)
           .begin_object(ts::range_begin::blas)
           .str(ts::blas::library, "clblast")
           .str(ts::blas::api, "CLBlastCgemm")
           .str(ts::blas::routine, "gemm_strided_batched")
           .str(ts::blas::precision, "c")
           .str(ts::blas::layout, "row")
           .str(ts::blas::trans_a, "n")
           .str(ts::blas::trans_b, "c")
           .unum(ts::blas::m, kU64Max)
           .unum(ts::blas::n, 2)
           .unum(ts::blas::k, 3)
           .unum(ts::blas::batch, 4)
           .real(ts::blas::alpha, 1.5)
           .real(ts::blas::alpha_im, -0.25)
           .real(ts::blas::beta, 0)
           .real(ts::blas::beta_im, 1e300)
           .unum(ts::blas::a_mem, 1)
           .unum(ts::blas::a_offset, 2)
           .unum(ts::blas::a_ld, 3)
           .unum(ts::blas::a_stride, 4)
           .unum(ts::blas::b_mem, 5)
           .unum(ts::blas::b_offset, 6)
           .unum(ts::blas::b_ld, 7)
           .unum(ts::blas::b_stride, 8)
           .unum(ts::blas::c_mem, 9)
           .unum(ts::blas::c_offset, 10)
           .unum(ts::blas::c_ld, 11)
           .unum(ts::blas::c_stride, 12)
           .unum(ts::blas::temp_mem, 13)
           .unums(ts::blas::queue_ids, {kU64Max, 0})
           .end_object()
           .finish());
  line(JsonLine(ts::range_end::kTypeName)
           .unum(ts::range_end::id, 2)
           .num(ts::range_end::tid, 0)
           .num(ts::range_end::host_ns, 6)
           .num(ts::range_end::status, kI32Min)
           .finish());

  // Launches: every status, every argument kind, work sizes of every rank, NULL offsets
  // and local sizes, the kernel name of a NULL kernel, the largest numbers.
  const std::vector<shim::ArgSnapshot> args = every_arg();
  w.kernel_names = {"\"\"", shim::json_quote(str(2)), shim::json_quote(str(3)),
                    shim::json_quote(str(4))};
  shim::LaunchTextCache cache;
  std::vector<char> buf(shim::kMaxOpChars + 4096);
  auto op = [&](std::unique_ptr<OpRecord> r) {
    t += std::string(buf.data(), shim::format_op(*r, buf.data(), &cache)) + ",\n";
    w.ops.push_back(std::move(r));
  };
  uint64_t seq = 1;
  for (unsigned status = 0; status < ts::kStatusCount; ++status) {
    for (uint8_t dim = 1; dim <= ts::kMaxWorkDim; ++dim) {
      auto r = blank(RecordKind::Launch, seq++);
      r->tid = static_cast<int32_t>(dim == 3 ? kI32Max : dim);
      r->rc = status == 3 ? kI32Min : 0;
      r->api = dim == 2 ? "clEnqueueTask" : nullptr;
      r->kernel_name = w.kernel_names[(status + dim) % w.kernel_names.size()].c_str();
      r->kernel_id = r->program_id = r->queue_id = r->context_id = dim == 3 ? kU64Max : dim - 1;
      r->device_id = dim == 3 ? kU64Max : 0;
      r->work_dim = dim;
      r->has_gwo = dim != 1;
      r->has_lws = dim != 2;
      for (unsigned d = 0; d < 3; ++d) {
        r->gwo[d] = d;
        r->gws[d] = d == 0 ? kU64Max : d;
        r->lws[d] = d + 1;
      }
      const size_t first = dim == 3 ? 0 : (status * 7) % args.size();
      const size_t n = dim == 3 ? args.size() : std::min<size_t>(4, args.size() - first);
      r->n_args = static_cast<uint16_t>(n);
      r->total_args = static_cast<uint16_t>(dim == 1 ? 40 : n);
      for (size_t i = 0; i < n; ++i) r->args[i] = args[first + i];
      r->host_begin_ns = dim == 1 ? kI64Min : -5;
      r->host_end_ns = dim == 1 ? kI64Max : 7;
      r->status = static_cast<OpStatus>(status);
      r->exec_status = r->status == OpStatus::Error ? kI32Min : 0;
      r->has_device_ns =
          r->status == OpStatus::Complete || (r->status == OpStatus::Error && dim == 2);
      const uint64_t dev[4] = {0, 1, 2, static_cast<uint64_t>(kI64Max)};
      for (int i = 0; i < 4; ++i)
        r->device_ns[i] = dim == 3 ? static_cast<uint64_t>(kI64Max) : dev[i];
      r->n_ranges = static_cast<uint8_t>(dim == 3 ? shim::kMaxRecordedRanges : dim - 1);
      for (unsigned i = 0; i < r->n_ranges; ++i) r->ranges[i] = i % 2 ? kU32Max : 1;
      r->call = dim == 2 ? 2 : 0;
      r->capture = dim == 1 ? kU64Max : 0;  // CLPROF_CAPTURE's capture id
      op(std::move(r));
    }
  }
  // Transfers: every op, blocking or not, every status; syncs.
  for (unsigned o = 0; o < ts::kTransferOpCount; ++o) {
    auto r = blank(RecordKind::Transfer, seq++);
    r->tid = static_cast<int32_t>(o);
    r->rc = o == 5 ? kI32Min : 0;
    r->api = o % 2 ? "clEnqueueReadBuffer" : "";
    r->op = static_cast<TransferOp>(o);
    r->queue_id = o ? kU64Max : 0;
    r->device_id = o % 2 ? kU64Max : 0;
    r->bytes = o ? kU64Max : 0;
    r->blocking = o % 2;
    r->host_begin_ns = kI64Min + o;
    r->host_end_ns = kI64Max - o;
    r->status = static_cast<OpStatus>(o % ts::kStatusCount);
    r->exec_status = r->status == OpStatus::Error ? -14 : 0;
    r->has_device_ns = r->status == OpStatus::Complete;
    for (int i = 0; i < 4; ++i) r->device_ns[i] = o * 10 + static_cast<uint64_t>(i);
    r->n_ranges = static_cast<uint8_t>(o % 3);
    for (unsigned i = 0; i < r->n_ranges; ++i) r->ranges[i] = 1;
    r->call = o == 1 ? 2 : 0;
    op(std::move(r));
  }
  for (const char* api : {"clFinish", "clWaitForEvents"}) {
    auto r = blank(RecordKind::Sync, api[2] == 'F' ? kU64Max : seq++);
    r->tid = kI32Max;
    r->rc = kI32Min;
    r->api = api;
    r->queue_id = api[2] == 'F' ? kU64Max : 0;
    r->host_begin_ns = kI64Min;
    r->host_end_ns = kI64Max;
    r->call = api[2] == 'F' ? 2 : 0;
    op(std::move(r));
  }
  line(JsonLine(ts::range_end::kTypeName)
           .unum(ts::range_end::id, kMaxRangeId)
           .num(ts::range_end::tid, kI32Max)
           .num(ts::range_end::host_ns, kI64Max)
           .finish());
  for (size_t i = 0; i < kStrings.size(); ++i) {
    line(JsonLine(ts::mark::kTypeName)
             .str(ts::mark::name, str(i))
             .num(ts::mark::tid, static_cast<int64_t>(i))
             .num(ts::mark::host_ns, i ? kI64Max : kI64Min)
             .finish());
    line(JsonLine(ts::warning::kTypeName)
             .str(ts::warning::message, str(i))
             .num(ts::warning::host_ns, i ? kI64Min : kI64Max)
             .finish());
  }
  // A capture record (CLPROF_CAPTURE), every field at an edge.
  line(JsonLine(ts::capture::kTypeName)
           .unum(ts::capture::id, kU64Max)
           .str(ts::capture::kernel, str(1))
           .str(ts::capture::status, "refused")
           .str(ts::capture::reason, str(2))
           .str(ts::capture::dir, "")
           .strs(ts::capture::files, {"capture.json", str(3)})
           .finish());
  line(JsonLine(ts::range_end::kTypeName)
           .unum(ts::range_end::id, 1)
           .num(ts::range_end::tid, 0)
           .num(ts::range_end::host_ns, kI64Min)
           .boolean(ts::range_end::open, true)
           .finish());
  std::vector<std::pair<std::string, uint64_t>> counts;
  for (std::string_view type : ts::kRecordTypeNames)
    if (type != ts::end::kTypeName)
      counts.emplace_back(std::string(type), counts.size() ? kU64Max : 0);
  shim::LiveFacts live;
  live.counts = {{"buffers", kU64Max}, {"events", 0}};
  t += shim::format_end_record(kI64Min, counts, kU64Max, 0, &live) + "]}\n";
  return w;
}

std::string hex(const uint8_t* bytes, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += d[bytes[i] >> 4];
    s += d[bytes[i] & 15];
  }
  return s;
}

// The kernel name as the writer's json_quote'd text decodes (the strings are valid UTF-8).
std::string unquote(const char* quoted) {
  for (size_t i = 0; i < kStrings.size(); ++i)
    if (shim::json_quote(kStrings[i]) == quoted) return kStrings[i];
  FAIL("unknown kernel name " << quoted);
  return {};
}

// Run-wide id of device trace id `id` (1 first, the largest second, as written; 0: none).
uint32_t run_device(uint64_t id) {
  return id == 0 ? 0 : id == 1 ? 1 : 2;
}

void check_launch(const model::Launch& l, const OpRecord& r) {
  CHECK(l.seq == r.seq);
  CHECK(l.capture == r.capture);
  CHECK(l.process == 0);
  CHECK(l.tid == static_cast<uint64_t>(r.tid));
  CHECK(l.rc == r.rc);
  CHECK(l.api == (r.api ? r.api : "clEnqueueNDRangeKernel"));
  CHECK(l.name == unquote(r.kernel_name));
  CHECK(l.kernel_id == r.kernel_id);
  CHECK(l.program_id == r.program_id);
  CHECK(l.queue_id == r.queue_id);
  CHECK(l.context_id == r.context_id);
  CHECK(l.device == run_device(r.device_id));
  const std::vector<uint64_t> gwo(r.gwo, r.gwo + r.work_dim), gws(r.gws, r.gws + r.work_dim),
      lws(r.lws, r.lws + r.work_dim);
  CHECK(l.gwo == (r.has_gwo ? gwo : std::vector<uint64_t>{}));
  CHECK(l.gws == gws);
  CHECK(l.lws.has_value() == r.has_lws);
  if (l.lws && r.has_lws) CHECK(*l.lws == lws);
  CHECK(l.args_total == (r.total_args > r.n_args ? r.total_args : 0u));
  REQUIRE(l.args.size() == r.n_args);
  for (size_t i = 0; i < r.n_args; ++i) {
    CAPTURE(i);
    const shim::ArgSnapshot& a = r.args[i];
    const model::KernelArg& b = l.args[i];
    CHECK(b.kind == a.kind);
    CHECK(b.size == (a.kind == ArgKind::Unset || a.kind == ArgKind::Svm ? 0 : a.size));
    if (a.kind == ArgKind::Scalar) {
      CHECK(b.hex == hex(a.bytes, std::min<size_t>(a.size, ts::kMaxScalarBytes)));
      const bool integer = a.size == 1 || a.size == 2 || a.size == 4 || a.size == 8;
      CHECK(b.has_value == integer);
      uint64_t v = 0;
      std::memcpy(&v, a.bytes, std::min<size_t>(a.size, 8));
      if (integer) CHECK(b.value == v);
    } else {
      CHECK_FALSE(b.has_value);
      CHECK(b.hex.empty());
    }
    const bool object = a.kind == ArgKind::Buffer || a.kind == ArgKind::Image ||
                        a.kind == ArgKind::Pipe || a.kind == ArgKind::Sampler;
    CHECK(b.object_id == (object ? a.object.id : 0));
    CHECK(b.object_bytes == (object && a.kind != ArgKind::Sampler ? a.object.mem_bytes : 0));
    CHECK(b.svm_pointer == (a.kind == ArgKind::Svm ? "0xffffffffffffffff" : ""));
  }
  CHECK(l.host_begin_ns == r.host_begin_ns);
  CHECK(l.host_end_ns == r.host_end_ns);
  const int64_t none = model::kNoTime;
  CHECK(l.queued_ns == (r.has_device_ns ? static_cast<int64_t>(r.device_ns[0]) : none));
  CHECK(l.submit_ns == (r.has_device_ns ? static_cast<int64_t>(r.device_ns[1]) : none));
  CHECK(l.start_ns == (r.has_device_ns ? static_cast<int64_t>(r.device_ns[2]) : none));
  CHECK(l.end_ns == (r.has_device_ns ? static_cast<int64_t>(r.device_ns[3]) : none));
  CHECK(l.status == ts::name(r.status));
  CHECK(l.exec_status == r.exec_status);
  std::vector<uint64_t> ranges;
  for (unsigned i = 0; i < r.n_ranges; ++i) ranges.push_back((uint64_t{1} << 40) | r.ranges[i]);
  CHECK(l.ranges == ranges);
}

void check_transfer(const model::Transfer& x, const OpRecord& r) {
  CHECK(x.seq == r.seq);
  CHECK(x.process == 0);
  CHECK(x.tid == static_cast<uint64_t>(r.tid));
  CHECK(x.rc == r.rc);
  CHECK(x.api == r.api);
  CHECK(x.op == ts::name(r.op));
  CHECK(x.queue_id == r.queue_id);
  CHECK(x.device == run_device(r.device_id));
  CHECK(x.bytes == r.bytes);
  CHECK(x.blocking == r.blocking);
  CHECK(x.host_begin_ns == r.host_begin_ns);
  CHECK(x.host_end_ns == r.host_end_ns);
  CHECK(x.start_ns == (r.has_device_ns ? static_cast<int64_t>(r.device_ns[2]) : model::kNoTime));
  CHECK(x.end_ns == (r.has_device_ns ? static_cast<int64_t>(r.device_ns[3]) : model::kNoTime));
  CHECK(x.status == ts::name(r.status));
  CHECK(x.exec_status == r.exec_status);
  std::vector<uint64_t> ranges(r.n_ranges, (uint64_t{1} << 40) | 1);
  CHECK(x.ranges == ranges);
}

// Every field of the metadata records, as write_trace wrote them.
void check_metadata(const model::Run& run, const Written& w, const std::string& path) {
  REQUIRE(run.processes.size() == 1);
  const model::Process& p = run.processes[0];
  CHECK(p.pid == w.header.pid);
  REQUIRE(p.captures.size() == 1);
  CHECK(p.captures[0].id == kU64Max);
  CHECK(p.captures[0].kernel == str(1));
  CHECK(p.captures[0].status == "refused");
  CHECK(p.captures[0].reason == str(2));
  CHECK(p.captures[0].dir.empty());
  CHECK(p.captures[0].files == std::vector<std::string>{"capture.json", str(3)});
  CHECK(p.ppid == w.header.ppid);
  CHECK(p.command_line == w.header.command_line);
  CHECK(p.start_unix_ns == w.header.start_unix_ns);
  CHECK(p.host_start_ns == w.header.host_start_ns);
  CHECK(p.host_clock == "CLOCK_MONOTONIC");
  CHECK(p.host_name == w.header.host_name);
  CHECK(p.clprof_version == w.header.clprof_version);
  CHECK(p.settings == w.header.settings);
  CHECK(p.session_id == w.header.session_id);
  CHECK(p.source == path);
  CHECK(p.trace_version == ts::kVersion);
  CHECK_FALSE(p.truncated);
  CHECK(p.incomplete_events == kU64Max);
  CHECK(p.dropped_records == 0);
  CHECK(p.end_host_ns == kI64Min);
  REQUIRE(p.record_counts.size() == ts::kRecordTypeCount - 1);
  CHECK(p.record_counts[0] == std::make_pair(std::string("device"), uint64_t{0}));
  CHECK(p.record_counts[1] == std::make_pair(std::string("clock_sync"), kU64Max));
  REQUIRE(p.live_objects);
  CHECK(*p.live_objects ==
        std::vector<std::pair<std::string, uint64_t>>{{"buffers", kU64Max}, {"events", 0}});
  REQUIRE(p.warnings.size() == kStrings.size());
  for (size_t i = 0; i < kStrings.size(); ++i) {
    CHECK(p.warnings[i].message == str(i));
    CHECK(p.warnings[i].host_ns == (i ? kI64Min : kI64Max));
  }

  REQUIRE(run.devices.size() == 2);
  for (size_t k = 0; k < 2; ++k) {
    CAPTURE(k);
    const model::Device& d = run.devices[k];
    const uint64_t id = k ? kU64Max : 1;
    const bool big = k == 1;
    const size_t s = big ? 1 : 2;
    CHECK(d.id == k + 1);
    CHECK(d.name == str(s));
    CHECK(d.vendor == str(s + 1));
    CHECK(d.platform == str(s + 2));
    CHECK(d.platform_version == str(s + 3));
    CHECK(d.version == str(s + 4));
    CHECK(d.driver_version == str(s + 5));
    CHECK(d.type == str(s + 6));
    CHECK(d.compute_units == (big ? kU32Max : 0));
    CHECK(d.max_clock_mhz == (big ? kU32Max : 0));
    CHECK(d.global_mem_bytes == id);
    CHECK(d.local_mem_bytes == id);
    CHECK(d.timer_resolution_ns == id);
    CHECK(d.has_clock_offset);
    CHECK(d.device_to_host_offset_ns == (big ? kI64Min : kI64Max));
    CHECK(d.clock_uncertainty_ns == id);
    CHECK(d.clock_method == str(s));

    const model::Queue& q = run.queues.at(k);
    CHECK(q.id == id);
    CHECK(q.process == 0);
    CHECK(q.context_id == id);
    CHECK(q.device == k + 1);
    CHECK(q.properties == id);
    CHECK(q.profiling_added == big);

    const model::Program& prog = run.programs.at(k);
    CHECK(prog.id == id);
    CHECK(prog.context_id == id);
    CHECK(prog.origin == str(s));
    CHECK(prog.source_hash == (big ? str(s + 1) : ""));
    CHECK(prog.source_bytes == (big ? id : 0));
    CHECK(prog.source == (big ? str(s + 2) : ""));
    CHECK(prog.options == "");  // no successful build (rc != 0)

    const model::Build& b = run.builds.at(k);
    CHECK(b.api == str(s));
    CHECK(b.program_id == id);
    CHECK(b.options == str(s + 1));
    CHECK(b.devices == std::vector<uint32_t>{static_cast<uint32_t>(k + 1), 0});
    CHECK(b.host_begin_ns == kI64Min);
    CHECK(b.host_end_ns == kI64Max);
    CHECK(b.rc == (big ? kI32Min : kI32Max));
    CHECK(b.build_status == std::vector<int32_t>{kI32Min, 0, kI32Max});
    CHECK(b.kernels == (big ? kStrings : std::vector<std::string>{}));
    CHECK(b.source_hash == (big ? str(s + 2) : ""));
    CHECK(b.logs == (big ? std::vector<std::string>{str(s + 3), ""} : std::vector<std::string>{}));

    const model::Kernel& kern = run.kernels.at(k);
    CHECK(kern.id == id);
    CHECK(kern.program_id == id);
    CHECK(kern.context_id == id);
    CHECK(kern.name == str(s));
    CHECK(kern.num_args == (big ? kU32Max : 0));

    const model::KernelDevice& kd = run.kernel_devices.at(k);
    CHECK(kd.kernel_id == id);
    CHECK(kd.program_id == id);
    CHECK(kd.name == str(s));
    CHECK(kd.preferred_multiple == (big ? std::optional<uint64_t>(kU64Max) : std::nullopt));
    CHECK(kd.work_group_size == (big ? std::optional<uint64_t>(kU64Max) : std::nullopt));
  }

  REQUIRE(run.ranges.size() == 2);
  REQUIRE(run.blas_calls.size() == 1);
  {
    const model::BlasCall& c = run.blas_calls[0];
    CHECK(c.id == ((uint64_t{1} << 40) | 2));
    CHECK(c.parent == ((uint64_t{1} << 40) | 1));
    CHECK(c.api == "CLBlastCgemm");
    CHECK(c.routine == "gemm_strided_batched");
    CHECK(c.trans_b == "c");
    CHECK(c.m == kU64Max);
    CHECK(c.batch == 4);
    CHECK(c.alpha == 1.5);
    CHECK(c.alpha_im == -0.25);
    CHECK(c.beta_im == 1e300);
    CHECK(c.c_stride == 12);
    CHECK(c.temp_mem == 13);
    CHECK(c.queue_ids == std::vector<uint64_t>{kU64Max, 0});
    CHECK(c.status == kI32Min);
    CHECK(c.host_end_ns != model::kNoTime);
    size_t in_call = 0;
    for (const auto& l : run.launches) in_call += l.call == c.id;
    for (const auto& x : run.transfers) in_call += x.call == c.id;
    for (const auto& y : run.syncs) in_call += y.call == c.id;
    CHECK(in_call == ts::kStatusCount + 1 + 1);  // a launch per status, one transfer, clFinish
  }
  CHECK(run.ranges[0].id == ((uint64_t{1} << 40) | 1));
  CHECK(run.ranges[0].parent == 0);
  CHECK(run.ranges[0].name == str(2));
  CHECK(run.ranges[0].tid == 0);
  CHECK(run.ranges[0].host_begin_ns == kI64Min);
  CHECK(run.ranges[0].host_end_ns == kI64Min);
  CHECK(run.ranges[0].left_open);
  CHECK(run.ranges[1].id == ((uint64_t{1} << 40) | kMaxRangeId));
  CHECK(run.ranges[1].parent == ((uint64_t{1} << 40) | 1));
  CHECK(run.ranges[1].name == str(3));
  CHECK(run.ranges[1].tid == static_cast<uint64_t>(kI32Max));
  CHECK(run.ranges[1].host_begin_ns == 0);
  CHECK(run.ranges[1].host_end_ns == kI64Max);
  CHECK_FALSE(run.ranges[1].left_open);

  REQUIRE(run.syncs.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    const OpRecord& r = *w.ops[w.ops.size() - 2 + i];
    CHECK(run.syncs[i].seq == r.seq);
    CHECK(run.syncs[i].tid == static_cast<uint64_t>(r.tid));
    CHECK(run.syncs[i].rc == r.rc);
    CHECK(run.syncs[i].api == r.api);
    CHECK(run.syncs[i].queue_id == r.queue_id);
    CHECK(run.syncs[i].host_begin_ns == kI64Min);
    CHECK(run.syncs[i].host_end_ns == kI64Max);
  }
  REQUIRE(run.marks.size() == kStrings.size());
  for (size_t i = 0; i < kStrings.size(); ++i) {
    CHECK(run.marks[i].name == str(i));
    CHECK(run.marks[i].tid == i);
    CHECK(run.marks[i].host_ns == (i ? kI64Max : kI64Min));
  }
}

}  // namespace

TEST_CASE("every record type the shim writes reads back field for field, by every path") {
  const Written w = write_trace();
  test::TempDir dir;
  const std::string path = dir.write("edge.json", w.text);
  const auto readings = test::read_every_way(path);
  for (const auto& r : readings) {
    CAPTURE(r.way);
    REQUIRE(r.error.empty());
    CHECK(r.warnings.empty());
    check_metadata(r.run, w, path);
    size_t l = 0, x = 0;
    for (const auto& op : w.ops) {
      if (op->kind == RecordKind::Launch) {
        CAPTURE(op->seq);
        REQUIRE(l < r.run.launches.size());
        check_launch(r.run.launches[l++], *op);
      } else if (op->kind == RecordKind::Transfer) {
        CAPTURE(op->seq);
        REQUIRE(x < r.run.transfers.size());
        check_transfer(r.run.transfers[x++], *op);
      }
    }
    CHECK(l == r.run.launches.size());
    CHECK(x == r.run.transfers.size());
    // And the paths agree on everything, fields the checks above do not name included.
    CHECK(test::dump_run(r.run) == test::dump_run(readings[0].run));
  }
}

TEST_CASE("the round trip covers every record type, status, transfer op and argument kind") {
  const Written w = write_trace();
  std::vector<bool> types(ts::kRecordTypeCount), statuses(ts::kStatusCount),
      ops(ts::kTransferOpCount), kinds(ts::kArgKindCount);
  for (size_t i = 0; i < ts::kRecordTypeCount; ++i)
    types[i] = w.text.find("{\"type\":\"" + std::string(ts::kRecordTypeNames[i]) + "\"") !=
               std::string::npos;
  for (const auto& op : w.ops) {
    statuses[static_cast<unsigned>(op->status)] = true;
    if (op->kind == RecordKind::Transfer) ops[static_cast<unsigned>(op->op)] = true;
    for (unsigned i = 0; i < op->n_args; ++i) kinds[static_cast<unsigned>(op->args[i].kind)] = true;
  }
  for (size_t i = 0; i < types.size(); ++i) CHECK_MESSAGE(types[i], ts::kRecordTypeNames[i]);
  for (size_t i = 0; i < statuses.size(); ++i) CHECK_MESSAGE(statuses[i], ts::kStatusNames[i]);
  for (size_t i = 0; i < ops.size(); ++i) CHECK_MESSAGE(ops[i], ts::kTransferOpNames[i]);
  for (size_t i = 0; i < kinds.size(); ++i) CHECK_MESSAGE(kinds[i], ts::kArgKindNames[i]);
  // Every optional field is written somewhere too.
  for (size_t t = 0; t < ts::kRecordTypeCount; ++t) {
    const auto& fields = ts::kRecordFields[t];
    for (size_t f = 0; f < fields.count; ++f)
      CHECK_MESSAGE(
          w.text.find("\"" + std::string(fields.fields[f].key) + "\":") != std::string::npos,
          ts::kRecordTypeNames[t] << "." << fields.fields[f].key);
  }
}
