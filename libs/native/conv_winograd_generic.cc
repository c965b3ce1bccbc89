// The Winograd convolutions for any x86-64 CPU (see conv_winograd_kernels.inc).
#define LW_WINOGRAD_VARIANT generic
#define LW_WINOGRAD_GEMM_BYTES 16
#include "libs/native/conv_winograd_kernels.inc"
