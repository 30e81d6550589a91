// clprof_gen_trace: writes a large synthetic clprof trace in the shim's exact layout, for
// benchmarking the analyzer (bench/analyzer/run.sh). Every line comes from the shim's own
// writer (shim/output/record_format.hpp: format_op for launches, transfers and syncs,
// JsonLine with the schema's keys for the rest), so the trace is what libclprof.so writes.
//
//   clprof_gen_trace OUTPUT SIZE_MB [SEED [ITERATION_NAME]]
//
// Each iteration is a top-level range "iteration N" (N from 0: one distinct layer path per
// iteration and layer), or, with ITERATION_NAME, a range of that name every time (23 layer
// paths whatever the size: the shape of a real network's trace).
//
// A deterministic function of SEED: a smaller SIZE_MB gives a prefix of the same records
// (plus the end record), which is how run.sh makes the slice it gives to pandas.
// The mix imitates a CNN inference traced with CLBlast: ~20 kernels, XgemmDirect* with
// M, N, K as scalar args 0, 1, 2, ranges per layer, transfers and syncs per iteration.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "clprof/trace_schema.hpp"
#include "output/record_format.hpp"

namespace {

// splitmix64: small, seedable, identical everywhere.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }
};

class Out {
 public:
  explicit Out(FILE* f) : f_(f) { buf_.reserve(kFlush + 4096); }
  ~Out() { flush(); }
  Out& operator<<(std::string_view s) {
    buf_.append(s);
    if (buf_.size() >= kFlush) flush();
    return *this;
  }
  Out& operator<<(uint64_t v) { return num(v); }
  Out& operator<<(int64_t v) { return num(v); }
  Out& operator<<(int v) { return num(static_cast<int64_t>(v)); }
  void flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size()) {
      std::perror("write");
      std::exit(1);
    }
    written_ += buf_.size();
    buf_.clear();
  }
  uint64_t written() const { return written_ + buf_.size(); }

 private:
  template <class T>
  Out& num(T v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    return *this << std::string_view(tmp, static_cast<size_t>(r.ptr - tmp));
  }
  static constexpr size_t kFlush = size_t{1} << 20;
  FILE* f_;
  std::string buf_;
  uint64_t written_ = 0;
};

struct Kernel {
  const char* name;
  int kind;          // 0 gemm, 1 elementwise, 2 im2col-like
  uint64_t mean_ns;  // typical duration
  uint64_t weight;   // relative frequency
};

const Kernel kKernels[] = {
    {"XgemmDirectTN", 0, 120000, 26},
    {"XgemmDirectNN", 0, 900000, 3},
    {"XgemmDirectTT", 0, 110000, 8},
    {"XgemmDirectNT", 0, 150000, 4},
    {"Xgemm", 0, 400000, 2},
    {"Xaxpy", 1, 9000, 2},
    {"XaxpyFast", 1, 9000, 4},
    {"Xgemv", 1, 70000, 10},
    {"XgemvFast", 1, 60000, 3},
    {"XgemvFastRot", 1, 600000, 4},
    {"im2col_float", 2, 45000, 12},
    {"col2im_float", 2, 50000, 2},
    {"fillbuffer_float", 1, 12000, 55},
    {"relu_forward_float", 1, 11000, 10},
    {"lrn_full_float", 2, 61000, 4},
    {"pooling_max_float", 2, 30000, 6},
    {"softmax_forward_float", 1, 20000, 2},
    {"dropout_forward_float", 1, 7000, 4},
    {"fill_float", 1, 6000, 3},
    {"bias_add_float", 1, 8000, 12},
};

const char* kLayers[] = {"conv1", "relu1", "norm1", "pool1", "conv2", "relu2", "norm2", "pool2",
                         "conv3", "relu3", "conv4", "relu4", "conv5", "relu5", "pool5", "fc6",
                         "relu6", "drop6", "fc7",   "relu7", "drop7", "fc8",   "prob"};

namespace ts = clprof::trace;
using clprof::shim::ArgKind;
using clprof::shim::JsonLine;
using clprof::shim::OpRecord;
using clprof::shim::RecordKind;

// A launch, transfer or sync record of the generator's process, reset.
OpRecord& blank(OpRecord& r, RecordKind kind, uint64_t seq, int64_t host, int64_t host_end) {
  std::memset(static_cast<void*>(&r), 0, offsetof(OpRecord, ranges));
  r.kind = kind;
  r.seq = seq;
  r.tid = 4242;
  r.queue_id = 2;
  r.device_id = 1;
  r.status = clprof::shim::OpStatus::Complete;
  r.host_begin_ns = host;
  r.host_end_ns = host_end;
  return r;
}

void set_device_ns(OpRecord& r, int64_t q, int64_t s, int64_t st, int64_t e) {
  r.has_device_ns = true;
  r.device_ns[0] = static_cast<uint64_t>(q);
  r.device_ns[1] = static_cast<uint64_t>(s);
  r.device_ns[2] = static_cast<uint64_t>(st);
  r.device_ns[3] = static_cast<uint64_t>(e);
}

void scalar_u32(clprof::shim::ArgSnapshot& a, uint32_t v) {
  a.kind = ArgKind::Scalar;
  a.size = 4;
  std::memcpy(a.bytes, &v, 4);
}
void buffer(clprof::shim::ArgSnapshot& a, uint64_t id, uint64_t bytes) {
  a.kind = ArgKind::Buffer;
  a.size = 8;
  a.object.id = id;
  a.object.mem_bytes = bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: clprof_gen_trace OUTPUT SIZE_MB [SEED [ITERATION_NAME]]\n");
    return 2;
  }
  const uint64_t limit = static_cast<uint64_t>(std::atof(argv[2]) * 1e6);
  Rng rng{argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1};
  const char* iteration_name = argc > 4 ? argv[4] : nullptr;
  FILE* f = std::fopen(argv[1], "wb");
  if (!f) {
    std::perror(argv[1]);
    return 1;
  }
  Out out(f);
  const uint64_t kernels = sizeof kKernels / sizeof kKernels[0];
  uint64_t total_weight = 0;
  for (const auto& k : kKernels) total_weight += k.weight;
  auto line = [&](const std::string& record) { out << record << ",\n"; };

  clprof::shim::HeaderFacts h;
  h.pid = 31337;
  h.ppid = 1;
  h.command_line = {"./caffe", "time", "-gpu", "0", "-model", "alexnet.prototxt"};
  h.start_unix_ns = 1700000000000000000;
  h.host_start_ns = 123456789000;
  h.host_name = "bench";
  h.clprof_version = "0.1.0";
  h.settings = {{"CLPROF_OUTPUT", "clprof-%p.json"}};
  h.session_id = "0000000000031337";
  out << clprof::shim::format_header_line(h) << "\n";
  line(JsonLine(ts::device::kTypeName)
           .unum(ts::device::id, 1)
           .str(ts::device::name, "Mali-T860")
           .str(ts::device::vendor, "ARM")
           .str(ts::device::platform, "ARM Platform")
           .str(ts::device::platform_version, "OpenCL 1.2 v1.r12p0")
           .str(ts::device::version, "OpenCL 1.2 v1.r12p0")
           .str(ts::device::driver_version, "1.2")
           .str(ts::device::device_type, "GPU")
           .unum(ts::device::compute_units, 4)
           .unum(ts::device::max_clock_mhz, 800)
           .unum(ts::device::global_mem_bytes, 2147483648)
           .unum(ts::device::local_mem_bytes, 32768)
           .unum(ts::device::timer_resolution_ns, 1000)
           .finish());
  line(JsonLine(ts::clock_sync::kTypeName)
           .unum(ts::clock_sync::device_id, 1)
           .str(ts::clock_sync::method, "enqueue_bracket")
           .num(ts::clock_sync::offset_ns, -1000)
           .unum(ts::clock_sync::uncertainty_ns, 500)
           .finish());
  line(JsonLine(ts::queue::kTypeName)
           .unum(ts::queue::id, 2)
           .unum(ts::queue::context_id, 3)
           .unum(ts::queue::device_id, 1)
           .unum(ts::queue::properties, 0)
           .boolean(ts::queue::profiling_added, true)
           .finish());
  line(JsonLine(ts::program::kTypeName)
           .unum(ts::program::id, 4)
           .unum(ts::program::context_id, 3)
           .str(ts::program::origin, "source")
           .str(ts::program::source_hash, "fnv1a64:0123456789abcdef")
           .unum(ts::program::source_bytes, 52311)
           .finish());
  line(JsonLine(ts::build::kTypeName)
           .str(ts::build::api, "clBuildProgram")
           .unum(ts::build::program_id, 4)
           .str(ts::build::options, "-DPRECISION=32")
           .unums(ts::build::device_ids, {1})
           .nums(ts::build::host_ns, {1000, 90000000})
           .num(ts::build::rc, 0)
           .nums(ts::build::build_status, {0})
           .strs(ts::build::kernels, {})
           .str(ts::build::source_hash, "fnv1a64:0123456789abcdef")
           .finish());
  std::vector<std::string> quoted_names;
  for (uint64_t k = 0; k < kernels; ++k) {
    quoted_names.push_back(clprof::shim::json_quote(kKernels[k].name));
    line(JsonLine(ts::kernel::kTypeName)
             .unum(ts::kernel::id, 10 + k)
             .unum(ts::kernel::program_id, 4)
             .unum(ts::kernel::context_id, 3)
             .str(ts::kernel::name, kKernels[k].name)
             .unum(ts::kernel::num_args, kKernels[k].kind == 0 ? 8 : 3)
             .finish());
  }

  auto record = std::make_unique<OpRecord>();
  clprof::shim::LaunchTextCache cache;
  std::vector<char> text(clprof::shim::kMaxOpChars + 4096);
  auto op = [&](const OpRecord& r) {
    char* end = clprof::shim::format_op(r, text.data(), &cache);
    out << std::string_view(text.data(), static_cast<size_t>(end - text.data())) << ",\n";
  };
  auto range_begin = [&](uint64_t id, uint64_t parent, const std::string& name, int64_t at) {
    line(JsonLine(ts::range_begin::kTypeName)
             .unum(ts::range_begin::id, id)
             .unum(ts::range_begin::parent, parent)
             .str(ts::range_begin::name, name)
             .num(ts::range_begin::tid, 4242)
             .num(ts::range_begin::host_ns, at)
             .finish());
  };
  auto range_end = [&](uint64_t id, int64_t at) {
    line(JsonLine(ts::range_end::kTypeName)
             .unum(ts::range_end::id, id)
             .num(ts::range_end::tid, 4242)
             .num(ts::range_end::host_ns, at)
             .finish());
  };

  uint64_t seq = 1, range_id = 1, mem_id = 100, iteration = 0;
  int64_t host = 100000000, device = 5000000000;
  uint64_t launches = 0, transfers = 0, syncs = 0, ranges = 0;
  // Stop with room for the closing records.
  while (out.written() + 512 < limit) {
    const uint64_t iter_range = range_id++;
    ++ranges;
    range_begin(
        iter_range, 0,
        iteration_name ? std::string(iteration_name) : "iteration " + std::to_string(iteration),
        host);
    OpRecord& w = blank(*record, RecordKind::Transfer, seq++, host, host + 2000);
    w.api = "clEnqueueWriteBuffer";
    w.op = clprof::shim::TransferOp::Write;
    w.bytes = 618348;
    set_device_ns(w, device, device + 1000, device + 2000, device + 90000);
    w.n_ranges = 1;
    w.ranges[0] = static_cast<uint32_t>(iter_range);
    op(w);
    ++transfers;
    host += 3000;
    device += 91000;
    for (const char* layer : kLayers) {
      if (out.written() + 512 >= limit) break;
      const uint64_t layer_range = range_id++;
      ++ranges;
      range_begin(layer_range, iter_range, layer, host);
      const uint64_t n = 2 + rng.below(6);
      for (uint64_t i = 0; i < n && out.written() + 512 < limit; ++i) {
        uint64_t pick = rng.below(total_weight), k = 0;
        while (pick >= kKernels[k].weight) pick -= kKernels[k].weight, ++k;
        const Kernel& kern = kKernels[k];
        const uint64_t dur = kern.mean_ns / 2 + rng.below(kern.mean_ns);
        const int64_t q = device, s = q + 2000 + static_cast<int64_t>(rng.below(3000));
        const int64_t st = s + 2000 + static_cast<int64_t>(rng.below(3000)),
                      e = st + static_cast<int64_t>(dur);
        device = e + 1000;
        OpRecord& l = blank(*record, RecordKind::Launch, seq++, host, host + 15000);
        l.kernel_name = quoted_names[k].c_str();
        l.kernel_id = 10 + k;
        l.program_id = 4;
        l.context_id = 3;
        l.has_lws = true;
        if (kern.kind == 0) {
          static const uint32_t ms[] = {96, 128, 256, 384, 192, 4096, 1000};
          static const uint32_t ns[] = {3025, 729, 169, 4096, 9216, 1};
          static const uint32_t ks[] = {363, 1200, 2304, 1728, 1, 4096};
          const uint32_t m = ms[rng.below(7)], nn = ns[rng.below(6)], kk = ks[rng.below(6)];
          l.work_dim = 2;
          l.gws[0] = (m + 7) / 8 * 2;
          l.gws[1] = (nn + 7) / 8 * 2;
          l.lws[0] = l.lws[1] = 8;
          l.n_args = l.total_args = 8;
          scalar_u32(l.args[0], m);
          scalar_u32(l.args[1], nn);
          scalar_u32(l.args[2], kk);
          scalar_u32(l.args[3], 0x3f800000);  // 1.0f
          scalar_u32(l.args[4], 0);
          for (unsigned b = 0; b < 3; ++b) buffer(l.args[5 + b], mem_id + b, 1048576);
        } else {
          const uint64_t gws = 1024u << rng.below(6);
          l.work_dim = 1;
          l.gws[0] = gws;
          l.lws[0] = 128;
          l.n_args = l.total_args = 3;
          scalar_u32(l.args[0], static_cast<uint32_t>(gws));
          buffer(l.args[1], mem_id, gws * 4);
          buffer(l.args[2], mem_id + 1, gws * 4);
        }
        set_device_ns(l, q, s, st, e);
        l.n_ranges = 2;
        l.ranges[0] = static_cast<uint32_t>(iter_range);
        l.ranges[1] = static_cast<uint32_t>(layer_range);
        op(l);
        host += 20000;
        ++launches;
        mem_id = 100 + rng.below(64);
      }
      range_end(layer_range, host);
    }
    OpRecord& r = blank(*record, RecordKind::Transfer, seq++, host, host + 90000);
    r.api = "clEnqueueReadBuffer";
    r.op = clprof::shim::TransferOp::Read;
    r.bytes = 4000;
    r.blocking = true;
    set_device_ns(r, device, device + 1000, device + 2000, device + 6000);
    r.n_ranges = 1;
    r.ranges[0] = static_cast<uint32_t>(iter_range);
    op(r);
    OpRecord& sync = blank(*record, RecordKind::Sync, seq++, host + 90000, host + 91000);
    sync.api = "clFinish";
    op(sync);
    range_end(iter_range, host + 92000);
    transfers += 1;
    syncs += 1;
    host += 100000;
    device += 10000;
    ++iteration;
  }
  out << clprof::shim::format_end_record(host,
                                         {{std::string(ts::launch::kTypeName), launches},
                                          {std::string(ts::transfer::kTypeName), transfers},
                                          {std::string(ts::sync::kTypeName), syncs},
                                          {std::string(ts::range_begin::kTypeName), ranges},
                                          {std::string(ts::range_end::kTypeName), ranges}},
                                         0, 0)
      << "]}\n";
  out.flush();
  if (std::fclose(f) != 0) {
    std::perror("close");
    return 1;
  }
  std::fprintf(
      stderr,
      "%s: %llu bytes, %llu launches (%.0f bytes/launch overall), %llu transfers, %llu ranges\n",
      argv[1], static_cast<unsigned long long>(out.written()),
      static_cast<unsigned long long>(launches),
      static_cast<double>(out.written()) / static_cast<double>(launches ? launches : 1),
      static_cast<unsigned long long>(transfers), static_cast<unsigned long long>(ranges));
  return 0;
}
