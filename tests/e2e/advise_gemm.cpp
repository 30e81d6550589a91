// The GEMM cases of `clprof advise`'s rules on a real driver, through CLBlast (e2e test
// advise_gemm, advise_tests.cpp): `advise_gemm CASE bad` does what the rule warns about,
// `advise_gemm CASE good` the same work the way the rule advises.
//
//   pad   bad: 10 row-major SGEMMs of the main job's conv1 shape, 48 x 3025 x 363
//             (M x N x K), with XGEMM_MIN_INDIRECT_SIZE set to 256 as clblast_network sets
//             it: M*N*K >= 256^3 takes CLBlast's indirect path, and none of 48, 3025, 363 is
//             a multiple of its tiles, so each call pads and transposes before its Xgemm
//                                                   -> gemm-padding (warning)
//         good: the same 10 SGEMMs with CLBlast's own parameters: its default threshold
//             (896 for PoCL's device in Debian's CLBlast 1.5.3) sends M*N*K < 896^3 to the
//             direct kernel, which reads the matrices as they are: no helper kernels
//   peak  bad: kRepeats times the product C = A B of kN x kN matrices (128), block by block:
//             (kN / kBlock)^3 = 4096 Gemm calls of 8 x 8 x 8 each (1 kFLOP per launch, so
//             the launch's fixed cost is its time: 2.1 us here, 0.47 GFLOPS in all)
//                                                   -> gemm-below-peak (warning, with the
//                                                      peak the test derives, see there)
//         good: the same kRepeats products, one 128 x 128 x 128 Gemm each (0.94 ms, 4.47
//             GFLOPS here). Prints "ok GFLOPS": the best of its calls' rates from their events'
//             profiling times (2 * 128^3 FLOP over end - start), the test's peak.
// Prints "ok" and exits 0, or prints the failing call and exits 1.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <clblast.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "advise_app.hpp"

namespace {

using advise_app::check;

constexpr size_t kPadM = 48, kPadN = 3025, kPadK = 363;
constexpr int kPadCalls = 10;
constexpr size_t kN = 128;
constexpr size_t kBlock = 8;
constexpr int kRepeats = 3;

bool ok(clblast::StatusCode s, const char* what) {
  if (s == clblast::StatusCode::kSuccess) return true;
  std::printf("%s failed: %d\n", what, static_cast<int>(s));
  return false;
}

cl_mem buffer(cl_context context, size_t floats) {
  std::vector<float> host(floats);
  for (size_t i = 0; i < floats; ++i) host[i] = static_cast<float>(i % 7) * 0.25f;
  cl_int rc = CL_SUCCESS;
  cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            sizeof(float) * floats, host.data(), &rc);
  return check(rc, "clCreateBuffer") ? m : nullptr;
}

bool pad_case(cl_device_id device, cl_context context, cl_command_queue queue, bool bad) {
  using namespace clblast;
  // Before the first Gemm: CLBlast compiles its program with the parameters then in force.
  if (bad && !ok(OverrideParameters(device, "GemmRoutine", Precision::kSingle,
                                    {{"XGEMM_MIN_INDIRECT_SIZE", 256}}),
                 "OverrideParameters"))
    return false;
  cl_mem a = buffer(context, kPadM * kPadK), b = buffer(context, kPadK * kPadN),
         c = buffer(context, kPadM * kPadN);
  if (!a || !b || !c) return false;
  for (int i = 0; i < kPadCalls; ++i)
    if (!ok(Gemm<float>(Layout::kRowMajor, Transpose::kNo, Transpose::kNo, kPadM, kPadN, kPadK,
                        1.0f, a, 0, kPadK, b, 0, kPadN, 0.0f, c, 0, kPadN, &queue, nullptr),
            "Gemm"))
      return false;
  const cl_int rc = clFinish(queue);
  for (cl_mem m : {a, b, c}) clReleaseMemObject(m);
  if (!check(rc, "clFinish")) return false;
  std::printf("ok\n");
  return true;
}

bool peak_case(cl_context context, cl_command_queue queue, bool bad) {
  using namespace clblast;
  cl_mem a = buffer(context, kN * kN), b = buffer(context, kN * kN), c = buffer(context, kN * kN);
  if (!a || !b || !c) return false;
  double gflops = 0;
  if (bad) {
    // C[i][j] = sum over p of A[i][p] * B[p][j], block by block (row-major, ld kN).
    const size_t blocks = kN / kBlock;
    for (int r = 0; r < kRepeats; ++r)
      for (size_t i = 0; i < blocks; ++i)
        for (size_t j = 0; j < blocks; ++j)
          for (size_t p = 0; p < blocks; ++p)
            if (!ok(Gemm<float>(Layout::kRowMajor, Transpose::kNo, Transpose::kNo, kBlock, kBlock,
                                kBlock, 1.0f, a, (i * kN + p) * kBlock, kN, b,
                                (p * kN + j) * kBlock, kN, p == 0 ? 0.0f : 1.0f, c,
                                (i * kN + j) * kBlock, kN, &queue, nullptr),
                    "Gemm"))
              return false;
  } else {
    for (int r = 0; r < kRepeats; ++r) {
      cl_event event = nullptr;
      if (!ok(Gemm<float>(Layout::kRowMajor, Transpose::kNo, Transpose::kNo, kN, kN, kN, 1.0f, a, 0,
                          kN, b, 0, kN, 0.0f, c, 0, kN, &queue, &event),
              "Gemm"))
        return false;
      if (!check(clWaitForEvents(1, &event), "clWaitForEvents")) return false;
      cl_ulong start = 0, end = 0;
      cl_int rc = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start,
                                          nullptr);
      rc |= clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr);
      clReleaseEvent(event);
      if (!check(rc, "clGetEventProfilingInfo")) return false;
      if (end <= start) {
        std::printf("the call's event has no duration (%llu to %llu)\n",
                    static_cast<unsigned long long>(start), static_cast<unsigned long long>(end));
        return false;
      }
      gflops = std::max(gflops, 2.0 * kN * kN * kN / static_cast<double>(end - start));
    }
  }
  const cl_int rc = clFinish(queue);
  for (cl_mem m : {a, b, c}) clReleaseMemObject(m);
  if (!check(rc, "clFinish")) return false;
  if (bad)
    std::printf("ok\n");
  else
    std::printf("ok %.6g\n", gflops);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string which = argc == 3 ? argv[1] : "", mode = argc == 3 ? argv[2] : "";
  if ((which != "pad" && which != "peak") || (mode != "bad" && mode != "good")) {
    std::fprintf(stderr, "usage: advise_gemm pad|peak bad|good\n");
    return 2;
  }
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  // The good peak case reads its event's profiling times: a queue with profiling enabled.
  if (!advise_app::open_first_device(device, context, queue, CL_QUEUE_PROFILING_ENABLE)) return 1;
  const bool bad = mode == "bad";
  const bool done =
      which == "pad" ? pad_case(device, context, queue, bad) : peak_case(context, queue, bad);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return done ? 0 : 1;
}
