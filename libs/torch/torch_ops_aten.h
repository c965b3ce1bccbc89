// Internal to the libs/torch primitive files that include ATen: helpers shared between them.
#pragma once
#include <ATen/ATen.h>

#include "libs/torch/torch_ops_common.h"

namespace lw::torch_ops {

/// Strides of an NCHW or NHWC (channels-last) tensor of shape s, in elements.
std::vector<int64_t> layout_strides(const Shape& s, Layout l);
/// Applies a fused activation in place (none for LayerKind::kInput).
void apply_activation_(at::Tensor& y, LayerKind act);

}  // namespace lw::torch_ops
