// Network IR: shape inference, accounting, validation, BatchNorm folding.
#include <doctest/doctest.h>

#include <cmath>

#include "libs/ir/network.h"
#include "libs/ref/reference.h"
#include "libs/zoo/zoo_builder.h"

using namespace lw;

TEST_CASE("conv and pool shapes follow PyTorch's rules") {
  NetBuilder b("t", Shape{1, 3, 224, 224});
  int x = b.conv(0, 64, 7, 2, 3);
  CHECK(b.shape(x) == Shape{1, 64, 112, 112});
  int p = b.max_pool(x, 3, 2, 1);
  CHECK(b.shape(p) == Shape{1, 64, 56, 56});
  // SqueezeNet: 3x3 s2 ceil mode on 111 gives 55; floor would also give 55, 112 shows the difference.
  NetBuilder c("t", Shape{1, 8, 112, 112});
  CHECK(c.shape(c.max_pool(0, 3, 2, 0, true)) == Shape{1, 8, 56, 56});
  CHECK(c.shape(c.max_pool(0, 3, 2, 0, false)) == Shape{1, 8, 55, 55});
  // Ceil mode never starts a window in the right padding: 5 -> k2 s2 p1 ceil gives 3, not 4.
  NetBuilder d("t", Shape{1, 1, 5, 5});
  CHECK(d.shape(d.max_pool(0, 2, 2, 1, true)) == Shape{1, 1, 3, 3});
}

TEST_CASE("asymmetric padding, dilation and groups") {
  Network net;
  net.layers.resize(2);
  net.layers[0].name = "in";
  net.layers[0].out = Shape{1, 6, 9, 10};
  Layer& l = net.layers[1];
  l.name = "c";
  l.kind = LayerKind::kConv2d;
  l.inputs = {0};
  l.out_channels = 4;
  l.groups = 2;
  l.window.kh = 3;
  l.window.kw = 2;
  l.window.dil_h = 2;
  l.window.pad_top = 0;
  l.window.pad_bottom = 3;
  l.window.pad_left = 1;
  l.window.stride_w = 2;
  REQUIRE(infer_shapes(net).is_ok());
  // h: 9 + 0 + 3 - 2*2 - 1 = 7 -> 8; w: (10 + 1 - 1 - 1) / 2 + 1 = 5
  CHECK(l.out == Shape{1, 4, 8, 5});
  CHECK(layer_params(net, 1) == 4 * 3 * 3 * 2);
  l.groups = 4;  // 6 input channels are not divisible by 4
  CHECK(infer_shapes(net).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("invalid topologies are rejected with the layer named") {
  NetBuilder b("t", Shape{1, 4, 8, 8});
  int x = b.conv(0, 4, 3);
  b.add(x, 0);
  Network net = b.finish();
  net.layers[2].inputs = {1, 2};  // self-loop: not an earlier layer
  Status s = infer_shapes(net);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("add") != std::string::npos);
  net.layers[2].inputs = {1};  // add needs two inputs
  CHECK(infer_shapes(net).message().find("takes 2 inputs") != std::string::npos);
}

TEST_CASE("add rejects mismatched shapes, mul accepts a per-channel scale") {
  NetBuilder b("t", Shape{1, 8, 6, 6});
  int g = b.global_avg_pool(0);
  CHECK(b.shape(b.mul(0, g)) == Shape{1, 8, 6, 6});
  Network net = b.finish();
  Layer add;
  add.name = "bad";
  add.kind = LayerKind::kAdd;
  add.inputs = {0, g};
  net.layers.push_back(add);
  CHECK(infer_shapes(net).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("BatchNorm folding preserves the function") {
  NetBuilder b("t", Shape{1, 5, 7, 7});
  int x = b.conv_bn(0, 6, 3, 1, 1, LayerKind::kRelu, "c1");
  x = b.conv_bn(x, 6, 3, 2, 6, LayerKind::kInput, "dw");
  b.fc(b.flatten(x), 3);
  Network net = b.finish();
  init_random_weights(net, 7);
  Network folded;
  REQUIRE(fold_affine(net, &folded).is_ok());
  CHECK(folded.layers.size() == net.layers.size() - 2);
  Tensor in = Tensor::create(net.input_shape());
  for (int64_t i = 0; i < in.shape().elements(); ++i) in.f32()[i] = std::sin(0.37f * i);
  std::vector<Tensor> a, f;
  REQUIRE(reference_forward(net, in, &a).is_ok());
  REQUIRE(reference_forward(folded, in, &f).is_ok());
  const Tensor &ya = a.back(), &yf = f.back();
  REQUIRE(ya.shape() == yf.shape());
  float scale = 0, diff = 0;
  for (int64_t i = 0; i < ya.shape().elements(); ++i) {
    scale = std::max(scale, std::abs(ya.f32()[i]));
    diff = std::max(diff, std::abs(ya.f32()[i] - yf.f32()[i]));
  }
  CHECK(scale > 0);
  CHECK(diff / scale <= 1e-5f);
}

namespace {
// `folded` computes what `net` does, within float rounding, on the input cos(phase * i).
void check_same_function(const Network& net, const Network& folded, float phase) {
  Tensor in = Tensor::create(net.input_shape());
  for (int64_t i = 0; i < in.shape().elements(); ++i) in.f32()[i] = std::cos(phase * float(i));
  std::vector<Tensor> ya, yf;
  REQUIRE(reference_forward(net, in, &ya).is_ok());
  REQUIRE(reference_forward(folded, in, &yf).is_ok());
  for (int64_t i = 0; i < ya.back().shape().elements(); ++i)
    CHECK(std::abs(ya.back().f32()[i] - yf.back().f32()[i]) <= 1e-5f * (1 + std::abs(ya.back().f32()[i])));
}
}  // namespace

TEST_CASE("a BatchNorm with no conv to fold into becomes an affine layer (DenseNet's pre-activation)") {
  NetBuilder b("t", Shape{1, 4, 5, 5});
  int c1 = b.conv(0, 3, 3, 1, 1, 1, true, "c1");
  int c2 = b.conv(0, 2, 1, 1, 0, 1, false, "c2");
  int x = b.bn(b.concat({c1, c2}), "bn_after_concat");
  b.fc(b.flatten(b.act(x, LayerKind::kRelu)), 3);
  Network net = b.finish();
  init_random_weights(net, 5);
  Network folded;
  REQUIRE(fold_affine(net, &folded).is_ok());
  const int a = folded.find("bn_after_concat");
  REQUIRE(a >= 0);
  CHECK(folded.layers[a].kind == LayerKind::kAffine);
  CHECK(layer_params(folded, a) == 2 * 5);
  check_same_function(net, folded, 0.21f);
}

namespace {
Layer layer_of(LayerKind k, std::vector<int> inputs, const std::string& name, int out_channels = 0) {
  Layer l;
  l.kind = k;
  l.name = name;
  l.inputs = std::move(inputs);
  l.out_channels = out_channels;
  if (k == LayerKind::kConv2d) l.window.kh = l.window.kw = 3, l.window.pad_top = l.window.pad_left = 1,
                               l.window.pad_bottom = l.window.pad_right = 1;
  return l;
}
}  // namespace

TEST_CASE("affine layers fold into the conv, fully-connected or layer-norm that feeds only them (ConvNeXt)") {
  Network net;
  net.name = "t";
  Layer in;
  in.kind = LayerKind::kInput;
  in.name = "x";
  in.out = Shape{1, 4, 5, 6};
  net.layers = {in,
                layer_of(LayerKind::kConv2d, {0}, "c1", 6),
                layer_of(LayerKind::kAffine, {1}, "bias_add"),      // 2: folds into c1
                layer_of(LayerKind::kAffine, {2}, "layer_scale"),   // 3: folds into c1 as well
                layer_of(LayerKind::kLayerNorm, {3}, "ln"),
                layer_of(LayerKind::kAffine, {4}, "ln_scale"),      // 5: folds into ln
                layer_of(LayerKind::kGelu, {5}, "gelu"),
                layer_of(LayerKind::kConv2d, {6}, "c2", 6),
                layer_of(LayerKind::kAffine, {7}, "two_readers"),   // 8: c2 feeds 9 too: stays
                layer_of(LayerKind::kAdd, {8, 7}, "add"),
                layer_of(LayerKind::kAffine, {9}, "after_add")};   // 10: no conv: stays
  REQUIRE(infer_shapes(net).is_ok());
  init_random_weights(net, 11);
  Network folded;
  REQUIRE(fold_affine(net, &folded).is_ok());
  CHECK(folded.layers.size() == net.layers.size() - 3);
  for (const char* gone : {"bias_add", "layer_scale", "ln_scale"}) CHECK(folded.find(gone) < 0);
  for (const char* kept : {"two_readers", "after_add"}) {
    REQUIRE(folded.find(kept) >= 0);
    CHECK(folded.layers[folded.find(kept)].kind == LayerKind::kAffine);
  }
  CHECK(folded.layers[folded.find("c1")].has_bias);
  check_same_function(net, folded, 0.43f);
}

TEST_CASE("channel shuffle and channel slice: shapes, errors and the reference") {
  NetBuilder b("t", Shape{1, 6, 2, 2});
  Network net = b.finish();
  Layer shuffle;
  shuffle.name = "shuffle";
  shuffle.kind = LayerKind::kChannelShuffle;
  shuffle.groups = 2;
  shuffle.inputs = {0};
  net.layers.push_back(shuffle);
  Layer slice;
  slice.name = "slice";
  slice.kind = LayerKind::kChannelSlice;
  slice.channel_begin = 2;
  slice.out_channels = 3;
  slice.inputs = {1};
  net.layers.push_back(slice);
  REQUIRE(infer_shapes(net).is_ok());
  CHECK(net.output_shape() == Shape{1, 3, 2, 2});
  Tensor in = Tensor::create(net.input_shape());
  for (int64_t i = 0; i < in.shape().elements(); ++i) in.f32()[i] = float(i / 4);  // value = channel
  std::vector<Tensor> y;
  REQUIRE(reference_forward(net, in, &y).is_ok());
  // [0 1 2 | 3 4 5] viewed as 2 x 3, transposed: 0 3 1 4 2 5; channels 2..4 of that: 1 4 2.
  const float want[] = {0, 3, 1, 4, 2, 5};
  for (int c = 0; c < 6; ++c) CHECK(y[1].f32()[c * 4] == want[c]);
  CHECK(y[2].f32()[0] == 1);
  CHECK(y[2].f32()[4] == 4);
  CHECK(y[2].f32()[8] == 2);
  net.layers[1].groups = 4;  // does not divide 6
  CHECK(infer_shapes(net).code() == StatusCode::kInvalidArgument);
  net.layers[1].groups = 2;
  net.layers[2].out_channels = 5;  // [2, 7) outside 6 channels
  CHECK(infer_shapes(net).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("check_weights names the layer with the wrong weight count") {
  NetBuilder b("t", Shape{1, 2, 4, 4});
  b.conv(0, 3, 1, 1, 0, 1, true, "proj");
  Network net = b.finish();
  init_random_weights(net, 1);
  CHECK(check_weights(net).is_ok());
  net.layers[1].weights.pop_back();
  Status s = check_weights(net);
  CHECK_FALSE(s.is_ok());
  CHECK(s.message().find("proj") != std::string::npos);
}
