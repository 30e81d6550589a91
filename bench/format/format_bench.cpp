// clprof_format_bench: the shim's hot formatter alone (format_op with the harvester's
// LaunchTextCache) over a fixed, deterministic stream of launch, transfer and sync records,
// for counting instructions with callgrind (bench/format/run.sh). No OpenCL, no I/O.
//
//   clprof_format_bench [RECORDS]     (default 200000)
//
// The stream imitates a harvester's: seq going up by one, a few kernels with three
// arguments (two buffers and a scalar that changes now and then), 13-digit device times,
// host times a few microseconds apart, one transfer and one sync every 50 launches.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "output/record_format.hpp"

using namespace clprof::shim;

int main(int argc, char** argv) {
  const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200000;
  const char* names[] = {"\"XgemmDirectTN\"", "\"im2col_float\"", "\"relu_forward_float\"",
                         "\"fillbuffer_float\""};
  auto r = std::make_unique<OpRecord>();
  std::memset(static_cast<void*>(r.get()), 0, sizeof(OpRecord));
  LaunchTextCache cache;
  std::vector<char> buffer(kMaxOpChars + 4096);
  std::uint64_t checksum = 0, bytes = 0, x = 88172645463325252ULL;
  std::int64_t host = 60000000000;
  std::uint64_t device = 1034372325729ULL;
  for (std::uint64_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::memset(static_cast<void*>(r.get()), 0, offsetof(OpRecord, ranges));
    r->seq = i + 1;
    r->tid = 4242;
    host += 3000 + static_cast<std::int64_t>(x % 2000);
    r->host_begin_ns = host;
    r->host_end_ns = host + 1500;
    if (i % 50 == 48) {
      r->kind = RecordKind::Transfer;
      r->api = "clEnqueueReadBuffer";
      r->op = TransferOp::Read;
      r->queue_id = 1;
      r->device_id = 1;
      r->bytes = 4096;
      r->blocking = true;
    } else if (i % 50 == 49) {
      r->kind = RecordKind::Sync;
      r->api = "clFinish";
      r->queue_id = 1;
    } else {
      r->kind = RecordKind::Launch;
      const unsigned k = static_cast<unsigned>(i % 7 % 4);
      r->kernel_name = names[k];
      r->kernel_id = k + 1;
      r->program_id = 1;
      r->queue_id = 1;
      r->context_id = 1;
      r->device_id = 1;
      r->work_dim = k == 0 ? 2 : 1;
      r->gws[0] = 1024;
      r->gws[1] = 64;
      r->has_lws = k != 3;
      r->lws[0] = 64;
      r->lws[1] = 4;
      r->n_args = r->total_args = 3;
      for (unsigned a = 0; a < 2; ++a) {
        r->args[a].kind = ArgKind::Buffer;
        r->args[a].size = 8;
        r->args[a].object.id = k * 2 + a + 1;
        r->args[a].object.mem_bytes = 262144;
      }
      r->args[2].kind = ArgKind::Scalar;
      r->args[2].size = 4;
      const std::uint32_t v = static_cast<std::uint32_t>(i / 100);
      std::memcpy(r->args[2].bytes, &v, 4);
      r->n_ranges = 2;
      r->ranges[0] = 1;
      r->ranges[1] = static_cast<std::uint32_t>(2 + i / 1000);
    }
    r->status = OpStatus::Complete;
    if (r->kind != RecordKind::Sync) {
      r->has_device_ns = true;
      device += 20000 + x % 5000;
      r->device_ns[0] = device;
      r->device_ns[1] = device + 1000;
      r->device_ns[2] = device + 2000;
      r->device_ns[3] = device + 15000;
    }
    char* end = format_op(*r, buffer.data(), &cache);
    const auto len = static_cast<std::uint64_t>(end - buffer.data());
    bytes += len;
    checksum = checksum * 31 + static_cast<unsigned char>(buffer[len / 2]) + len;
  }
  std::printf("%llu records, %llu bytes, checksum %llx\n", static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(checksum));
  return 0;
}
