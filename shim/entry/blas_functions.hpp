// The one list of BLAS entry points clprof hooks (CLPROF_HOOK_BLAS): the GEMMs of CLBlast's
// C and C++ APIs and of clBLAS. Each is exported by libclprof.so under the library's own
// symbol (C++ names mangled as the library exports them: `nm -D libclblast.so`), forwards
// to the library's function and records the call as a range (entry/blas_call.hpp).
// The prototypes are the libraries' public headers' (clblast_c.h, clblast.h, clBLAS.h),
// written once per shape in blas_hooks.cpp: neither library is needed to build the shim.
//
// X(ident, "symbol", Shape, T, library, routine, precision, "display name")
//   ident     : a C++ name for the hook (and its BlasId)
//   Shape     : the parameter list (blas_hooks.cpp): ClblastGemm (C API), ClblastGemmTemp
//               (C API WithTempBuffer, C++ Gemm<T> with its temp_buffer), ClblastBatched,
//               ClblastStrided (C and C++ alike), Clblas
//   T         : the type alpha and beta are passed as
//   library   : Clblast or Clblas; routine: Gemm, GemmBatched or GemmStridedBatched
//   precision : s, d, c, z or h
#pragma once

#include <CL/cl.h>

#include <complex>
#include <cstdint>

// The mangled names share their tail per template: T's code goes between.
#define CLPROF_CLBLAST_GEMM(t, s) \
  "_ZN7clblast4GemmI" t "EENS_10StatusCodeENS_6LayoutENS_9TransposeE" s "_mmmT_P7_cl_memmm"
#define CLPROF_CLBLAST_GEMM_REAL(t) \
  CLPROF_CLBLAST_GEMM(t, "S3") "S6_mmS4_S6_mmPP17_cl_command_queuePP9_cl_eventS6_"
#define CLPROF_CLBLAST_GEMM_COMPLEX(t) \
  CLPROF_CLBLAST_GEMM(t, "S5") "S8_mmS6_S8_mmPP17_cl_command_queuePP9_cl_eventS8_"
#define CLPROF_CLBLAST_BATCHED(t, s)                                            \
  "_ZN7clblast11GemmBatchedI" t "EENS_10StatusCodeENS_6LayoutENS_9TransposeE" s \
  "_mmmPKT_P7_cl_memPKmm"
#define CLPROF_CLBLAST_BATCHED_REAL(t) \
  CLPROF_CLBLAST_BATCHED(t, "S3") "S8_SA_mS6_S8_SA_mmPP17_cl_command_queuePP9_cl_event"
#define CLPROF_CLBLAST_BATCHED_COMPLEX(t) \
  CLPROF_CLBLAST_BATCHED(t, "S5") "SA_SC_mS8_SA_SC_mmPP17_cl_command_queuePP9_cl_event"
#define CLPROF_CLBLAST_STRIDED(t, s)                                                   \
  "_ZN7clblast18GemmStridedBatchedI" t "EENS_10StatusCodeENS_6LayoutENS_9TransposeE" s \
  "_mmmT_P7_cl_memmmm"
#define CLPROF_CLBLAST_STRIDED_REAL(t) \
  CLPROF_CLBLAST_STRIDED(t, "S3") "S6_mmmS4_S6_mmmmPP17_cl_command_queuePP9_cl_event"
#define CLPROF_CLBLAST_STRIDED_COMPLEX(t) \
  CLPROF_CLBLAST_STRIDED(t, "S5") "S8_mmmS6_S8_mmmmPP17_cl_command_queuePP9_cl_event"
#define CLPROF_CF "St7complexIfE"
#define CLPROF_CD "St7complexIdE"

#define CLPROF_BLAS_FUNCTIONS(X)                                                                   \
  /* CLBlast, C API (clblast_c.h); each calls its C++ twin through the PLT */                      \
  X(CLBlastSgemm, "CLBlastSgemm", ClblastGemm, float, Clblast, Gemm, s, "CLBlastSgemm")            \
  X(CLBlastDgemm, "CLBlastDgemm", ClblastGemm, double, Clblast, Gemm, d, "CLBlastDgemm")           \
  X(CLBlastCgemm, "CLBlastCgemm", ClblastGemm, cl_float2, Clblast, Gemm, c, "CLBlastCgemm")        \
  X(CLBlastZgemm, "CLBlastZgemm", ClblastGemm, cl_double2, Clblast, Gemm, z, "CLBlastZgemm")       \
  X(CLBlastHgemm, "CLBlastHgemm", ClblastGemm, cl_half, Clblast, Gemm, h, "CLBlastHgemm")          \
  X(CLBlastSgemmWithTempBuffer, "CLBlastSgemmWithTempBuffer", ClblastGemmTemp, float, Clblast,     \
    Gemm, s, "CLBlastSgemmWithTempBuffer")                                                         \
  X(CLBlastDgemmWithTempBuffer, "CLBlastDgemmWithTempBuffer", ClblastGemmTemp, double, Clblast,    \
    Gemm, d, "CLBlastDgemmWithTempBuffer")                                                         \
  X(CLBlastCgemmWithTempBuffer, "CLBlastCgemmWithTempBuffer", ClblastGemmTemp, cl_float2, Clblast, \
    Gemm, c, "CLBlastCgemmWithTempBuffer")                                                         \
  X(CLBlastZgemmWithTempBuffer, "CLBlastZgemmWithTempBuffer", ClblastGemmTemp, cl_double2,         \
    Clblast, Gemm, z, "CLBlastZgemmWithTempBuffer")                                                \
  X(CLBlastHgemmWithTempBuffer, "CLBlastHgemmWithTempBuffer", ClblastGemmTemp, cl_half, Clblast,   \
    Gemm, h, "CLBlastHgemmWithTempBuffer")                                                         \
  X(CLBlastSgemmBatched, "CLBlastSgemmBatched", ClblastBatched, float, Clblast, GemmBatched, s,    \
    "CLBlastSgemmBatched")                                                                         \
  X(CLBlastDgemmBatched, "CLBlastDgemmBatched", ClblastBatched, double, Clblast, GemmBatched, d,   \
    "CLBlastDgemmBatched")                                                                         \
  X(CLBlastCgemmBatched, "CLBlastCgemmBatched", ClblastBatched, cl_float2, Clblast, GemmBatched,   \
    c, "CLBlastCgemmBatched")                                                                      \
  X(CLBlastZgemmBatched, "CLBlastZgemmBatched", ClblastBatched, cl_double2, Clblast, GemmBatched,  \
    z, "CLBlastZgemmBatched")                                                                      \
  X(CLBlastHgemmBatched, "CLBlastHgemmBatched", ClblastBatched, cl_half, Clblast, GemmBatched, h,  \
    "CLBlastHgemmBatched")                                                                         \
  X(CLBlastSgemmStridedBatched, "CLBlastSgemmStridedBatched", ClblastStrided, float, Clblast,      \
    GemmStridedBatched, s, "CLBlastSgemmStridedBatched")                                           \
  X(CLBlastDgemmStridedBatched, "CLBlastDgemmStridedBatched", ClblastStrided, double, Clblast,     \
    GemmStridedBatched, d, "CLBlastDgemmStridedBatched")                                           \
  X(CLBlastCgemmStridedBatched, "CLBlastCgemmStridedBatched", ClblastStrided, cl_float2, Clblast,  \
    GemmStridedBatched, c, "CLBlastCgemmStridedBatched")                                           \
  X(CLBlastZgemmStridedBatched, "CLBlastZgemmStridedBatched", ClblastStrided, cl_double2, Clblast, \
    GemmStridedBatched, z, "CLBlastZgemmStridedBatched")                                           \
  X(CLBlastHgemmStridedBatched, "CLBlastHgemmStridedBatched", ClblastStrided, cl_half, Clblast,    \
    GemmStridedBatched, h, "CLBlastHgemmStridedBatched")                                           \
  /* CLBlast, C++ API (clblast.h): the library's explicit instantiations */                        \
  X(ClblastGemmF, CLPROF_CLBLAST_GEMM_REAL("f"), ClblastGemmTemp, float, Clblast, Gemm, s,         \
    "clblast::Gemm<float>")                                                                        \
  X(ClblastGemmD, CLPROF_CLBLAST_GEMM_REAL("d"), ClblastGemmTemp, double, Clblast, Gemm, d,        \
    "clblast::Gemm<double>")                                                                       \
  X(ClblastGemmC, CLPROF_CLBLAST_GEMM_COMPLEX(CLPROF_CF), ClblastGemmTemp, std::complex<float>,    \
    Clblast, Gemm, c, "clblast::Gemm<std::complex<float>>")                                        \
  X(ClblastGemmZ, CLPROF_CLBLAST_GEMM_COMPLEX(CLPROF_CD), ClblastGemmTemp, std::complex<double>,   \
    Clblast, Gemm, z, "clblast::Gemm<std::complex<double>>")                                       \
  X(ClblastGemmH, CLPROF_CLBLAST_GEMM_REAL("t"), ClblastGemmTemp, std::uint16_t, Clblast, Gemm, h, \
    "clblast::Gemm<half>")                                                                         \
  X(ClblastGemmBatchedF, CLPROF_CLBLAST_BATCHED_REAL("f"), ClblastBatched, float, Clblast,         \
    GemmBatched, s, "clblast::GemmBatched<float>")                                                 \
  X(ClblastGemmBatchedD, CLPROF_CLBLAST_BATCHED_REAL("d"), ClblastBatched, double, Clblast,        \
    GemmBatched, d, "clblast::GemmBatched<double>")                                                \
  X(ClblastGemmBatchedC, CLPROF_CLBLAST_BATCHED_COMPLEX(CLPROF_CF), ClblastBatched,                \
    std::complex<float>, Clblast, GemmBatched, c, "clblast::GemmBatched<std::complex<float>>")     \
  X(ClblastGemmBatchedZ, CLPROF_CLBLAST_BATCHED_COMPLEX(CLPROF_CD), ClblastBatched,                \
    std::complex<double>, Clblast, GemmBatched, z, "clblast::GemmBatched<std::complex<double>>")   \
  X(ClblastGemmBatchedH, CLPROF_CLBLAST_BATCHED_REAL("t"), ClblastBatched, std::uint16_t, Clblast, \
    GemmBatched, h, "clblast::GemmBatched<half>")                                                  \
  X(ClblastGemmStridedF, CLPROF_CLBLAST_STRIDED_REAL("f"), ClblastStrided, float, Clblast,         \
    GemmStridedBatched, s, "clblast::GemmStridedBatched<float>")                                   \
  X(ClblastGemmStridedD, CLPROF_CLBLAST_STRIDED_REAL("d"), ClblastStrided, double, Clblast,        \
    GemmStridedBatched, d, "clblast::GemmStridedBatched<double>")                                  \
  X(ClblastGemmStridedC, CLPROF_CLBLAST_STRIDED_COMPLEX(CLPROF_CF), ClblastStrided,                \
    std::complex<float>, Clblast, GemmStridedBatched, c,                                           \
    "clblast::GemmStridedBatched<std::complex<float>>")                                            \
  X(ClblastGemmStridedZ, CLPROF_CLBLAST_STRIDED_COMPLEX(CLPROF_CD), ClblastStrided,                \
    std::complex<double>, Clblast, GemmStridedBatched, z,                                          \
    "clblast::GemmStridedBatched<std::complex<double>>")                                           \
  X(ClblastGemmStridedH, CLPROF_CLBLAST_STRIDED_REAL("t"), ClblastStrided, std::uint16_t, Clblast, \
    GemmStridedBatched, h, "clblast::GemmStridedBatched<half>")                                    \
  /* clBLAS (clBLAS.h) */                                                                          \
  X(clblasSgemm, "clblasSgemm", Clblas, cl_float, Clblas, Gemm, s, "clblasSgemm")                  \
  X(clblasDgemm, "clblasDgemm", Clblas, cl_double, Clblas, Gemm, d, "clblasDgemm")                 \
  X(clblasCgemm, "clblasCgemm", Clblas, cl_float2, Clblas, Gemm, c, "clblasCgemm")                 \
  X(clblasZgemm, "clblasZgemm", Clblas, cl_double2, Clblas, Gemm, z, "clblasZgemm")

namespace clprof::shim {

// One enumerator per hooked BLAS function, in list order.
enum class BlasId : std::uint8_t {
#define CLPROF_BLAS_ENUMERATOR(ident, ...) ident,
  CLPROF_BLAS_FUNCTIONS(CLPROF_BLAS_ENUMERATOR)
#undef CLPROF_BLAS_ENUMERATOR
      kCount
};
inline constexpr unsigned kBlasCount = static_cast<unsigned>(BlasId::kCount);

}  // namespace clprof::shim
