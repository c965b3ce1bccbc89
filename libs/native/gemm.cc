// The native GEMM: Eigen's single-threaded kernel on blocks split over the pinned thread set.
// Eigen packs its panels in stack buffers up to EIGEN_STACK_ALLOCATION_LIMIT; raising the
// limit keeps run() free of heap allocation for the block sizes Eigen picks here
// (kc x mc + kc x nc floats, well under 2 MiB; threads have 8 MiB stacks).
#define EIGEN_STACK_ALLOCATION_LIMIT (2 * 1024 * 1024)
#include <Eigen/Core>

#include "libs/native/kernels.h"
#include "libs/native/native.h"
#include "libs/ops/thread_pool.h"

namespace lw {
namespace {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMat, 0, Eigen::OuterStride<>>;
using Map = Eigen::Map<RowMat, 0, Eigen::OuterStride<>>;

void gemm_block(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc, bool acc) {
  ConstMap A(a, m, k, Eigen::OuterStride<>(lda));
  ConstMap B(b, k, n, Eigen::OuterStride<>(ldb));
  Map C(c, m, n, Eigen::OuterStride<>(ldc));
  if (acc) C.noalias() += A * B;
  else C.noalias() = A * B;
}

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
      gemm_block(m, int(j1 - j0), k, a, lda, b + j0, ldb, c + j0, ldc, accumulate);
    });
  } else {
    parallel_for(threads, m, 4, [&](int64_t i0, int64_t i1) {
      gemm_block(int(i1 - i0), n, k, a + i0 * lda, lda, b, ldb, c + i0 * ldc, ldc, accumulate);
    });
  }
}

namespace native {
namespace {

// Eigen's own GEMM building blocks (GeneralMatrixMatrix.h) in its column-major view, where
// row-major C = A * B is C^T = B^T * A^T: B^T is Eigen's left operand, A^T its right.
using Index = Eigen::Index;
using Traits = Eigen::internal::gebp_traits<float, float>;
using LhsMapper = Eigen::internal::const_blas_data_mapper<float, Index, Eigen::ColMajor>;
using ResMapper = Eigen::internal::blas_data_mapper<float, Index, Eigen::ColMajor>;
using PackLhs = Eigen::internal::gemm_pack_lhs<float, Index, LhsMapper, Traits::mr, Traits::LhsProgress,
                                               Traits::LhsPacket4Packing, Eigen::ColMajor>;
using PackRhs = Eigen::internal::gemm_pack_rhs<float, Index, LhsMapper, Traits::nr, Eigen::ColMajor>;
using Gebp = Eigen::internal::gebp_kernel<float, float, Index, ResMapper, Traits::mr, Traits::nr, false, false>;

// Blocks of the per-run operand (the activations): at most kDepthBlock deep so that a
// 48-row micro-panel of the left operand (48 x 192 floats = 36 KiB) stays in the 48 KiB L1
// next to a right panel while the gebp kernel sweeps the other operand (256 deep filled
// L1 exactly: 256-channel 56x56 layers ran 10-20% slower); kRowBlock rows so that one
// packed block stays in the 2 MiB L2 while every panel of the weights passes over it.
constexpr int kDepthBlock = 192;
constexpr int kRowBlock = 512;

// The depth k cut into equal blocks (a multiple of 8 deep, the last one shorter): k = 256
// runs as 2 x 128 rather than 192 + 64.
int depth_block(int k) {
  const int blocks = (k + kDepthBlock - 1) / kDepthBlock;
  return std::max(8, ((k + blocks - 1) / blocks + 7) / 8 * 8);
}

int64_t slot_floats(int64_t rows, int k) {
  const int64_t f = std::min<int64_t>(rows, kRowBlock) * std::min(k, depth_block(k));
  return (f + 15) / 16 * 16;  // keeps the next thread's slot 64-byte aligned
}

// A block of C starts at its bias (per row or per column; nullptr: zero) instead of being
// zeroed, and is activated as soon as its products are complete, while it is still in
// L2: a separate epilogue would stream the whole output through memory twice more.
void init_block(float* c, int rows, int cols, int ldc, const float* row_bias, const float* col_bias) {
  for (int i = 0; i < rows; ++i) {
    float* ci = c + int64_t(i) * ldc;
    if (col_bias) std::copy(col_bias, col_bias + cols, ci);
    else std::fill(ci, ci + cols, row_bias ? row_bias[i] : 0.f);
  }
}
void activate_block(float* c, int rows, int cols, int ldc, LayerKind act) {
  if (!is_activation(act)) return;
  with_activation(act, [&](auto f) {
    for (int i = 0; i < rows; ++i)
      for (float *p = c + int64_t(i) * ldc, *e = p + cols; p < e; ++p) *p = f(*p);
  });
}

// C[m x n] = A * B + bias for one thread's rows of A; B packed over its full depth k, so a
// depth block [k0, k0 + kc) of it is addressed with gebp's stride/offset (stride k,
// offset k0).
void rows_times_packed_b(int m, int n, int k, const float* a, int lda, const float* packed_b, float* c, int ldc,
                         float* buffer, const GemmEpilogue& ep) {
  for (int i0 = 0; i0 < m; i0 += kRowBlock) {
    const int mc = std::min(kRowBlock, m - i0);
    float* ci = c + int64_t(i0) * ldc;
    init_block(ci, mc, n, ldc, nullptr, ep.bias);
    for (int k0 = 0, kb = depth_block(k); k0 < k; k0 += kb) {
      const int kc = std::min(kb, k - k0);
      PackRhs()(buffer, LhsMapper(a + int64_t(i0) * lda + k0, lda), kc, mc);
      Gebp()(ResMapper(ci, ldc), packed_b, buffer, n, kc, mc, 1.f, k, kc, k0, 0);
    }
    activate_block(ci, mc, n, ldc, ep.act);
  }
}

// C[m x n] = A * B + bias for one thread's columns of B (C's columns at c); A packed over
// its full depth k, addressed per depth block as above.
void packed_a_times_cols(int m, int n, int k, const float* packed_a, const float* b, int ldb, float* c, int ldc,
                         float* buffer, const GemmEpilogue& ep) {
  for (int j0 = 0; j0 < n; j0 += kRowBlock) {
    const int nc = std::min(kRowBlock, n - j0);
    init_block(c + j0, m, nc, ldc, ep.bias, nullptr);
    for (int k0 = 0, kb = depth_block(k); k0 < k; k0 += kb) {
      const int kc = std::min(kb, k - k0);
      PackLhs()(buffer, LhsMapper(b + int64_t(k0) * ldb + j0, ldb), kc, nc);
      Gebp()(ResMapper(c + j0, ldc), buffer, packed_a, nc, kc, m, 1.f, kc, k, 0, k0);
    }
    activate_block(c + j0, m, nc, ldc, ep.act);
  }
}

// Thread splits: B's rows are Eigen's right-hand columns (panels of nr = 4), A's
// columns its left-hand rows (packets of 16).
constexpr int kRowGrain = 8;
constexpr int kColGrain = 16;

}  // namespace

void native_gemm_pack_b(int n, int k, const float* b, int ldb, float* packed) {
  PackLhs()(packed, LhsMapper(b, ldb), k, n);
}

void native_gemm_pack_a(int m, int k, const float* a, int lda, float* packed) {
  PackRhs()(packed, LhsMapper(a, lda), k, m);
}

void native_gemm_packed_b(int m, int n, int k, const float* a, int lda, const float* packed_b, float* c, int ldc,
                          float* a_buffer) {
  for (int i = 0; i < m; ++i) std::fill(c + int64_t(i) * ldc, c + int64_t(i) * ldc + n, 0.f);
  if (m <= 0 || n <= 0 || k <= 0) return;
  PackRhs()(a_buffer, LhsMapper(a, lda), k, m);
  Gebp()(ResMapper(c, ldc), packed_b, a_buffer, n, k, m, 1.f);
}

int64_t native_gemm_buffer_floats(int threads, int64_t rows, int k) {
  return int64_t(std::max(threads, 1)) * slot_floats(rows, k);
}

void native_gemm_with_packed_b(int threads, int m, int n, int k, const float* a, int lda, const float* packed_b,
                               float* c, int ldc, float* buffer, const GemmEpilogue& ep) {
  if (m <= 0 || n <= 0) return;
  const int64_t slot = slot_floats(m, k);
  parallel_for(threads, m, kRowGrain, [&](int64_t i0, int64_t i1) {
    rows_times_packed_b(int(i1 - i0), n, k, a + i0 * lda, lda, packed_b, c + i0 * ldc, ldc,
                        buffer + (i0 == 0 ? 0 : slot), ep);
  });
}

void native_gemm_with_packed_a(int threads, int m, int n, int k, const float* packed_a, const float* b, int ldb,
                               float* c, int ldc, float* buffer, const GemmEpilogue& ep) {
  if (m <= 0 || n <= 0) return;
  const int64_t slot = slot_floats(n, k);
  parallel_for(threads, n, kColGrain, [&](int64_t j0, int64_t j1) {
    packed_a_times_cols(m, int(j1 - j0), k, packed_a, b + j0, ldb, c + j0, ldc, buffer + (j0 == 0 ? 0 : slot), ep);
  });
}

}  // namespace native
}  // namespace lw
