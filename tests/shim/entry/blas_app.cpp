// blas_app: real GEMM calls into CLBlast (Debian's 1.5.3 on PoCL in the tests), through
// its C API and its C++ API, at sizes that take each of CLBlast's paths: direct (one
// XgemmDirect* kernel), indirect (pad/transpose helpers around Xgemm, and a copy back),
// batched and strided batched on both paths, transposed operands, and one failing call.
// blas_hooks_test.cpp runs it with and without libclprof.so and checks the trace; the
// analyzer's tests read the same traces (tests/analyzer/analyses/gemm_clblast_test.cpp).
//
// Output, one line per call (the tests parse it):
//   call <label> <api> <layout> <ta><tb> <m> <n> <k> <batch> rc=<status> sum=<checksum of C>
// The checksum lets the tests check that the profiled run computed the same results.
//
// The threshold between the paths is set once (XGEMM_MIN_INDIRECT_SIZE = 64, i.e. direct
// iff m*n*k < 262144) so that the sizes below pick their path on any device.
#include <clblast.h>
#include <clblast_c.h>

#include <CL/cl.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr size_t kElements = 3 * 16384;  // per buffer: the largest call below fits
constexpr size_t kMinIndirectSize = 64;

cl_context g_context;
cl_command_queue g_queue;
cl_mem g_a, g_b, g_c;

void check(cl_int rc, const char* what) {
  if (rc == CL_SUCCESS) return;
  std::fprintf(stderr, "blas_app: %s failed: %d\n", what, rc);
  std::exit(1);
}

void fill(cl_mem buffer, float scale) {
  std::vector<float> v(kElements);
  for (size_t i = 0; i < kElements; ++i)
    v[i] = scale * static_cast<float>((i * 7 + 3) % 13) / 13.0f;
  check(clEnqueueWriteBuffer(g_queue, buffer, CL_TRUE, 0, kElements * sizeof(float), v.data(), 0,
                             nullptr, nullptr),
        "clEnqueueWriteBuffer");
}

double checksum(size_t elements) {
  std::vector<float> v(kElements);
  check(clEnqueueReadBuffer(g_queue, g_c, CL_TRUE, 0, kElements * sizeof(float), v.data(), 0,
                            nullptr, nullptr),
        "clEnqueueReadBuffer");
  double sum = 0;
  for (size_t i = 0; i < elements && i < kElements; ++i)
    sum += v[i] * static_cast<double>((i % 5) + 1);
  return sum;
}

struct Call {
  const char* label;
  const char* api;  // what the test expects the trace to name
  bool row;
  bool ta, tb;
  size_t m, n, k, batch;
  float beta;
};

// Leading dimensions of packed matrices.
size_t a_ld(const Call& c) {
  return c.row ? (c.ta ? c.m : c.k) : (c.ta ? c.k : c.m);
}
size_t b_ld(const Call& c) {
  return c.row ? (c.tb ? c.k : c.n) : (c.tb ? c.n : c.k);
}
size_t c_ld(const Call& c) {
  return c.row ? c.n : c.m;
}

void print(const Call& c, int rc) {
  std::printf("call %s %s %s %c%c %zu %zu %zu %zu %g rc=%d sum=%.9g\n", c.label, c.api,
              c.row ? "row" : "col", c.ta ? 'T' : 'N', c.tb ? 'T' : 'N', c.m, c.n, c.k, c.batch,
              static_cast<double>(c.beta), rc, rc == 0 ? checksum(c.m * c.n * c.batch) : 0.0);
}

// Waits for the call's event (if it gave one), releases it and prints the line.
void finish(const Call& c, cl_event event, int rc) {
  if (event) {
    clWaitForEvents(1, &event);
    clReleaseEvent(event);
  }
  print(c, rc);
}

// The layout and transposes of the C and of the C++ API.
CLBlastLayout c_layout(const Call& c) {
  return c.row ? CLBlastLayoutRowMajor : CLBlastLayoutColMajor;
}
CLBlastTranspose c_transpose(bool t) {
  return t ? CLBlastTransposeYes : CLBlastTransposeNo;
}
clblast::Layout cpp_layout(const Call& c) {
  return c.row ? clblast::Layout::kRowMajor : clblast::Layout::kColMajor;
}
clblast::Transpose cpp_transpose(bool t) {
  return t ? clblast::Transpose::kYes : clblast::Transpose::kNo;
}

// The C API: CLBlastSgemm.
void c_gemm(const Call& c) {
  fill(g_c, 0.5f);
  cl_event event = nullptr;
  const CLBlastStatusCode rc =
      CLBlastSgemm(c_layout(c), c_transpose(c.ta), c_transpose(c.tb), c.m, c.n, c.k, 1.0f, g_a, 0,
                   a_ld(c), g_b, 0, b_ld(c), c.beta, g_c, 0, c_ld(c), &g_queue, &event);
  finish(c, event, rc);
}

// The C++ API: clblast::Gemm<float>.
void cpp_gemm(const Call& c) {
  fill(g_c, 0.5f);
  cl_event event = nullptr;
  const auto rc = clblast::Gemm<float>(cpp_layout(c), cpp_transpose(c.ta), cpp_transpose(c.tb), c.m,
                                       c.n, c.k, 1.0f, g_a, 0, a_ld(c), g_b, 0, b_ld(c), c.beta,
                                       g_c, 0, c_ld(c), &g_queue, &event);
  finish(c, event, static_cast<int>(rc));
}

// CLBlastSgemmBatched: the matrices packed one after the other.
void c_batched(const Call& c) {
  fill(g_c, 0.5f);
  std::vector<float> alphas(c.batch, 1.0f), betas(c.batch, c.beta);
  std::vector<size_t> a_off(c.batch), b_off(c.batch), c_off(c.batch);
  for (size_t i = 0; i < c.batch; ++i) {
    a_off[i] = i * c.m * c.k;
    b_off[i] = i * c.k * c.n;
    c_off[i] = i * c.m * c.n;
  }
  cl_event event = nullptr;
  const CLBlastStatusCode rc =
      CLBlastSgemmBatched(c_layout(c), c_transpose(c.ta), c_transpose(c.tb), c.m, c.n, c.k,
                          alphas.data(), g_a, a_off.data(), a_ld(c), g_b, b_off.data(), b_ld(c),
                          betas.data(), g_c, c_off.data(), c_ld(c), c.batch, &g_queue, &event);
  finish(c, event, rc);
}

// clblast::GemmStridedBatched<float>.
void cpp_strided(const Call& c) {
  fill(g_c, 0.5f);
  cl_event event = nullptr;
  const auto rc = clblast::GemmStridedBatched<float>(
      cpp_layout(c), cpp_transpose(c.ta), cpp_transpose(c.tb), c.m, c.n, c.k, 1.0f, g_a, 0, a_ld(c),
      c.m * c.k, g_b, 0, b_ld(c), c.k * c.n, c.beta, g_c, 0, c_ld(c), c.m * c.n, c.batch, &g_queue,
      &event);
  finish(c, event, static_cast<int>(rc));
}

}  // namespace

int main() {
  cl_platform_id platform;
  cl_uint n = 0;
  check(clGetPlatformIDs(1, &platform, &n), "clGetPlatformIDs");
  cl_device_id device;
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");
  cl_int rc;
  g_context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &rc);
  check(rc, "clCreateContext");
  g_queue = clCreateCommandQueue(g_context, device, CL_QUEUE_PROFILING_ENABLE, &rc);
  check(rc, "clCreateCommandQueue");
  cl_mem* buffers[] = {&g_a, &g_b, &g_c};
  for (cl_mem* b : buffers) {
    *b = clCreateBuffer(g_context, CL_MEM_READ_WRITE, kElements * sizeof(float), nullptr, &rc);
    check(rc, "clCreateBuffer");
  }
  fill(g_a, 1.0f);
  fill(g_b, 2.0f);
  const auto override_rc =
      clblast::OverrideParameters(device, "GemmRoutine", clblast::Precision::kSingle,
                                  {{"XGEMM_MIN_INDIRECT_SIZE", kMinIndirectSize}});
  if (override_rc != clblast::StatusCode::kSuccess) {
    std::fprintf(stderr, "blas_app: OverrideParameters failed: %d\n",
                 static_cast<int>(override_rc));
    return 1;
  }

  // label, api, row, ta, tb, m, n, k, batch, beta. m*n*k < 262144: direct.
  cpp_gemm({"direct", "clblast::Gemm<float>", true, false, false, 40, 50, 60, 1, 0.0f});
  c_gemm({"direct_tt", "CLBlastSgemm", false, true, true, 40, 50, 60, 1, 1.0f});
  c_gemm({"indirect", "CLBlastSgemm", true, false, false, 48, 300, 36, 1, 0.0f});
  cpp_gemm({"indirect_beta", "clblast::Gemm<float>", true, false, false, 48, 300, 36, 1, 1.0f});
  cpp_gemm({"indirect_tn", "clblast::Gemm<float>", false, true, false, 50, 70, 90, 1, 0.0f});
  c_batched({"batched_direct", "CLBlastSgemmBatched", true, false, false, 20, 30, 40, 3, 0.0f});
  c_batched({"batched_indirect", "CLBlastSgemmBatched", true, false, false, 48, 100, 72, 3, 0.0f});
  cpp_strided({"strided_direct", "clblast::GemmStridedBatched<float>", true, false, false, 20, 30,
               40, 3, 0.0f});
  cpp_strided({"strided_indirect", "clblast::GemmStridedBatched<float>", false, false, true, 48,
               100, 72, 3, 0.0f});
  c_gemm({"error", "CLBlastSgemm", true, false, false, 0, 50, 60, 1, 0.0f});

  clFinish(g_queue);
  for (cl_mem* b : buffers) clReleaseMemObject(*b);
  clReleaseCommandQueue(g_queue);
  clReleaseContext(g_context);
  return 0;
}
