/// \file
/// The `openblas` backend: im2col + cblas_sgemm convolution in NCHW, the Ref-FP32 baseline
/// of QS-DNN (Caffe-style). It reuses the native im2col driver with OpenBLAS as the GEMM.
/// OpenBLAS is held to one thread per call; thread set 2 splits the GEMM over the pinned
/// thread pool, so OpenBLAS never runs threads outside cpu0-1.
#pragma once
#include "libs/ops/registry.h"

namespace lw {

void register_openblas(Registry& registry);
/// The GEMM itself (row-major, same contract as lw::GemmFn).
void openblas_gemm(int threads, int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
                   bool accumulate);

}  // namespace lw
