/// \file
/// The `native` backend: Layerwise's own f32 kernels (GEMM via Eigen) in NCHW and NHWC for
/// every layer kind, every conv algorithm of QS-DNN Table I, runtime-fused activations,
/// both thread sets, and the conversions between tensor formats (layout, f32<->int8,
/// thread set). Other backends reuse its conv drivers with their own GEMM (openblas).
#pragma once
#include <memory>
#include <utility>
#include <vector>

#include "libs/ops/registry.h"

namespace lw {

/// Registers every native implementation and conversion.
void register_native(Registry& registry);

/// Row-major C[M x N] (+)= A[M x K] * B[K x N], split over the thread set.
using GemmFn = void (*)(int threads, int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
                        int ldc, bool accumulate);
/// The native (Eigen) GEMM.
void native_gemm(int threads, int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
                 bool accumulate);

/// The im2col + GEMM convolution (NCHW) with a pluggable GEMM: the native backend passes
/// native_gemm, the openblas backend cblas_sgemm. Checks common conv arguments.
Status create_im2col_conv(const PrimitiveArgs& args, GemmFn gemm, std::unique_ptr<Primitive>* out);
/// The 1x1-as-GEMM convolution (NCHW or NHWC) with a pluggable GEMM.
Status create_gemm_1x1_conv(const PrimitiveArgs& args, GemmFn gemm, std::unique_ptr<Primitive>* out);
/// Checks shared by every f32 conv implementation (weights present, f32, same layout in
/// and out); algorithm-specific limits are checked by each implementation's supports.
Status supports_f32_conv(const ImplDesc& d, const Layer& layer, const std::vector<Shape>& in);
/// The limits of `algo` on this layer (stride, kernel, groups ...), or ok.
Status supports_conv_algorithm(Algorithm algo, Layout layout, const Layer& layer, const std::vector<Shape>& in);

/// Makes the conv primitive of one algorithm (whatever else the descriptor says).
using ConvFactory = Status (*)(Algorithm algo, const PrimitiveArgs& args, std::unique_ptr<Primitive>* out);
/// Registers `library`'s f32 convs built on these drivers: every (algorithm, layout) of
/// `algos`, plain and runtime-fused, on every thread set, checked by supports_f32_conv and
/// supports_conv_algorithm. One loop for native and openblas: only the kernels vary.
void register_f32_convs(Registry& registry, Library library, const std::vector<std::pair<Algorithm, Layout>>& algos,
                        ConvFactory create);

}  // namespace lw
