// clprof_gen_trace: writes a large synthetic clprof trace in the shim's exact layout, for
// benchmarking the analyzer (bench/analyzer/run.sh).
//
//   clprof_gen_trace OUTPUT SIZE_MB [SEED]
//
// A deterministic function of SEED: a smaller SIZE_MB gives a prefix of the same records
// (plus the end record), which is how run.sh makes the slice it gives to pandas.
// The mix imitates a CNN inference traced with CLBlast: ~20 kernels, XgemmDirect* with
// M, N, K as scalar args 0, 1, 2, ranges per layer, transfers and syncs per iteration.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "clprof/trace_schema.hpp"

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

std::string hex_le32(uint32_t v) {
  static const char* d = "0123456789abcdef";
  std::string s(8, '0');
  for (int i = 0; i < 4; ++i) {
    uint8_t b = static_cast<uint8_t>(v >> (8 * i));
    s[2 * i] = d[b >> 4];
    s[2 * i + 1] = d[b & 15];
  }
  return s;
}

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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: clprof_gen_trace OUTPUT SIZE_MB [SEED]\n");
    return 2;
  }
  const uint64_t limit = static_cast<uint64_t>(std::atof(argv[2]) * 1e6);
  Rng rng{argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1};
  FILE* f = std::fopen(argv[1], "wb");
  if (!f) {
    std::perror(argv[1]);
    return 1;
  }
  Out out(f);
  const uint64_t kernels = sizeof kKernels / sizeof kKernels[0];
  uint64_t total_weight = 0;
  for (const auto& k : kKernels) total_weight += k.weight;

  out << R"({"format":"clprof-trace","version":)" << clprof::trace::kVersion
      << R"(,"header":{"pid":31337,"ppid":1,"command_line":["./caffe","time","-gpu","0","-model","alexnet.prototxt"],"start_unix_ns":1700000000000000000,"host_start_ns":123456789000,"host_clock":"CLOCK_MONOTONIC","host_name":"bench","clprof_version":"0.1.0","settings":{"CLPROF_OUTPUT":"clprof-%p.json"}},"records":[)"
      << "\n";
  out << R"({"type":"device","id":1,"name":"Mali-T860","vendor":"ARM","platform":"ARM Platform","platform_version":"OpenCL 1.2 v1.r12p0","version":"OpenCL 1.2 v1.r12p0","driver_version":"1.2","device_type":"GPU","compute_units":4,"max_clock_mhz":800,"global_mem_bytes":2147483648,"local_mem_bytes":32768,"timer_resolution_ns":1000},)"
         "\n";
  out << R"({"type":"clock_sync","device_id":1,"method":"enqueue_bracket","offset_ns":-1000,"uncertainty_ns":500},)"
         "\n";
  out << R"({"type":"queue","id":2,"context_id":3,"device_id":1,"properties":0,"profiling_added":true},)"
         "\n";
  out << R"({"type":"program","id":4,"context_id":3,"origin":"source","source_hash":"fnv1a64:0123456789abcdef","source_bytes":52311},)"
         "\n";
  out << R"({"type":"build","api":"clBuildProgram","program_id":4,"options":"-DPRECISION=32","device_ids":[1],"host_ns":[1000,90000000],"rc":0,"build_status":[0],"kernels":[],"source_hash":"fnv1a64:0123456789abcdef"},)"
         "\n";
  for (uint64_t k = 0; k < kernels; ++k)
    out << R"({"type":"kernel","id":)" << 10 + k << R"(,"program_id":4,"context_id":3,"name":")"
        << kKernels[k].name << R"(","num_args":)" << (kKernels[k].kind == 0 ? 8 : 3) << "},\n";

  uint64_t seq = 1, range_id = 1, mem_id = 100, iteration = 0;
  int64_t host = 100000000, device = 5000000000;
  const uint64_t tid = 4242;
  uint64_t launches = 0, transfers = 0, syncs = 0, ranges = 0;
  // Stop with room for the closing records.
  while (out.written() + 512 < limit) {
    uint64_t iter_range = range_id++;
    ++ranges;
    out << R"({"type":"range_begin","id":)" << iter_range << R"(,"parent":0,"name":"iteration )"
        << iteration << R"(","tid":)" << tid << R"(,"host_ns":)" << host << "},\n";
    out << R"({"type":"transfer","seq":)" << seq++ << R"(,"tid":)" << tid
        << R"(,"rc":0,"api":"clEnqueueWriteBuffer","op":"write","queue_id":2,"device_id":1,"bytes":618348,"blocking":false,"host_ns":[)"
        << host << "," << host + 2000 << R"(],"device_ns":[)" << device << "," << device + 1000
        << "," << device + 2000 << "," << device + 90000 << R"(],"status":"complete","ranges":[)"
        << iter_range << "]},\n";
    ++transfers;
    host += 3000;
    device += 91000;
    for (const char* layer : kLayers) {
      if (out.written() + 512 >= limit) break;
      uint64_t layer_range = range_id++;
      ++ranges;
      out << R"({"type":"range_begin","id":)" << layer_range << R"(,"parent":)" << iter_range
          << R"(,"name":")" << layer << R"(","tid":)" << tid << R"(,"host_ns":)" << host << "},\n";
      uint64_t n = 2 + rng.below(6);
      for (uint64_t i = 0; i < n && out.written() + 512 < limit; ++i) {
        uint64_t pick = rng.below(total_weight), k = 0;
        while (pick >= kKernels[k].weight) pick -= kKernels[k].weight, ++k;
        const Kernel& kern = kKernels[k];
        uint64_t dur = kern.mean_ns / 2 + rng.below(kern.mean_ns);
        int64_t q = device, s = q + 2000 + static_cast<int64_t>(rng.below(3000));
        int64_t st = s + 2000 + static_cast<int64_t>(rng.below(3000)),
                e = st + static_cast<int64_t>(dur);
        device = e + 1000;
        out << R"({"type":"launch","seq":)" << seq++ << R"(,"tid":)" << tid
            << R"(,"rc":0,"kernel":")" << kern.name << R"(","kernel_id":)" << 10 + k
            << R"(,"program_id":4,"queue_id":2,"context_id":3,"device_id":1,"gwo":null,)";
        if (kern.kind == 0) {
          static const uint32_t ms[] = {96, 128, 256, 384, 192, 4096, 1000};
          static const uint32_t ns[] = {3025, 729, 169, 4096, 9216, 1};
          static const uint32_t ks[] = {363, 1200, 2304, 1728, 1, 4096};
          uint32_t m = ms[rng.below(7)], nn = ns[rng.below(6)], kk = ks[rng.below(6)];
          out << R"("gws":[)" << static_cast<uint64_t>((m + 7) / 8 * 2) << ","
              << static_cast<uint64_t>((nn + 7) / 8 * 2) << R"(],"lws":[8,8],"args":[["scalar",4,")"
              << hex_le32(m) << R"(",)" << static_cast<uint64_t>(m) << R"(],["scalar",4,")"
              << hex_le32(nn) << R"(",)" << static_cast<uint64_t>(nn) << R"(],["scalar",4,")"
              << hex_le32(kk) << R"(",)" << static_cast<uint64_t>(kk)
              << R"(],["scalar",4,"0000803f",1065353216],["scalar",4,"00000000",0],["buffer",8,)"
              << mem_id << R"(,1048576],["buffer",8,)" << mem_id + 1 << R"(,1048576],["buffer",8,)"
              << mem_id + 2 << R"(,1048576]],)";
        } else {
          uint64_t gws = 1024u << rng.below(6);
          out << R"("gws":[)" << gws << R"(],"lws":[128],"args":[["scalar",4,")"
              << hex_le32(static_cast<uint32_t>(gws)) << R"(",)" << gws << R"(],["buffer",8,)"
              << mem_id << R"(,)" << gws * 4 << R"(],["buffer",8,)" << mem_id + 1 << R"(,)"
              << gws * 4 << R"(]],)";
        }
        out << R"("host_ns":[)" << host << "," << host + 15000 << R"(],"device_ns":[)" << q << ","
            << s << "," << st << "," << e << R"(],"status":"complete","ranges":[)" << iter_range
            << "," << layer_range << "]},\n";
        host += 20000;
        ++launches;
        mem_id = 100 + rng.below(64);
      }
      out << R"({"type":"range_end","id":)" << layer_range << R"(,"tid":)" << tid
          << R"(,"host_ns":)" << host << "},\n";
    }
    out << R"({"type":"transfer","seq":)" << seq++ << R"(,"tid":)" << tid
        << R"(,"rc":0,"api":"clEnqueueReadBuffer","op":"read","queue_id":2,"device_id":1,"bytes":4000,"blocking":true,"host_ns":[)"
        << host << "," << host + 90000 << R"(],"device_ns":[)" << device << "," << device + 1000
        << "," << device + 2000 << "," << device + 6000 << R"(],"status":"complete","ranges":[)"
        << iter_range << "]},\n";
    out << R"({"type":"sync","seq":)" << seq++ << R"(,"tid":)" << tid
        << R"(,"rc":0,"api":"clFinish","queue_id":2,"host_ns":[)" << host + 90000 << ","
        << host + 91000 << "]},\n";
    out << R"({"type":"range_end","id":)" << iter_range << R"(,"tid":)" << tid << R"(,"host_ns":)"
        << host + 92000 << "},\n";
    transfers += 1;
    syncs += 1;
    host += 100000;
    device += 10000;
    ++iteration;
  }
  out << R"({"type":"end","host_ns":)" << host << R"(,"counts":{"launch":)" << launches
      << R"(,"transfer":)" << transfers << R"(,"sync":)" << syncs << R"(,"range_begin":)" << ranges
      << R"(},"incomplete":0,"dropped":0}]})"
      << "\n";
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
