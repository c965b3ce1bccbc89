// The Winograd convolutions with AVX-512 (compiled with -mavx512*; see conv_winograd_kernels.inc).
#define LW_WINOGRAD_VARIANT avx512
#include "libs/native/conv_winograd_kernels.inc"
