// Internal to the libs/torch primitive files that include ATen: helpers shared between them.
#pragma once
#include <ATen/ATen.h>

#include "libs/torch/torch_ops_common.h"

namespace lw::torch_ops {

/// Strides of an NCHW or NHWC (channels-last) tensor of shape s, in elements.
std::vector<int64_t> layout_strides(const Shape& s, Layout l);
/// Applies a fused activation in place (none for LayerKind::kInput).
void apply_activation_(at::Tensor& y, LayerKind act);
/// Runs a tiny prepacked f32 conv (8 channels, 8x8) through LibTorch's dispatcher and its
/// oneDNN path: every LibTorch primitive's warm_call_path (libs/ops/primitive.h). A run costs a
/// few microseconds warm; timed right after the profiler's eviction, LibTorch's convolutions
/// had paid ~0.1 ms each to bring this path back. Never throws (a failure leaves it cold).
void warm_dispatcher();

}  // namespace lw::torch_ops
