// The native GEMM's kernels with AVX-512 (compiled with -mavx512*; see gemm_kernels.inc).
// Eigen's index type differs from the generic build's, so no instantiation is shared.
#define EIGEN_DEFAULT_DENSE_INDEX_TYPE long long
#define LW_GEMM_VARIANT avx512
#include "libs/native/gemm_kernels.inc"
