// Native non-conv layers (every registered descriptor) against the reference executor.
#include <map>

#include "libs/native/native.h"
#include "tests/op_testers.h"

using namespace lw;
using namespace lw::testing;

namespace {

struct LayerCase {
  Layer layer;
  std::vector<Shape> in;
};

Layer make(LayerKind k, std::vector<int> inputs = {0}) {
  Layer l;
  l.name = to_string(k);
  l.kind = k;
  l.inputs = inputs;
  return l;
}

Layer pool(LayerKind k, int kh, int kw, int s, int pt, int pl, int pb, int pr, bool ceil, bool include_pad) {
  Layer l = make(k);
  l.window.kh = kh, l.window.kw = kw, l.window.stride_h = l.window.stride_w = s;
  l.window.pad_top = pt, l.window.pad_left = pl, l.window.pad_bottom = pb, l.window.pad_right = pr;
  l.window.ceil_mode = ceil;
  l.count_include_pad = include_pad;
  return l;
}

std::vector<LayerCase> cases() {
  std::vector<LayerCase> v;
  const std::vector<Shape> shapes = {{1, 5, 7, 9}, {2, 17, 3, 1}, {1, 3, 1, 1}, {1, 33, 8, 8}};
  for (const Shape& s : shapes) {
    for (LayerKind k : {LayerKind::kRelu, LayerKind::kRelu6, LayerKind::kHardSwish, LayerKind::kHardSigmoid,
                        LayerKind::kSigmoid, LayerKind::kSoftmax, LayerKind::kFlatten, LayerKind::kGlobalAvgPool})
      v.push_back({make(k), {s}});
    v.push_back({make(LayerKind::kAdd, {0, 1}), {s, s}});
    v.push_back({make(LayerKind::kMul, {0, 1}), {s, s}});
    v.push_back({make(LayerKind::kMul, {0, 1}), {s, {s.n, s.c, 1, 1}}});  // SE scale
    v.push_back({make(LayerKind::kConcat, {0, 1, 2}), {s, {s.n, 3, s.h, s.w}, {s.n, 1, s.h, s.w}}});
    Layer fc = make(LayerKind::kFullyConnected);
    fc.out_channels = 7;
    fc.has_bias = true;
    fc.weights.resize(size_t(7) * s.c * s.h * s.w);
    fc.bias.resize(7);
    std::mt19937_64 rng(s.c);
    fill_uniform(fc.weights, rng, -0.5f, 0.5f);
    fill_uniform(fc.bias, rng, -0.5f, 0.5f);
    v.push_back({fc, {s}});
    fc.fused_activation = LayerKind::kRelu;
    v.push_back({fc, {s}});
    Layer affine = make(LayerKind::kAffine);  // an unfoldable BatchNorm (DenseNet)
    affine.weights.resize(2 * size_t(s.c));
    fill_uniform(affine.weights, rng, -1.5f, 1.5f);
    v.push_back({affine, {s}});
    Layer slice = make(LayerKind::kChannelSlice);  // ShuffleNet's split, odd offsets too
    slice.channel_begin = s.c / 3;
    slice.out_channels = std::max(1, s.c / 2);
    v.push_back({slice, {s}});
    slice.channel_begin = 0;
    slice.out_channels = s.c;
    v.push_back({slice, {s}});
  }
  // Channel shuffle: ShuffleNet's 2 groups, and other group counts / odd group sizes.
  for (int g : {1, 2, 3, 5}) {
    Layer shuffle = make(LayerKind::kChannelShuffle);
    shuffle.groups = g;
    v.push_back({shuffle, {{2, 3 * 5 * 2, 3, 4}}});
    v.push_back({shuffle, {{1, g * 7, 1, 1}}});
    v.push_back({shuffle, {{1, g * 4, 5, 3}}});
  }
  for (bool ceil : {false, true})
    for (bool inc : {false, true}) {
      v.push_back({pool(LayerKind::kMaxPool, 3, 3, 2, 1, 1, 1, 1, ceil, inc), {{1, 6, 11, 10}}});
      v.push_back({pool(LayerKind::kAvgPool, 3, 3, 2, 1, 0, 0, 1, ceil, inc), {{2, 5, 9, 12}}});
      v.push_back({pool(LayerKind::kAvgPool, 2, 3, 1, 0, 1, 0, 0, ceil, inc), {{1, 9, 5, 7}}});
      v.push_back({pool(LayerKind::kMaxPool, 2, 2, 2, 0, 0, 0, 0, ceil, inc), {{1, 4, 7, 7}}});
    }
  return v;
}

}  // namespace

TEST_CASE("native layers match the reference") {
  Registry r;
  register_native(r);
  std::map<std::string, int> tested;
  std::mt19937_64 rng(3);
  for (const LayerCase& c : cases())
    for (const ImplEntry& e : r.entries()) {
      if (e.desc.op != c.layer.kind || e.desc.algorithm == Algorithm::kFused) continue;
      std::vector<Tensor> in;
      for (const Shape& s : c.in) in.push_back(random_tensor(s, rng));
      double err = run_against_reference(r, e.desc, c.layer, in);
      INFO(e.desc.name(), " on ", c.in[0].to_string(), " error ", err);
      CHECK(err >= 0);  // every case here is supported
      CHECK(err <= 1e-5);
      ++tested[e.desc.name()];
    }
  int descriptors = 0;
  for (const ImplEntry& e : r.entries())
    if (e.desc.op != LayerKind::kConv2d && e.desc.algorithm != Algorithm::kFused) {
      ++descriptors;
      INFO(e.desc.name());
      CHECK(tested[e.desc.name()] >= 4);
    }
  CHECK(descriptors == 17 * 2 * 2);  // kinds x layouts x thread sets
}
