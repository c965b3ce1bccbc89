/// \file
/// Cases for the layers other than conv: fully-connected, pooling, activations, softmax,
/// add / mul (with the squeeze-excite broadcast), concat, flatten, affine, channel slice and
/// shuffle; one list of them on awkward shapes, and the loop that runs every registered
/// implementation of a library on one case.
#pragma once
#include <map>
#include <vector>

#include "tests/testers/tester.h"

namespace lw::testers {

/// A layer of kind `k` without weights, reading inputs 0 .. inputs-1.
Layer simple_layer(LayerKind k, int inputs = 1);
Layer pool_layer(LayerKind k, int kh, int kw, int stride, int pt, int pl, int pb, int pr, bool ceil, bool include_pad);
/// Fully-connected on N x C x H x W inputs (H, W > 1 exercises the flatten order), seeded
/// random weights and bias in [-0.5, 0.5].
Layer fc_layer(Shape in, int out, bool bias, LayerKind act, uint64_t seed);

struct LayerCase {
  Layer layer;
  std::vector<Shape> in;
};
/// Seeded random inputs of a case, uniform in [lo, hi].
std::vector<Tensor> case_inputs(const LayerCase& c, std::mt19937_64& rng, float lo = -1.f, float hi = 1.f);

/// The fully-connected cases: batch 1 to 3, 1 to 64 features, spatial inputs, with and
/// without bias; no activation, relu, hardswish.
std::vector<LayerCase> fc_cases();
/// Every other layer kind on the awkward activation shapes (odd sizes, 1x1 spatial, channels
/// off the vector widths, batch 2), pooling with ceil mode and both divisors, channel
/// shuffle with several group counts.
std::vector<LayerCase> layer_cases();

/// check_case of every registered implementation of `lib` for layer.kind on `in`; how many
/// ran, by input dtype.
std::map<DType, int> check_library(const Registry& r, Library lib, const Layer& layer, const std::vector<Tensor>& in,
                                   double tol = -1);

}  // namespace lw::testers
