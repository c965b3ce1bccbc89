// The native GEMM: Eigen's single-threaded kernel on blocks split over the pinned thread set,
// dispatched at run time to the AVX-512, the AVX2 or the baseline build of the kernels
// (gemm_variant.h; the build is portable unless LAYERWISE_NATIVE_ARCH).
#include <algorithm>

#include "libs/core/cpu.h"
#include "libs/native/gemm_variant.h"
#include "libs/native/kernels.h"
#include "libs/native/native.h"
#include "libs/ops/thread_pool.h"

// One call site per public function: the variant is decided once per process.
#define LW_GEMM_DISPATCH(fn, ...)                                          \
  (cpu_native_isa() == NativeIsa::kAvx512 ? native::avx512::fn(__VA_ARGS__) \
   : cpu_native_isa() == NativeIsa::kAvx2 ? native::avx2::fn(__VA_ARGS__)   \
                                          : native::generic::fn(__VA_ARGS__))

namespace lw {
namespace {
// Split columns in multiples of 16 floats (one AVX-512 vector) so halves stay aligned.
constexpr int kColumnGrain = 16;
}  // namespace

void native_gemm(int threads, int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
                 bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate)
      for (int i = 0; i < m; ++i) std::fill(c + int64_t(i) * ldc, c + int64_t(i) * ldc + n, 0.f);
    return;
  }
  if (n >= m || n >= 2 * kColumnGrain) {
    parallel_for(threads, n, kColumnGrain, [&](int64_t j0, int64_t j1) {
      LW_GEMM_DISPATCH(gemm_block, m, int(j1 - j0), k, a, lda, b + j0, ldb, c + j0, ldc, accumulate);
    });
  } else {
    parallel_for(threads, m, 4, [&](int64_t i0, int64_t i1) {
      LW_GEMM_DISPATCH(gemm_block, int(i1 - i0), n, k, a + i0 * lda, lda, b, ldb, c + i0 * ldc, ldc, accumulate);
    });
  }
}

namespace native {

void native_gemm_pack_b(int n, int k, const float* b, int ldb, float* packed) {
  LW_GEMM_DISPATCH(pack_b, n, k, b, ldb, packed);
}

void native_gemm_pack_a(int m, int k, const float* a, int lda, float* packed) {
  LW_GEMM_DISPATCH(pack_a, m, k, a, lda, packed);
}

int64_t native_gemm_buffer_floats(int threads, int64_t rows, int k) {
  return LW_GEMM_DISPATCH(buffer_floats, threads, rows, k);
}

void native_gemm_with_packed_b(int threads, int m, int n, int k, const float* a, int lda, const float* packed_b,
                               float* c, int ldc, float* buffer, const GemmEpilogue& ep) {
  LW_GEMM_DISPATCH(with_packed_b, threads, m, n, k, a, lda, packed_b, c, ldc, buffer, ep);
}

void native_gemm_with_packed_a(int threads, int m, int n, int k, const float* packed_a, const float* b, int ldb,
                               float* c, int ldc, float* buffer, const GemmEpilogue& ep) {
  LW_GEMM_DISPATCH(with_packed_a, threads, m, n, k, packed_a, b, ldb, c, ldc, buffer, ep);
}

}  // namespace native
}  // namespace lw
