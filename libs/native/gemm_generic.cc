// The native GEMM's kernels for any x86-64 CPU (see gemm_kernels.inc).
#define LW_GEMM_VARIANT generic
#include "libs/native/gemm_kernels.inc"
