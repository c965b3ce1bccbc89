/// \file
/// The `onednn` backend: oneDNN (Debian's libdnnl 2.6.3) used directly, so the explorer can
/// reach the CPU's strongest kernels. Convolution (dense, grouped, depthwise, 1x1) and
/// fully-connected in f32, bf16 and int8 (s8 activations with zero points, per-channel s8
/// weights, requantisation by output scales inside the primitive); max / average /
/// global-average pooling, relu / relu6 / hardswish / sigmoid, add / mul and concat in f32
/// and bf16; the poolings in int8 too (in their input's quantisation). Every layout of the
/// design space, blocked nChw16c / nChw8c included; a conv may also read NCHW and write a
/// blocked layout (the first layer's best form).
/// Primitive descriptors, JIT kernels and weight reorders (into the format the primitive
/// picks with format_tag::any) are made in the factory; run() only executes. The
/// scratchpad is user-managed and reported as the workspace. `fused` convs apply the
/// following activation as an eltwise post-op, or compute the residual add after them (and
/// its activation) by accumulating into the residual with a sum post-op (int8: scaled by the
/// residual's scale over the output's, its zero point in the bias). Implementations this CPU
/// cannot run (bf16 without AVX512-BF16 or AMX), cannot run right (int8 conv / inner product
/// without VNNI: 16-bit pair sums saturate; nChw16c add / mul with a partial last block
/// without AVX-512: writes past the output) or for which oneDNN has only its reference
/// kernel (nChw16c without AVX-512) are `unsupported` with the reason. Thread sets: the
/// OpenMP team oneDNN was built with,
/// 1 or 2 threads, its worker pinned to the second CPU.
#pragma once
#include <string>

#include "libs/ops/registry.h"

namespace lw {

/// Registers every oneDNN implementation.
void register_onednn(Registry& registry);

/// The instruction set oneDNN dispatches to on this CPU, for the device fingerprint:
/// dnnl::get_effective_cpu_isa() and the kernel of a bf16 convolution, e.g.
/// "avx512_core_vnni; bf16 kernel jit_bf16:avx512_core_bf16" or
/// "avx512_core_amx; bf16 kernel brgconv:avx512_core_amx_bf16".
std::string onednn_cpu_isa();
/// True when oneDNN's bf16 kernels use AVX512-BF16 or AMX here (bf16 implementations are
/// registered either way and report `unsupported` otherwise).
bool onednn_native_bf16();

}  // namespace lw
