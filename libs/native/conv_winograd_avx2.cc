// The Winograd convolutions with AVX2 + FMA (compiled with -mavx2 -mfma; see
// conv_winograd_kernels.inc): one Vec is two ymm registers.
#define LW_WINOGRAD_VARIANT avx2
#include "libs/native/conv_winograd_kernels.inc"
