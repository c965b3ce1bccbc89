/// \file
/// What this CPU can execute, for the kernels dispatched at run time (the native GEMM's
/// AVX-512 variant) and for the runtime's check that a deployment bundle's ISA is here.
/// Feature names are Linux's /proc/cpuinfo flags ("avx512f", "avx512_vnni", "amx_bf16").
/// A feature can be masked (reported absent) to test the refusal paths on a CPU that has
/// it: LAYERWISE_MASK_CPU_FEATURES="avx512f,avx512_bf16" masks for the whole process.
#pragma once
#include <string>
#include <vector>

namespace lw {

/// Masks features for the whole process (comma-separated list, read once at first use).
constexpr char kMaskCpuFeaturesEnv[] = "LAYERWISE_MASK_CPU_FEATURES";

/// Whether the CPU has `feature` and it is not masked by the environment or by `extra_mask`
/// (a comma-separated list, e.g. the runtime API's option).
bool cpu_has(const std::string& feature, const std::string& extra_mask = "");

/// The features of `wanted` that this CPU lacks (masked ones count as lacking).
std::vector<std::string> cpu_missing(const std::vector<std::string>& wanted, const std::string& extra_mask = "");

/// The kernel variant the native GEMM dispatches to: AVX-512 (avx512f, avx512bw, avx512vl,
/// avx512dq, avx2, fma all present and unmasked) or the baseline x86-64 build. Decided once.
bool cpu_use_avx512_kernels();

/// Whether the CPU multiplies u8 x s8 into 32-bit sums in one instruction (AVX512-VNNI or
/// AVX-VNNI). Without it, x86 int8 kernels use vpmaddubsw, whose pairwise u8 x s8 sums
/// saturate at 16 bits once activations and weights use their full range: oneDNN's u8
/// convolutions then return wrong values (its "Nuances of int8 Computations").
bool cpu_has_int8_dot();

}  // namespace lw

namespace lw {
/// The features this build was compiled to assume (from the compiler's predefined macros):
/// "sse2" for the portable build; the build machine's for LAYERWISE_NATIVE_ARCH. Code of
/// this build needs them whatever it dispatches to.
std::vector<std::string> build_isa();
}  // namespace lw
