// The native GEMM's kernels with AVX2 + FMA (compiled with -mavx2 -mfma; see
// gemm_kernels.inc), for the CPUs without AVX-512 (AMD Zen 1-3, Intel client cores): the
// generic build's SSE2 kernels use half the vector width and no fused multiply-add. Eigen's
// namespace is renamed for the reason gemm_avx512.cc gives.
#define Eigen lw_eigen_avx2
#define LW_GEMM_VARIANT avx2
#include "libs/native/gemm_kernels.inc"
