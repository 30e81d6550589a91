// The BLAS hooks: one exported function per row of CLPROF_BLAS_FUNCTIONS, under the
// library's symbol. Every hook has the one shape: a BlasCallScope, the real call (the
// library's function, looked up on first use), best-effort recording, the real result.
// Nothing here runs on the OpenCL hot path: the only cost to a launch inside a call is
// the call id it carries.
#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>

#include "base/entry_points.hpp"
#include "entry/blas_call.hpp"

namespace clprof::shim {
namespace {

template <class T>
constexpr bool is_complex() {
  return std::is_same_v<T, cl_float2> || std::is_same_v<T, cl_double2> ||
         std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;
}

// alpha and beta as numbers. Real types: the value.
double real_value(float v) {
  return v;
}
double real_value(double v) {
  return v;
}
// Half precision (cl_half, CLBlast's C++ half): IEEE 754 binary16 bits.
double real_value(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  double v;
  if (exponent == 0) {
    v = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    v = mantissa ? std::nan("") : HUGE_VAL;
  } else {
    v = std::ldexp(mantissa + 1024, exponent - 25);
  }
  return (h & 0x8000) ? -v : v;
}
// Complex types (OpenCL's two-element vectors, std::complex): real part, imaginary part.
std::complex<double> complex_value(const cl_float2& v) {
  return {v.s[0], v.s[1]};
}
std::complex<double> complex_value(const cl_double2& v) {
  return {v.s[0], v.s[1]};
}
template <class R>
std::complex<double> complex_value(const std::complex<R>& v) {
  return {v.real(), v.imag()};
}
// Either kind as (real, imaginary): a real value's imaginary part is 0.
template <class T>
std::complex<double> scalar_value(const T& v) {
  if constexpr (is_complex<T>())
    return complex_value(v);
  else
    return {real_value(v), 0};
}

template <class T>
void set_scalars(BlasCallFacts& f, const T& alpha, const T& beta) {
  f.has_alpha_beta = true;
  f.complex = is_complex<T>();
  const std::complex<double> a = scalar_value(alpha);
  const std::complex<double> b = scalar_value(beta);
  f.alpha = a.real();
  f.alpha_im = a.imag();
  f.beta = b.real();
  f.beta_im = b.imag();
}

void set_sizes(BlasCallFacts& f, int layout, int ta, int tb, size_t m, size_t n, size_t k) {
  f.layout = layout;
  f.trans_a = ta;
  f.trans_b = tb;
  f.m = m;
  f.n = n;
  f.k = k;
}

// The matrices: buffers and leading dimensions; offsets where the call has one each.
void set_matrices(BlasCallFacts& f, cl_mem a, size_t a_ld, cl_mem b, size_t b_ld, cl_mem c,
                  size_t c_ld) {
  f.a = a;
  f.b = b;
  f.c = c;
  f.a_ld = a_ld;
  f.b_ld = b_ld;
  f.c_ld = c_ld;
}
void set_offsets(BlasCallFacts& f, size_t a_off, size_t b_off, size_t c_off) {
  f.has_offsets = true;
  f.a_offset = a_off;
  f.b_offset = b_off;
  f.c_offset = c_off;
}

// What every call of GEMM's own shape says (CLBlast's Xgemm, its strided batch, clBLAS's
// Xgemm): sizes, the two scalars, the three matrices and their offsets.
template <class T>
BlasCallFacts gemm_facts(int layout, int ta, int tb, size_t m, size_t n, size_t k, const T& alpha,
                         cl_mem a, size_t a_off, size_t a_ld, cl_mem b, size_t b_off, size_t b_ld,
                         const T& beta, cl_mem c, size_t c_off, size_t c_ld) {
  BlasCallFacts f;
  set_sizes(f, layout, ta, tb, m, n, k);
  set_scalars(f, alpha, beta);
  set_matrices(f, a, a_ld, b, b_ld, c, c_ld);
  set_offsets(f, a_off, b_off, c_off);
  return f;
}

// ---- one hook template per shape -----------------------------------------------------
// Enums are passed as int (CLBlastLayout, clblast::Layout, clblasOrder, ... all are).

// Every hook's one shape: the library's function F (of type Fn, looked up on first use;
// kBlasNotImplemented without one) called with the hook's own `args`, unchanged; when the
// call is recorded, `facts()` (built only then) before it and the status after it.
template <BlasId F, class Fn, class Facts, class... Args>
int recorded_call(const Facts& facts, Args... args) {
  const auto real = reinterpret_cast<Fn>(real_blas(F));
  if (!real) return kBlasNotImplemented;
  BlasCallScope scope(F);
  if (scope.recording()) scope.begin(facts());
  const int rc = real(args...);
  scope.end(rc);
  return rc;
}

// CLBlast's CLBlastXgemm (no Temp), CLBlastXgemmWithTempBuffer and the C++ clblast::Gemm<T>
// (one Temp: the temp_buffer, which the C++ API defaults to nullptr).
template <BlasId F, class T>
struct ClblastGemm {
  template <class... Temp>
  static int hook(int layout, int ta, int tb, size_t m, size_t n, size_t k, T alpha, cl_mem a,
                  size_t a_off, size_t a_ld, cl_mem b, size_t b_off, size_t b_ld, T beta, cl_mem c,
                  size_t c_off, size_t c_ld, cl_command_queue* queue, cl_event* event,
                  Temp... temp) {
    using Fn =
        int (*)(int, int, int, size_t, size_t, size_t, T, cl_mem, size_t, size_t, cl_mem, size_t,
                size_t, T, cl_mem, size_t, size_t, cl_command_queue*, cl_event*, Temp...);
    const auto facts = [&] {
      BlasCallFacts f = gemm_facts(layout, ta, tb, m, n, k, alpha, a, a_off, a_ld, b, b_off, b_ld,
                                   beta, c, c_off, c_ld);
      if constexpr (sizeof...(Temp) == 1) f.temp = (temp, ...);
      f.queues = queue;
      f.n_queues = queue ? 1 : 0;
      return f;
    };
    return recorded_call<F, Fn>(facts, layout, ta, tb, m, n, k, alpha, a, a_off, a_ld, b, b_off,
                                b_ld, beta, c, c_off, c_ld, queue, event, temp...);
  }
};

// CLBlastXgemmBatched and clblast::GemmBatched<T>: arrays of alphas, betas and offsets.
template <BlasId F, class T>
int clblast_batched(int layout, int ta, int tb, size_t m, size_t n, size_t k, const T* alphas,
                    cl_mem a, const size_t* a_offs, size_t a_ld, cl_mem b, const size_t* b_offs,
                    size_t b_ld, const T* betas, cl_mem c, const size_t* c_offs, size_t c_ld,
                    size_t batch, cl_command_queue* queue, cl_event* event) {
  using Fn = int (*)(int, int, int, size_t, size_t, size_t, const T*, cl_mem, const size_t*, size_t,
                     cl_mem, const size_t*, size_t, const T*, cl_mem, const size_t*, size_t, size_t,
                     cl_command_queue*, cl_event*);
  const auto facts = [&] {
    BlasCallFacts f;
    set_sizes(f, layout, ta, tb, m, n, k);
    f.complex = is_complex<T>();
    f.batch = batch;
    set_matrices(f, a, a_ld, b, b_ld, c, c_ld);
    f.queues = queue;
    f.n_queues = queue ? 1 : 0;
    return f;
  };
  return recorded_call<F, Fn>(facts, layout, ta, tb, m, n, k, alphas, a, a_offs, a_ld, b, b_offs,
                              b_ld, betas, c, c_offs, c_ld, batch, queue, event);
}

// CLBlastXgemmStridedBatched and clblast::GemmStridedBatched<T>.
template <BlasId F, class T>
int clblast_strided(int layout, int ta, int tb, size_t m, size_t n, size_t k, T alpha, cl_mem a,
                    size_t a_off, size_t a_ld, size_t a_stride, cl_mem b, size_t b_off, size_t b_ld,
                    size_t b_stride, T beta, cl_mem c, size_t c_off, size_t c_ld, size_t c_stride,
                    size_t batch, cl_command_queue* queue, cl_event* event) {
  using Fn = int (*)(int, int, int, size_t, size_t, size_t, T, cl_mem, size_t, size_t, size_t,
                     cl_mem, size_t, size_t, size_t, T, cl_mem, size_t, size_t, size_t, size_t,
                     cl_command_queue*, cl_event*);
  const auto facts = [&] {
    BlasCallFacts f = gemm_facts(layout, ta, tb, m, n, k, alpha, a, a_off, a_ld, b, b_off, b_ld,
                                 beta, c, c_off, c_ld);
    f.batch = batch;
    f.strided = true;
    f.a_stride = a_stride;
    f.b_stride = b_stride;
    f.c_stride = c_stride;
    f.queues = queue;
    f.n_queues = queue ? 1 : 0;
    return f;
  };
  return recorded_call<F, Fn>(facts, layout, ta, tb, m, n, k, alpha, a, a_off, a_ld, a_stride, b,
                              b_off, b_ld, b_stride, beta, c, c_off, c_ld, c_stride, batch, queue,
                              event);
}

// clblasXgemm (clBLAS.h): several queues, an event wait list.
template <BlasId F, class T>
int clblas_gemm(int order, int ta, int tb, size_t m, size_t n, size_t k, T alpha, cl_mem a,
                size_t a_off, size_t a_ld, cl_mem b, size_t b_off, size_t b_ld, T beta, cl_mem c,
                size_t c_off, size_t c_ld, cl_uint n_queues, cl_command_queue* queues,
                cl_uint n_events, const cl_event* wait_list, cl_event* events) {
  using Fn = int (*)(int, int, int, size_t, size_t, size_t, T, cl_mem, size_t, size_t, cl_mem,
                     size_t, size_t, T, cl_mem, size_t, size_t, cl_uint, cl_command_queue*, cl_uint,
                     const cl_event*, cl_event*);
  const auto facts = [&] {
    BlasCallFacts f = gemm_facts(order, ta, tb, m, n, k, alpha, a, a_off, a_ld, b, b_off, b_ld,
                                 beta, c, c_off, c_ld);
    f.queues = queues;
    f.n_queues = n_queues;
    return f;
  };
  return recorded_call<F, Fn>(facts, order, ta, tb, m, n, k, alpha, a, a_off, a_ld, b, b_off, b_ld,
                              beta, c, c_off, c_ld, n_queues, queues, n_events, wait_list, events);
}

}  // namespace
}  // namespace clprof::shim

// ---- the exported hooks ----------------------------------------------------------------
// Each shape: its parameter list, and the template its hook forwards to.
#define CLPROF_BLAS_PARAMS_GEMM(T)                                                           \
  int layout, int ta, int tb, size_t m, size_t n, size_t k, T alpha, cl_mem a, size_t a_off, \
      size_t a_ld, cl_mem b, size_t b_off, size_t b_ld, T beta, cl_mem c, size_t c_off,      \
      size_t c_ld
#define CLPROF_BLAS_ARGS_GEMM \
  layout, ta, tb, m, n, k, alpha, a, a_off, a_ld, b, b_off, b_ld, beta, c, c_off, c_ld
#define CLPROF_BLAS_PARAMS_ClblastGemm(T) \
  CLPROF_BLAS_PARAMS_GEMM(T), cl_command_queue *queue, cl_event *event
#define CLPROF_BLAS_CALL_ClblastGemm(F, T) \
  ClblastGemm<F, T>::hook(CLPROF_BLAS_ARGS_GEMM, queue, event)
#define CLPROF_BLAS_PARAMS_ClblastGemmTemp(T) \
  CLPROF_BLAS_PARAMS_GEMM(T), cl_command_queue *queue, cl_event *event, cl_mem temp
#define CLPROF_BLAS_CALL_ClblastGemmTemp(F, T) \
  ClblastGemm<F, T>::hook(CLPROF_BLAS_ARGS_GEMM, queue, event, temp)
#define CLPROF_BLAS_PARAMS_ClblastBatched(T)                                           \
  int layout, int ta, int tb, size_t m, size_t n, size_t k, const T *alphas, cl_mem a, \
      const size_t *a_offs, size_t a_ld, cl_mem b, const size_t *b_offs, size_t b_ld,  \
      const T *betas, cl_mem c, const size_t *c_offs, size_t c_ld, size_t batch,       \
      cl_command_queue *queue, cl_event *event
#define CLPROF_BLAS_CALL_ClblastBatched(F, T)                                                     \
  clblast_batched<F, T>(layout, ta, tb, m, n, k, alphas, a, a_offs, a_ld, b, b_offs, b_ld, betas, \
                        c, c_offs, c_ld, batch, queue, event)
#define CLPROF_BLAS_PARAMS_ClblastStrided(T)                                                       \
  int layout, int ta, int tb, size_t m, size_t n, size_t k, T alpha, cl_mem a, size_t a_off,       \
      size_t a_ld, size_t a_stride, cl_mem b, size_t b_off, size_t b_ld, size_t b_stride, T beta,  \
      cl_mem c, size_t c_off, size_t c_ld, size_t c_stride, size_t batch, cl_command_queue *queue, \
      cl_event *event
#define CLPROF_BLAS_CALL_ClblastStrided(F, T)                                                     \
  clblast_strided<F, T>(layout, ta, tb, m, n, k, alpha, a, a_off, a_ld, a_stride, b, b_off, b_ld, \
                        b_stride, beta, c, c_off, c_ld, c_stride, batch, queue, event)
#define CLPROF_BLAS_PARAMS_Clblas(T)                                                        \
  CLPROF_BLAS_PARAMS_GEMM(T), cl_uint n_queues, cl_command_queue *queues, cl_uint n_events, \
      const cl_event *wait_list, cl_event *events
#define CLPROF_BLAS_CALL_Clblas(F, T) \
  clblas_gemm<F, T>(CLPROF_BLAS_ARGS_GEMM, n_queues, queues, n_events, wait_list, events)

// Declared under the library's symbol (an asm label: the C++ names are mangled ones),
// exported (shim/exports.map lists the patterns).
#define CLPROF_BLAS_DEFINE(ident, symbol, shape, T, ...)          \
  __attribute__((visibility("default"))) int clprof_blas_##ident( \
      CLPROF_BLAS_PARAMS_##shape(T)) __asm__(symbol);             \
  int clprof_blas_##ident(CLPROF_BLAS_PARAMS_##shape(T)) {        \
    using namespace clprof::shim;                                 \
    return CLPROF_BLAS_CALL_##shape(BlasId::ident, T);            \
  }
CLPROF_BLAS_FUNCTIONS(CLPROF_BLAS_DEFINE)
#undef CLPROF_BLAS_DEFINE

namespace clprof::shim {

void* blas_hook_address(BlasId id) {
  static void* const kHooks[] = {
#define CLPROF_BLAS_ADDRESS(ident, ...) reinterpret_cast<void*>(&clprof_blas_##ident),
      CLPROF_BLAS_FUNCTIONS(CLPROF_BLAS_ADDRESS)
#undef CLPROF_BLAS_ADDRESS
  };
  return kHooks[static_cast<unsigned>(id)];
}

}  // namespace clprof::shim
