// The Winograd convolutions with AVX2 + FMA (compiled with -mavx2 -mfma; see
// conv_winograd_kernels.inc): one Vec is one ymm register (8 channels per step).
#define LW_WINOGRAD_VARIANT avx2
#define LW_WINOGRAD_VEC_BYTES 32
#include "libs/native/conv_winograd_kernels.inc"
