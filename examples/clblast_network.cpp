// clblast_network: a small AlexNet-shaped network of GEMM layers run through CLBlast.
//
//   clblast_network [--iterations N]      (default 3)
//
// Each convolution is expressed the way im2col-based frameworks run it: one GEMM
//   C[M x N] = W[M x K] * X[K x N]
// with M = output channels, N = output pixels, K = input channels * kernel area; the
// fully-connected layers are GEMMs with N = 1 (batch of one). The input matrices are
// filled with fixed pseudo-random data instead of a real im2col of the previous layer:
// what matters for profiling is the sequence and shapes of the GEMMs, not the numbers.
//
// Channel counts are half of AlexNet's so that an iteration takes a fraction of a second
// on a CPU OpenCL device. CLBlast runs a GEMM with M*N*K below XGEMM_MIN_INDIRECT_SIZE^3
// as one XgemmDirect* kernel, and a larger one as the Xgemm kernel plus pad/transpose
// helper kernels. The threshold is a per-device tuning value (896 in CLBlast 1.5.3's
// defaults, Debian 12's, which would put this whole network on the direct path), so the
// program sets it to kMinIndirectSize:
// the convolutions then take the indirect path and the fully-connected layers the direct
// one, on every device, and the printed "path" of each layer says which.
//
// Every iteration is one "inference" range and every layer one range named after it, so
// `clprof layers run.json` attributes each kernel launch to its layer. The program prints
// each layer's M, N, K once and checks sampled output elements against a CPU GEMM.

#include <CL/cl.h>
#include <clblast.h>

#include <clprof/clprof.h>

#include "cl_common.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using clprof_examples::check;
using clprof_examples::first_device_context;

struct Layer {
  const char* name;
  size_t m;  // output channels (rows of C)
  size_t n;  // output pixels (columns of C); 1 for fully-connected layers
  size_t k;  // reduction length
};

// AlexNet (227x227 input, batch 1) with every channel count halved.
const Layer kLayers[] = {
    {"conv1", 48, 55 * 55, 3 * 11 * 11},
    {"conv2", 128, 27 * 27, 48 * 5 * 5},
    {"conv3", 192, 13 * 13, 128 * 3 * 3},
    {"conv4", 192, 13 * 13, 192 * 3 * 3},
    {"conv5", 128, 13 * 13, 192 * 3 * 3},
    {"fc6", 2048, 1, 128 * 6 * 6},
    {"fc7", 2048, 1, 2048},
    {"fc8", 1000, 1, 2048},
};

// See the header comment; 256^3 sits between the largest FC layer and the smallest conv.
constexpr size_t kMinIndirectSize = 256;

bool uses_direct_kernel(const Layer& l) {
  return l.m * l.n * l.k < kMinIndirectSize * kMinIndirectSize * kMinIndirectSize;
}

// Deterministic fill so every run (with or without a profiler) computes the same numbers.
void fill(std::vector<float>& v, uint32_t seed) {
  uint32_t state = seed * 2654435761u + 1u;
  for (float& x : v) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<float>(state >> 8) / static_cast<float>(1u << 24) - 0.5f;
  }
}

struct LayerBuffers {
  std::vector<float> w, x;  // host copies, kept for the CPU check
  cl_mem w_buf = nullptr, x_buf = nullptr, c_buf = nullptr;
};

int parse_iterations(int argc, char** argv) {
  int iterations = 3;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) {
      char* end = nullptr;
      const long v = std::strtol(argv[++i], &end, 10);
      if (end == argv[i] || *end != '\0' || v < 1 || v > 1000) {
        std::fprintf(stderr, "clblast_network: --iterations needs an integer in [1, 1000]\n");
        std::exit(2);
      }
      iterations = static_cast<int>(v);
    } else {
      std::fprintf(stderr, "usage: %s [--iterations N]\n", argv[0]);
      std::exit(2);
    }
  }
  return iterations;
}

// Compares a spread of output elements with a CPU dot product; returns the mismatches.
int check_layer(const Layer& l, const LayerBuffers& b, const std::vector<float>& c) {
  int bad = 0;
  const size_t samples = 64;
  for (size_t s = 0; s < samples; ++s) {
    const size_t i = (s * 7919) % l.m;
    const size_t j = (s * 104729) % l.n;
    double sum = 0.0, magnitude = 0.0;
    for (size_t p = 0; p < l.k; ++p) {
      const double term = static_cast<double>(b.w[i * l.k + p]) * b.x[p * l.n + j];
      sum += term;
      magnitude += std::fabs(term);
    }
    // Float accumulation in a different order: allow rounding relative to the terms' size.
    if (std::fabs(c[i * l.n + j] - sum) > 1e-4 * magnitude + 1e-6) ++bad;
  }
  return bad;
}

}  // namespace

const char* const clprof_examples::kExampleName = "clblast_network";

int main(int argc, char** argv) {
  const int iterations = parse_iterations(argc, argv);

  const auto [device, context] = first_device_context();
  cl_int rc = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, nullptr, &rc);
  check(rc, "clCreateCommandQueueWithProperties");

  // Must happen before the first Gemm: CLBlast compiles its GEMM program with the
  // parameters in force at that moment and caches it for the process.
  const clblast::StatusCode override_status =
      clblast::OverrideParameters(device, "GemmRoutine", clblast::Precision::kSingle,
                                  {{"XGEMM_MIN_INDIRECT_SIZE", kMinIndirectSize}});
  if (override_status != clblast::StatusCode::kSuccess) {
    std::fprintf(stderr, "clblast_network: OverrideParameters failed: %d\n",
                 static_cast<int>(override_status));
    return 2;
  }

  std::vector<LayerBuffers> buffers(sizeof(kLayers) / sizeof(kLayers[0]));
  {
    clprof::ScopedRange range{"load_weights"};
    for (size_t li = 0; li < buffers.size(); ++li) {
      const Layer& l = kLayers[li];
      LayerBuffers& b = buffers[li];
      b.w.resize(l.m * l.k);
      b.x.resize(l.k * l.n);
      fill(b.w, static_cast<uint32_t>(2 * li + 1));
      fill(b.x, static_cast<uint32_t>(2 * li + 2));
      b.w_buf = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               b.w.size() * sizeof(float), b.w.data(), &rc);
      check(rc, "clCreateBuffer(weights)");
      b.x_buf = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               b.x.size() * sizeof(float), b.x.data(), &rc);
      check(rc, "clCreateBuffer(input)");
      b.c_buf = clCreateBuffer(context, CL_MEM_READ_WRITE, l.m * l.n * sizeof(float), nullptr, &rc);
      check(rc, "clCreateBuffer(output)");
      std::printf("layer %s M=%zu N=%zu K=%zu path=%s\n", l.name, l.m, l.n, l.k,
                  uses_direct_kernel(l) ? "direct" : "indirect");
    }
  }
  clprof_mark("weights loaded");

  for (int it = 0; it < iterations; ++it) {
    clprof::ScopedRange inference{"inference"};
    for (size_t li = 0; li < buffers.size(); ++li) {
      const Layer& l = kLayers[li];
      const LayerBuffers& b = buffers[li];
      clprof::ScopedRange layer{l.name};
      // Row-major C = W * X: lda = K, ldb = N, ldc = N.
      const clblast::StatusCode status = clblast::Gemm<float>(
          clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo, l.m, l.n,
          l.k, 1.0f, b.w_buf, 0, l.k, b.x_buf, 0, l.n, 0.0f, b.c_buf, 0, l.n, &queue, nullptr);
      if (status != clblast::StatusCode::kSuccess) {
        std::fprintf(stderr, "clblast_network: Gemm(%s) failed: %d\n", l.name,
                     static_cast<int>(status));
        return 2;
      }
    }
    // One synchronisation per inference, as a framework would do before using the result.
    check(clFinish(queue), "clFinish");
  }

  int bad = 0;
  for (size_t li = 0; li < buffers.size(); ++li) {
    const Layer& l = kLayers[li];
    std::vector<float> c(l.m * l.n);
    check(clEnqueueReadBuffer(queue, buffers[li].c_buf, CL_TRUE, 0, c.size() * sizeof(float),
                              c.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
    const int layer_bad = check_layer(l, buffers[li], c);
    if (layer_bad != 0) {
      std::fprintf(stderr, "clblast_network: %s: %d of 64 sampled outputs wrong\n", l.name,
                   layer_bad);
    }
    bad += layer_bad;
  }

  for (LayerBuffers& b : buffers) {
    clReleaseMemObject(b.c_buf);
    clReleaseMemObject(b.x_buf);
    clReleaseMemObject(b.w_buf);
  }
  clReleaseCommandQueue(queue);
  clReleaseContext(context);

  if (bad != 0) {
    std::printf("clblast_network: FAILED\n");
    return 1;
  }
  std::printf("clblast_network: OK (%d iterations, %zu layers)\n", iterations, buffers.size());
  return 0;
}
