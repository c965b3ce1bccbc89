/// \file
/// The three builds of the native GEMM's Eigen kernels (gemm_kernels.inc): `generic` for any
/// x86-64 CPU, `avx2` compiled with AVX2 + FMA and `avx512` with AVX-512 enabled. gemm.cc's
/// public functions (kernels.h) pick one per call from cpu_native_isa(), decided once per
/// process, so weights packed by one variant are always read by the same one (the variants
/// pack differently: Eigen's panel widths follow the vector width).
#pragma once
#include <cstdint>

#include "libs/native/kernels.h"

#define LW_DECLARE_GEMM_VARIANT(ns)                                                                              \
  namespace ns {                                                                                                 \
  void gemm_block(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,     \
                  bool acc);                                                                                     \
  void pack_b(int n, int k, const float* b, int ldb, float* packed);                                            \
  void pack_a(int m, int k, const float* a, int lda, float* packed);                                            \
  int64_t buffer_floats(int threads, int64_t rows, int k);                                                       \
  void with_packed_b(int threads, int m, int n, int k, const float* a, int lda, const float* packed_b, float* c, \
                     int ldc, float* buffer, const GemmEpilogue& ep);                                            \
  void with_packed_a(int threads, int m, int n, int k, const float* packed_a, const float* b, int ldb, float* c, \
                     int ldc, float* buffer, const GemmEpilogue& ep);                                            \
  }

namespace lw::native {
LW_DECLARE_GEMM_VARIANT(generic)
LW_DECLARE_GEMM_VARIANT(avx2)
LW_DECLARE_GEMM_VARIANT(avx512)
}  // namespace lw::native
