#include "tests/testers/layer_testers.h"

#include <algorithm>

namespace lw::testers {

Layer simple_layer(LayerKind k, int inputs) {
  Layer l;
  l.name = to_string(k);
  l.kind = k;
  for (int i = 0; i < inputs; ++i) l.inputs.push_back(i);
  return l;
}

Layer pool_layer(LayerKind k, int kh, int kw, int stride, int pt, int pl, int pb, int pr, bool ceil, bool include_pad) {
  Layer l = simple_layer(k);
  l.window.kh = kh, l.window.kw = kw, l.window.stride_h = l.window.stride_w = stride;
  l.window.pad_top = pt, l.window.pad_left = pl, l.window.pad_bottom = pb, l.window.pad_right = pr;
  l.window.ceil_mode = ceil;
  l.count_include_pad = include_pad;
  return l;
}

Layer fc_layer(Shape in, int out, bool bias, LayerKind act, uint64_t seed) {
  Layer l = simple_layer(LayerKind::kFullyConnected);
  l.name = "fc";
  l.out_channels = out;
  l.has_bias = bias;
  l.fused_activation = act;
  fill_weights(l, {in}, seed);
  return l;
}

std::vector<Tensor> case_inputs(const LayerCase& c, std::mt19937_64& rng, float lo, float hi) {
  std::vector<Tensor> in;
  for (const Shape& s : c.in) in.push_back(random_tensor(s, rng, lo, hi));
  return in;
}

std::vector<LayerCase> fc_cases() {
  const Shape shapes[] = {{1, 64, 1, 1}, {2, 37, 1, 1}, {1, 5, 3, 4}, {3, 16, 2, 2}, {1, 1, 1, 1}};
  std::vector<LayerCase> v;
  uint64_t seed = 1;
  for (const Shape& s : shapes)
    for (LayerKind act : {LayerKind::kInput, LayerKind::kRelu, LayerKind::kHardSwish}) {
      v.push_back({fc_layer(s, 7 + int(seed % 5), seed % 2 == 1, act, seed), {s}});
      ++seed;
    }
  return v;
}

namespace {

// A layer norm over `channels` with random scales and shifts.
Layer layer_norm_layer(int channels, float eps, std::mt19937_64& rng) {
  Layer l = simple_layer(LayerKind::kLayerNorm);
  l.weights.resize(2 * size_t(channels));
  l.eps = eps;
  fill_uniform(l.weights, rng, -1.5f, 1.5f);
  return l;
}

// Layers with weights among the other kinds, sized for shape `s`.
void add_weighted_cases(const Shape& s, std::vector<LayerCase>* v) {
  Layer fc = fc_layer(s, 7, true, LayerKind::kInput, uint64_t(s.c));
  v->push_back({fc, {s}});
  fc.fused_activation = LayerKind::kRelu;
  v->push_back({fc, {s}});
  Layer affine = simple_layer(LayerKind::kAffine);  // an unfoldable BatchNorm (DenseNet)
  affine.weights.resize(2 * size_t(s.c));
  std::mt19937_64 rng(s.c);
  fill_uniform(affine.weights, rng, -1.5f, 1.5f);
  v->push_back({affine, {s}});
  v->push_back({layer_norm_layer(s.c, 1e-6f, rng), {s}});  // ConvNeXt's, over the channels
  Layer slice = simple_layer(LayerKind::kChannelSlice);  // ShuffleNet's split, odd offsets too
  slice.channel_begin = s.c / 3;
  slice.out_channels = std::max(1, s.c / 2);
  v->push_back({slice, {s}});
  slice.channel_begin = 0;
  slice.out_channels = s.c;
  v->push_back({slice, {s}});
}

}  // namespace

std::vector<LayerCase> layer_cases() {
  std::vector<LayerCase> v;
  for (const Shape& s : {Shape{1, 5, 7, 9}, Shape{2, 17, 3, 1}, Shape{1, 3, 1, 1}, Shape{1, 33, 8, 8}}) {
    for (LayerKind k : {LayerKind::kRelu, LayerKind::kRelu6, LayerKind::kHardSwish, LayerKind::kHardSigmoid,
                        LayerKind::kSigmoid, LayerKind::kGelu, LayerKind::kSoftmax, LayerKind::kFlatten,
                        LayerKind::kGlobalAvgPool})
      v.push_back({simple_layer(k), {s}});
    v.push_back({simple_layer(LayerKind::kAdd, 2), {s, s}});
    v.push_back({simple_layer(LayerKind::kMul, 2), {s, s}});
    v.push_back({simple_layer(LayerKind::kMul, 2), {s, {s.n, s.c, 1, 1}}});  // SE scale
    v.push_back({simple_layer(LayerKind::kConcat, 3), {s, {s.n, 3, s.h, s.w}, {s.n, 1, s.h, s.w}}});
    add_weighted_cases(s, &v);
  }
  // Channel shuffle: ShuffleNet's 2 groups, and other group counts / odd group sizes.
  for (int g : {1, 2, 3, 5}) {
    Layer shuffle = simple_layer(LayerKind::kChannelShuffle);
    shuffle.groups = g;
    v.push_back({shuffle, {{2, 3 * 5 * 2, 3, 4}}});
    v.push_back({shuffle, {{1, g * 7, 1, 1}}});
    v.push_back({shuffle, {{1, g * 4, 5, 3}}});
  }
  // Layer norm over more positions than one of the native NCHW kernel's blocks (64), a last
  // block part full, and ConvNeXt's widths.
  for (const Shape& s : {Shape{1, 19, 11, 13}, Shape{2, 96, 5, 5}, Shape{1, 768, 1, 1}}) {
    std::mt19937_64 rng(s.c);
    v.push_back({layer_norm_layer(s.c, 1e-5f, rng), {s}});
  }
  for (bool ceil : {false, true})
    for (bool inc : {false, true}) {
      v.push_back({pool_layer(LayerKind::kMaxPool, 3, 3, 2, 1, 1, 1, 1, ceil, inc), {{1, 6, 11, 10}}});
      v.push_back({pool_layer(LayerKind::kAvgPool, 3, 3, 2, 1, 0, 0, 1, ceil, inc), {{2, 5, 9, 12}}});
      v.push_back({pool_layer(LayerKind::kAvgPool, 2, 3, 1, 0, 1, 0, 0, ceil, inc), {{1, 9, 5, 7}}});
      v.push_back({pool_layer(LayerKind::kMaxPool, 2, 2, 2, 0, 0, 0, 0, ceil, inc), {{1, 4, 7, 7}}});
    }
  return v;
}

std::map<DType, int> check_library(const Registry& r, Library lib, const Layer& layer, const std::vector<Tensor>& in,
                                   double tol) {
  std::map<DType, int> ran;
  for (const ImplDesc& d : descriptors(r, lib, layer.kind))
    // A `fused` activation is a no-op behind a conv that absorbed it: no layer of its own.
    if (d.algorithm != Algorithm::kFused && check_case(r, d, layer, in, tol).supported) ++ran[d.dtype_in];
  return ran;
}

}  // namespace lw::testers
