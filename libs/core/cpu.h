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

/// The build of the native kernels (GEMM, Winograd transforms) this CPU runs, decided once
/// per process from the unmasked features: AVX-512 (avx512f, avx512bw, avx512vl, avx512dq,
/// avx2, fma), else AVX2 (avx2, fma: 256-bit FMA, twice SSE's width and a fused multiply-add),
/// else the baseline x86-64 build (SSE2).
enum class NativeIsa { kGeneric, kAvx2, kAvx512 };
NativeIsa cpu_native_isa();
/// "generic", "avx2", "avx512": the name the device fingerprint records.
const char* native_isa_name(NativeIsa isa);

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
