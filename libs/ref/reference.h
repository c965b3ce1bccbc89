/// \file
/// The reference executor: naive, obviously-correct f32 NCHW kernels for every layer kind.
/// Every primitive and every assignment the explorer picks is checked against it.
#pragma once
#include <vector>

#include "libs/core/status.h"
#include "libs/core/tensor.h"
#include "libs/ir/network.h"

namespace lw {

/// Applies an activation to one value.
float apply_activation(LayerKind kind, float x);

/// Runs one layer on NCHW f32 inputs into a freshly created `out`.
Status reference_layer(const Layer& layer, const std::vector<const Tensor*>& in, Tensor* out);

/// Runs the whole network; `outputs` gets every layer's output (index = layer index).
Status reference_forward(const Network& net, const Tensor& input, std::vector<Tensor>* outputs);

}  // namespace lw
