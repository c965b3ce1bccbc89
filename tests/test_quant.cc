// libs/quant: parameter choice, weight quantisation, calibration, and the int8 reference
// checked against f32 arithmetic on the same quantised values.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "libs/quant/quant.h"
#include "libs/ref/reference.h"
#include "tests/testers/conv_tester.h"
#include "tests/testers/layer_testers.h"

using namespace lw;
using namespace lw::testers;

TEST_CASE("choose_quant_params covers the range and represents 0 exactly") {
  for (auto [lo, hi] : {std::pair{-1.f, 3.f}, {0.5f, 2.f}, {-7.f, -0.25f}, {-0.001f, 0.002f}}) {
    QuantParams q = choose_quant_params(lo, hi);
    CHECK(q.scale > 0.f);
    CHECK(q.zero_point >= kInt8Min);
    CHECK(q.zero_point <= kInt8Max);
    CHECK(dequantize_value(quantize_value(0.f, q), q) == 0.f);
    CHECK(std::fabs(dequantize_value(quantize_value(lo, q), q) - lo) <= q.scale / 2 + 1e-6f);
    CHECK(std::fabs(dequantize_value(quantize_value(hi, q), q) - hi) <= q.scale / 2 + 1e-6f);
  }
  QuantParams z = choose_quant_params(0.f, 0.f);
  CHECK(z.scale == 1.f);
  CHECK(z.zero_point == 0);
}

TEST_CASE("weights: per-tensor and per-channel symmetric quantisation") {
  std::vector<float> w = {0.1f, -0.2f, 0.05f, 4.f, -2.f, 1.f};
  QuantizedWeights t = quantize_weights_per_tensor(w), c = quantize_weights_per_channel(w, 2);
  REQUIRE(t.scales.size() == 1);
  REQUIRE(c.scales.size() == 2);
  CHECK(t.scale(0) == doctest::Approx(4.f / 127));
  CHECK(c.scale(0) == doctest::Approx(0.2f / 127));
  CHECK(c.q[1] == -127);
  CHECK(t.q[3] == 127);
  for (size_t i = 0; i < w.size(); ++i) {
    CHECK(std::fabs(t.q[i] * t.scale(int(i / 3)) - w[i]) <= t.scale(0) / 2 + 1e-7f);
    CHECK(std::fabs(c.q[i] * c.scale(int(i / 3)) - w[i]) <= c.scale(int(i / 3)) / 2 + 1e-7f);
  }
  // Per-channel is finer on the small channel.
  CHECK(c.scale(0) < t.scale(0));
}

// The int8 reference must equal round(f32 layer on the dequantised values / out scale) + zp
// to within one step (float vs exact integer accumulation can flip a rounding tie).
namespace {
int int8_reference_vs_f32(Layer l, const Shape& in, bool per_channel, uint64_t seed) {
  l.fused_activation = LayerKind::kInput;
  std::mt19937_64 rng(seed);
  Tensor x = random_tensor(in, rng, -2.f, 1.f);
  Tensor xq = quantize_tensor(x, choose_quant_params(-2.f, 1.f));
  QuantizedWeights w = per_channel ? quantize_weights_per_channel(l.weights, l.out_channels) : quantize_weights_per_tensor(l.weights);
  std::vector<int32_t> bq = quantize_bias(l.bias, l.out_channels, xq.quant().scale, w);
  Layer lf = l;  // the f32 twin: exactly the quantised weights and bias
  const size_t row = w.q.size() / size_t(l.out_channels);
  for (size_t i = 0; i < w.q.size(); ++i) lf.weights[i] = w.q[i] * w.scale(int(i / row));
  for (size_t k = 0; k < lf.bias.size(); ++k) lf.bias[k] = float(double(bq[k]) * xq.quant().scale * w.scale(int(k)));
  Tensor xd = dequantize_tensor(xq), yf, yq;
  REQUIRE(reference_layer(lf, {&xd}, &yf).is_ok());
  auto [lo, hi] = std::minmax_element(yf.f32(), yf.f32() + yf.shape().elements());
  QuantParams out_q = choose_quant_params(*lo, *hi);
  Status s = l.kind == LayerKind::kConv2d ? reference_conv_int8(l, w, xq, out_q, &yq) : reference_fc_int8(l, w, xq, out_q, &yq);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  int worst = 0;
  for (int64_t i = 0; i < yf.shape().elements(); ++i)
    worst = std::max(worst, std::abs(int(yq.i8()[i]) - int(quantize_value(yf.f32()[i], out_q))));
  return worst;
}
}  // namespace

TEST_CASE("int8 reference conv / fc agree with f32 arithmetic on the quantised values") {
  uint64_t seed = 100;
  for (const ConvTester& t : conv_shapes(10, 21, false))
    for (bool pc : {false, true}) {
      INFO(t.describe(), pc ? " per-channel" : " per-tensor");
      CHECK(int8_reference_vs_f32(t.layer(), t.input_shape(), pc, ++seed) <= 1);
    }
  for (Shape s : {Shape{1, 50, 1, 1}, Shape{2, 3, 4, 5}})
    for (bool pc : {false, true}) CHECK(int8_reference_vs_f32(fc_layer(s, 9, true, LayerKind::kInput, 4), s, pc, ++seed) <= 1);
}

TEST_CASE("int8 reference clamps to the fused activation") {
  ConvTester t;
  t.activation(LayerKind::kRelu6);
  Layer l = t.layer();
  std::mt19937_64 rng(1);
  Tensor xq = quantize_tensor(random_tensor(t.input_shape(), rng), choose_quant_params(-1.f, 1.f));
  QuantParams out_q = choose_quant_params(-3.f, 8.f);
  Tensor y;
  REQUIRE(reference_conv_int8(l, quantize_weights_per_tensor(l.weights), xq, out_q, &y).is_ok());
  int below = 0, above = 0;
  for (int64_t i = 0; i < y.shape().elements(); ++i) {
    below += dequantize_value(y.i8()[i], out_q) < -1e-6f;
    above += dequantize_value(y.i8()[i], out_q) > 6.f + out_q.scale;
  }
  CHECK(below == 0);
  CHECK(above == 0);
  l.fused_activation = LayerKind::kSigmoid;
  CHECK(reference_conv_int8(l, quantize_weights_per_tensor(l.weights), xq, out_q, &y).code() == StatusCode::kUnsupported);
}

TEST_CASE("int8 reference with a residual: its real value added before rounding, the activation after") {
  ConvTester t;
  Layer l = t.layer();
  std::mt19937_64 rng(2);
  Tensor xq = quantize_tensor(random_tensor(t.input_shape(), rng), choose_quant_params(-1.f, 1.f));
  const QuantizedWeights w = quantize_weights_per_tensor(l.weights);
  Shape os;
  REQUIRE(infer_layer_shape(l, {t.input_shape()}, &os).is_ok());
  const QuantParams out_q = choose_quant_params(-6.f, 6.f), rq = choose_quant_params(-2.f, 3.f);
  Tensor plain, with;
  REQUIRE(reference_conv_int8(l, w, xq, out_q, &plain).is_ok());
  // A residual of real zero (every value its zero point) changes nothing.
  Tensor r = Tensor::create(os, DType::kI8, Layout::kNCHW);
  r.set_quant(rq);
  std::fill(r.i8(), r.i8() + os.elements(), int8_t(rq.zero_point));
  REQUIRE(reference_conv_int8(l, w, xq, out_q, &with, &r).is_ok());
  CHECK(std::equal(plain.i8(), plain.i8() + os.elements(), with.i8()));
  // Zero weights and bias: the output is the residual requantised, then relu'd.
  std::fill(l.weights.begin(), l.weights.end(), 0.f);
  std::fill(l.bias.begin(), l.bias.end(), 0.f);
  l.fused_activation = LayerKind::kRelu;
  for (int64_t i = 0; i < os.elements(); ++i) r.i8()[i] = int8_t(int(i % 256) - 128);
  REQUIRE(reference_conv_int8(l, quantize_weights_per_tensor(l.weights), xq, out_q, &with, &r).is_ok());
  for (int64_t i = 0; i < os.elements(); ++i) {
    INFO("element ", i, " residual ", int(r.i8()[i]));
    // (float vs double scale ratios may round a tie the other way: one step)
    CHECK(std::abs(int(with.i8()[i]) - int(quantize_value(std::max(0.f, dequantize_value(r.i8()[i], rq)), out_q))) <= 1);
  }
  // A residual of another shape is refused.
  Tensor small = Tensor::create({1, 1, 1, 1}, DType::kI8, Layout::kNCHW);
  CHECK(reference_conv_int8(l, w, xq, out_q, &with, &small).code() == StatusCode::kInvalidArgument);
}

namespace {

// input 1x3x6x6 -> 3x3 conv to 4 channels -> relu.
Network tiny_conv_relu() {
  Network net;
  net.name = "tiny";
  Layer in;
  in.name = "input";
  in.kind = LayerKind::kInput;
  in.out = {1, 3, 6, 6};
  net.layers.push_back(in);
  Layer conv = ConvTester().input(1, 3, 6, 6).out_channels(4).kernel(3).pad(1).layer();
  conv.inputs = {0};
  net.layers.push_back(conv);
  Layer relu;
  relu.name = "relu";
  relu.kind = LayerKind::kRelu;
  relu.inputs = {1};
  net.layers.push_back(relu);
  const Status s = infer_shapes(net);
  REQUIRE(s.is_ok());
  return net;
}

}  // namespace

TEST_CASE("calibrate minmax: per-layer ranges from the reference executor over all samples") {
  const Network net = tiny_conv_relu();
  std::mt19937_64 rng(9);
  std::vector<Tensor> samples = {random_tensor({1, 3, 6, 6}, rng, -1.f, 1.f), random_tensor({1, 3, 6, 6}, rng, -3.f, 2.f)};
  std::vector<QuantParams> q;
  REQUIRE(calibrate(net, samples, &q, CalibrationMethod::kMinMax).is_ok());
  REQUIRE(q.size() == 3);
  // Each layer's params must cover every sample's output, and not be wider than needed.
  for (size_t i = 0; i < 3; ++i) {
    float lo = 0, hi = 0;
    for (const Tensor& s : samples) {
      std::vector<Tensor> outs;
      REQUIRE(reference_forward(net, s, &outs).is_ok());
      for (int64_t j = 0; j < outs[i].shape().elements(); ++j) lo = std::min(lo, outs[i].f32()[j]), hi = std::max(hi, outs[i].f32()[j]);
    }
    INFO("layer ", i);
    CHECK(q[i].scale == doctest::Approx((hi - lo) / 255.f));
    CHECK(dequantize_value(kInt8Min, q[i]) <= lo + q[i].scale);
    CHECK(dequantize_value(kInt8Max, q[i]) >= hi - q[i].scale);
  }
  CHECK(q[0].scale == doctest::Approx(5.f / 255).epsilon(0.05));  // input range ~[-3, 2]
  CHECK(q[2].zero_point == kInt8Min);                                // relu output starts at 0
  CHECK(!calibrate(net, {}, &q).is_ok());
}

TEST_CASE("non_negative_outputs: relu-like layers and what only passes them on; calibration agrees") {
  // Kinds and edges only (no shapes needed): input, conv, relu, max-pool, conv, add(pool,
  // conv), conv with a fused relu6, concat(pool, that conv), global-avg-pool, flatten(conv).
  Network net;
  auto push = [&](LayerKind k, std::vector<int> inputs, LayerKind fused = LayerKind::kInput) {
    Layer l;
    l.kind = k;
    l.inputs = std::move(inputs);
    l.fused_activation = fused;
    net.layers.push_back(l);
  };
  push(LayerKind::kInput, {});
  push(LayerKind::kConv2d, {0});
  push(LayerKind::kRelu, {1});
  push(LayerKind::kMaxPool, {2});
  push(LayerKind::kConv2d, {3});
  push(LayerKind::kAdd, {3, 4});
  push(LayerKind::kConv2d, {3}, LayerKind::kRelu6);
  push(LayerKind::kConcat, {3, 6});
  push(LayerKind::kGlobalAvgPool, {7});
  push(LayerKind::kFlatten, {4});
  push(LayerKind::kHardSwish, {2});
  const std::vector<bool> want = {false, false, true, true, false, false, true, true, true, false, false};
  CHECK(non_negative_outputs(net) == want);

  // What the profiler assumes of a relu's output is what calibration gives it.
  const Network small = tiny_conv_relu();
  std::mt19937_64 rng(4);
  std::vector<QuantParams> q;
  REQUIRE(calibrate(small, {random_tensor({1, 3, 6, 6}, rng)}, &q).is_ok());
  const std::vector<bool> nn = non_negative_outputs(small);
  for (size_t i = 0; i < q.size(); ++i) CHECK((q[i].zero_point == kInt8Min) == nn[i]);
}
