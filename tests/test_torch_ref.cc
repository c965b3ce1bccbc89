// The reference executor against LibTorch functional ops: every layer kind on awkward shapes,
// and whole zoo models (BatchNorm unfolded and folded), on random weights.
//
// Error measure: relative error = max_i |ref_i - torch_i| / max_i |torch_i| over the whole
// output tensor (a normalised measure: it does not depend on the scale of the activations).
// Bound: 1e-4 everywhere; f32 round-off alone stays near 1e-6, a wrong kernel is far above.
// LibTorch first: it pulls in glog, whose CHECK macros abort; the tests use doctest's.
#include "libs/torch/ir_module.h"
#include "tests/doctest_after_torch.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>

#include "libs/ref/reference.h"
#include "libs/zoo/zoo.h"

namespace lw {
namespace {

constexpr double kMaxRelErr = 1e-4;

double rel_err(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  double diff = 0, mag = 0;
  for (int64_t i = 0; i < a.shape().elements(); ++i) {
    diff = std::max(diff, double(std::fabs(a.f32()[i] - b.f32()[i])));
    mag = std::max(mag, double(std::fabs(b.f32()[i])));
  }
  return mag > 0 ? diff / mag : diff;
}

Tensor random_tensor(Shape s, uint64_t seed, float scale = 1.f) {
  Tensor t = Tensor::create(s);
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < s.elements(); ++i) t.f32()[i] = scale * float((rng() >> 11) * (2.0 / 9007199254740992.0) - 1.0);
  return t;
}

// Builder-style tester: a layer plus its input shapes; Test() fills weights at random, runs
// both executors on random inputs and returns the relative error.
struct LayerTester {
  Layer l;
  std::vector<Shape> in;
  float input_scale = 1.f;

  explicit LayerTester(LayerKind k) { l.kind = k; l.name = to_string(k); }
  LayerTester& input(Shape s) { in.push_back(s); return *this; }
  LayerTester& kernel(int kh, int kw) { l.window.kh = kh; l.window.kw = kw; return *this; }
  LayerTester& stride(int sh, int sw) { l.window.stride_h = sh; l.window.stride_w = sw; return *this; }
  LayerTester& pad(int t, int le, int b, int r) {
    l.window.pad_top = t; l.window.pad_left = le; l.window.pad_bottom = b; l.window.pad_right = r;
    return *this;
  }
  LayerTester& dilation(int d) { l.window.dil_h = l.window.dil_w = d; return *this; }
  LayerTester& ceil() { l.window.ceil_mode = true; return *this; }
  LayerTester& out(int c) { l.out_channels = c; return *this; }
  LayerTester& groups(int g) { l.groups = g; return *this; }
  LayerTester& bias() { l.has_bias = true; return *this; }
  LayerTester& exclude_pad() { l.count_include_pad = false; return *this; }
  LayerTester& fused(LayerKind a) { l.fused_activation = a; return *this; }
  LayerTester& scale(float s) { input_scale = s; return *this; }

  void fill_weights(uint64_t seed) {
    // A throwaway network gives init_random_weights the input shapes it needs.
    Network net;
    for (size_t k = 0; k < in.size(); ++k) {
      Layer src;
      src.name = "in" + std::to_string(k);
      src.out = in[k];
      net.layers.push_back(src);
      l.inputs.push_back(int(k));
    }
    REQUIRE(infer_layer_shape(l, in, &l.out).is_ok());
    net.layers.push_back(l);
    init_random_weights(net, seed);
    l = net.layers.back();
    if (l.kind == LayerKind::kBatchNorm) {  // wider than near-identity statistics
      std::mt19937_64 rng(seed + 1);
      int c = l.out.c;
      for (int j = 0; j < c; ++j) {
        l.weights[2 * c + j] = float(int(rng() % 2001) - 1000) / 1000.f;      // mean in [-1, 1]
        l.weights[3 * c + j] = 0.25f + float(rng() % 1000) / 500.f;          // var in [0.25, 2.25)
      }
    }
  }

  double Test(uint64_t seed = 7) {
    fill_weights(seed);
    std::vector<Tensor> xs;
    for (size_t k = 0; k < in.size(); ++k) xs.push_back(random_tensor(in[k], seed * 31 + k, input_scale));
    std::vector<const Tensor*> ptrs;
    for (auto& x : xs) ptrs.push_back(&x);
    Tensor ref, tor;
    Status s = reference_layer(l, ptrs, &ref);
    REQUIRE_MESSAGE(s.is_ok(), s.to_string());
    s = ir_torch::torch_layer(l, ptrs, &tor);
    REQUIRE_MESSAGE(s.is_ok(), s.to_string());
    return rel_err(ref, tor);
  }
};

struct Case {
  std::string what;
  LayerTester t;
};

std::vector<Case> cases() {
  using K = LayerKind;
  std::vector<Case> c;
  c.push_back({"conv 3x3 odd sizes", LayerTester(K::kConv2d).input({1, 5, 13, 11}).out(7).kernel(3, 3).pad(1, 1, 1, 1).bias()});
  c.push_back({"conv stride 2 asymmetric pad", LayerTester(K::kConv2d).input({2, 4, 12, 9}).out(6).kernel(3, 3).stride(2, 2).pad(0, 1, 1, 0)});
  c.push_back({"conv groups 3", LayerTester(K::kConv2d).input({1, 6, 9, 10}).out(9).kernel(3, 3).pad(1, 1, 1, 1).groups(3).bias()});
  c.push_back({"conv depthwise 5x5 s2", LayerTester(K::kConv2d).input({1, 8, 15, 15}).out(8).kernel(5, 5).stride(2, 2).pad(2, 2, 2, 2).groups(8)});
  c.push_back({"conv 1x1", LayerTester(K::kConv2d).input({1, 16, 7, 5}).out(12).kernel(1, 1).bias()});
  c.push_back({"conv 1x1 stride 2", LayerTester(K::kConv2d).input({1, 8, 9, 9}).out(4).kernel(1, 1).stride(2, 2)});
  c.push_back({"conv dilation 2", LayerTester(K::kConv2d).input({1, 3, 14, 13}).out(5).kernel(3, 3).pad(2, 2, 2, 2).dilation(2)});
  c.push_back({"conv 1x3 / stride 1x2", LayerTester(K::kConv2d).input({1, 4, 8, 11}).out(3).kernel(1, 3).stride(1, 2).pad(0, 1, 0, 1).bias()});
  c.push_back({"conv 7x7 s2 fused relu", LayerTester(K::kConv2d).input({1, 3, 23, 21}).out(8).kernel(7, 7).stride(2, 2).pad(3, 3, 3, 3).fused(K::kRelu).bias()});
  c.push_back({"conv fused hardswish", LayerTester(K::kConv2d).input({1, 4, 6, 6}).out(4).kernel(3, 3).pad(1, 1, 1, 1).fused(K::kHardSwish).scale(3)});
  c.push_back({"batch-norm", LayerTester(K::kBatchNorm).input({2, 7, 5, 3})});
  c.push_back({"relu", LayerTester(K::kRelu).input({1, 3, 5, 7}).scale(8)});
  c.push_back({"relu6", LayerTester(K::kRelu6).input({1, 3, 5, 7}).scale(8)});
  c.push_back({"hardswish", LayerTester(K::kHardSwish).input({1, 3, 5, 7}).scale(8)});
  c.push_back({"hardsigmoid", LayerTester(K::kHardSigmoid).input({1, 3, 5, 7}).scale(8)});
  c.push_back({"sigmoid", LayerTester(K::kSigmoid).input({1, 3, 5, 7}).scale(8)});
  c.push_back({"max-pool 3x3 s2 p1", LayerTester(K::kMaxPool).input({1, 3, 11, 10}).kernel(3, 3).stride(2, 2).pad(1, 1, 1, 1)});
  c.push_back({"max-pool ceil", LayerTester(K::kMaxPool).input({1, 4, 14, 13}).kernel(3, 3).stride(2, 2).ceil()});
  c.push_back({"max-pool asymmetric pad", LayerTester(K::kMaxPool).input({1, 2, 8, 9}).kernel(2, 2).stride(2, 2).pad(0, 0, 1, 1)});
  c.push_back({"avg-pool include pad", LayerTester(K::kAvgPool).input({1, 3, 9, 8}).kernel(3, 3).stride(2, 2).pad(1, 1, 1, 1)});
  c.push_back({"avg-pool exclude pad", LayerTester(K::kAvgPool).input({1, 3, 9, 8}).kernel(3, 3).stride(2, 2).pad(1, 1, 1, 1).exclude_pad()});
  c.push_back({"avg-pool ceil", LayerTester(K::kAvgPool).input({1, 2, 10, 11}).kernel(3, 3).stride(2, 2).pad(1, 1, 1, 1).ceil()});
  c.push_back({"avg-pool ceil exclude pad", LayerTester(K::kAvgPool).input({1, 2, 10, 7}).kernel(2, 2).stride(2, 2).ceil().exclude_pad()});
  c.push_back({"avg-pool asymmetric pad", LayerTester(K::kAvgPool).input({1, 2, 7, 7}).kernel(3, 3).stride(1, 1).pad(1, 0, 0, 1)});
  c.push_back({"global-avg-pool", LayerTester(K::kGlobalAvgPool).input({2, 5, 7, 3})});
  c.push_back({"fully-connected from 4-D", LayerTester(K::kFullyConnected).input({2, 3, 5, 4}).out(7).bias()});
  c.push_back({"fully-connected fused hardswish", LayerTester(K::kFullyConnected).input({1, 33, 1, 1}).out(10).fused(K::kHardSwish)});
  c.push_back({"add", LayerTester(K::kAdd).input({2, 3, 5, 7}).input({2, 3, 5, 7})});
  c.push_back({"mul same shape", LayerTester(K::kMul).input({1, 4, 5, 6}).input({1, 4, 5, 6})});
  c.push_back({"mul channel scale", LayerTester(K::kMul).input({2, 4, 5, 6}).input({2, 4, 1, 1})});
  c.push_back({"concat 3 inputs", LayerTester(K::kConcat).input({1, 2, 5, 3}).input({1, 5, 5, 3}).input({1, 1, 5, 3})});
  c.push_back({"flatten", LayerTester(K::kFlatten).input({2, 3, 4, 5})});
  c.push_back({"softmax", LayerTester(K::kSoftmax).input({2, 10, 1, 1}).scale(5)});
  c.push_back({"softmax spatial", LayerTester(K::kSoftmax).input({1, 6, 3, 2}).scale(5)});
  c.push_back({"affine", LayerTester(K::kAffine).input({2, 7, 5, 3})});
  c.push_back({"layer-norm", LayerTester(K::kLayerNorm).input({2, 7, 5, 3})});
  c.push_back({"gelu", LayerTester(K::kGelu).input({1, 3, 5, 7}).scale(4)});
  c.push_back({"channel-shuffle 2 groups", LayerTester(K::kChannelShuffle).input({1, 10, 3, 4}).groups(2)});
  c.push_back({"channel-shuffle 3 groups", LayerTester(K::kChannelShuffle).input({2, 12, 2, 5}).groups(3)});
  LayerTester slice(K::kChannelSlice);
  slice.l.channel_begin = 3;
  c.push_back({"channel-slice", slice.input({2, 9, 4, 3}).out(5)});
  return c;
}

TEST_CASE("every layer kind: reference matches LibTorch on random weights and awkward shapes") {
  std::set<LayerKind> covered;
  for (Case& c : cases()) {
    CAPTURE(c.what);
    double e = c.t.Test();
    MESSAGE(c.what << ": rel err " << e);
    CHECK(e <= kMaxRelErr);
    covered.insert(c.t.l.kind);
  }
  // A new layer kind without a check here fails this test.
#define X(e, s, lo, hi) \
  if (LayerKind::e != LayerKind::kInput) CHECK_MESSAGE(covered.count(LayerKind::e), "no check for " s);
#include "libs/ir/layer_kind.inc"
#undef X
}

TEST_CASE("the measure catches a wrong kernel") {
  // Same tester, but LibTorch sees a layer that differs slightly: the error must exceed the bound.
  LayerTester t = LayerTester(LayerKind::kConv2d).input({1, 4, 12, 9}).out(6).kernel(3, 3).stride(2, 2).pad(0, 1, 1, 0);
  t.fill_weights(3);
  Tensor x = random_tensor(t.in[0], 5);
  Tensor ref, tor;
  REQUIRE(reference_layer(t.l, {&x}, &ref).is_ok());
  Layer swapped = t.l;  // padding on the other side
  std::swap(swapped.window.pad_top, swapped.window.pad_bottom);
  std::swap(swapped.window.pad_left, swapped.window.pad_right);
  REQUIRE(ir_torch::torch_layer(swapped, {&x}, &tor).is_ok());
  CHECK(rel_err(ref, tor) > 100 * kMaxRelErr);
  Layer nudged = t.l;  // one weight off by 1 %
  nudged.weights[17] *= 1.01f;
  REQUIRE(ir_torch::torch_layer(nudged, {&x}, &tor).is_ok());
  CHECK(rel_err(ref, tor) > kMaxRelErr);
}

// Every layer's output of the unfolded network, and the final output of the folded
// network, against LibTorch on the unfolded network.
void check_model(const std::string& name, Shape input) {
  CAPTURE(name);
  Network net, folded;
  ZooOptions o;
  o.input = input;
  REQUIRE(build_zoo_model(name, o, &net).is_ok());
  init_random_weights(net, 11);
  REQUIRE(fold_affine(net, &folded).is_ok());
  Tensor x = random_tensor(input, 13);
  std::vector<Tensor> ref, tor, ref_folded;
  REQUIRE(reference_forward(net, x, &ref).is_ok());
  Status s = ir_torch::torch_forward(net, x, &tor);
  REQUIRE_MESSAGE(s.is_ok(), s.to_string());
  double worst = 0;
  for (size_t i = 1; i < net.layers.size(); ++i) {
    CAPTURE(net.layers[i].name);
    double e = rel_err(ref[i], tor[i]);
    worst = std::max(worst, e);
    CHECK(e <= kMaxRelErr);
  }
  REQUIRE(reference_forward(folded, x, &ref_folded).is_ok());
  double e_folded = rel_err(ref_folded.back(), tor.back());
  MESSAGE(name << ": worst layer rel err " << worst << ", folded output rel err " << e_folded);
  CHECK(e_folded <= kMaxRelErr);
}

TEST_CASE("whole zoo models: reference matches LibTorch, BatchNorm unfolded and folded") {
  check_model("resnet18", {1, 3, 64, 64});
  check_model("mobilenetv3_small", {1, 3, 64, 64});
  check_model("squeezenet1_1", {1, 3, 64, 64});  // ceil-mode pooling, concat
  check_model("mobilenetv2", {1, 3, 64, 64});
  check_model("googlenet", {1, 3, 64, 64});      // 5x5 branches, stride-1 ceil pooling
}

}  // namespace
}  // namespace lw
