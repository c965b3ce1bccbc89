// The native GEMM's kernels with AVX-512 (compiled with -mavx512*; see gemm_kernels.inc).
// Eigen is header-only: its inline functions and template instantiations are emitted in
// every object that uses them and the linker keeps ONE copy per symbol. Compiled here with
// AVX-512, such a copy chosen for the generic path would be an illegal instruction on a CPU
// without it. Renaming Eigen's namespace in this object gives all of its Eigen code names of
// its own (check: `nm` of gemm_generic.cc.o and gemm_avx512.cc.o share no Eigen symbol).
#define Eigen lw_eigen_avx512
#define LW_GEMM_VARIANT avx512
#include "libs/native/gemm_kernels.inc"
