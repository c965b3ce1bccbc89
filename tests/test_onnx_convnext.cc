// ConvNeXt's operators: a LayerNorm over channels-last tensors, a MatMul over their channels and
// GELU, as LayerNormalization (opset 17) and Gelu (opset 20) nodes and as the elementary nodes
// exporters write before those opsets, import to the same layers and weights, and compute what
// the formulas say; what the importer cannot read in these forms is refused in one line
// (torchvision's ConvNeXt-T itself: test_onnx_torchvision).
#include <doctest/doctest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <string>
#include <vector>

#include "libs/ir/network_json.h"
#include "libs/onnx/onnx_import.h"
#include "libs/ref/reference.h"
#include "tests/onnx_test_model.h"

using namespace lw::testing;

namespace {

const std::vector<float> kGamma = {0.9f, 1.2f, -0.7f}, kBeta = {0.1f, -0.2f, 0.3f};
const std::vector<float> kW = {0.5f, -0.3f, 0.8f, 0.1f, -0.6f, 0.4f, 0.2f, -0.9f, 0.7f, 0.3f, -0.2f, 0.6f};  // 3 x 4
const std::vector<float> kB = {0.05f, -0.1f, 0.2f, 0.0f};
constexpr float kEps = 1e-6f;

void transpose(Model& f, const std::string& in, const std::string& out, const std::vector<int64_t>& perm) {
  add_ints_attribute(f.node("Transpose", {in}, {out}), "perm", perm);
}

// x [1,3,6,5] -> channels last -> LayerNorm over C (scale, shift) -> MatMul 3x4 + bias -> GELU
// -> channels first: y [1,4,6,5]. `spelt`: LayerNorm and GELU as PyTorch writes them before
// opsets 17 and 20 (ReduceMean's axes an attribute, i.e. an opset below 18).
Model block(int opset, bool spelt) {
  Model f(opset);
  f.floats("gamma", {3}, kGamma);
  f.floats("beta", {3}, kBeta);
  f.floats("w", {3, 4}, kW);
  f.floats("b", {4}, kB);
  transpose(f, "x", "t", {0, 2, 3, 1});
  if (spelt) {
    f.floats("two", {}, {2.f});
    f.floats("eps", {}, {kEps});
    add_ints_attribute(f.node("ReduceMean", {"t"}, {"mean"}), "axes", {-1});
    f.node("Sub", {"t", "mean"}, {"d"});
    f.node("Pow", {"d", "two"}, {"sq"});
    add_ints_attribute(f.node("ReduceMean", {"sq"}, {"var"}), "axes", {-1});
    f.node("Add", {"var", "eps"}, {"var_eps"});
    f.node("Sqrt", {"var_eps"}, {"std"});
    f.node("Div", {"d", "std"}, {"n"});
    f.node("Mul", {"n", "gamma"}, {"scaled"});
    f.node("Add", {"scaled", "beta"}, {"ln"});
  } else {
    auto* ln = f.node("LayerNormalization", {"t", "gamma", "beta"}, {"ln"});
    add_int_attribute(ln, "axis", -1);
    auto* e = ln->add_attribute();
    e->set_name("epsilon");
    e->set_type(onnx::AttributeProto::FLOAT);
    e->set_f(kEps);
  }
  f.node("MatMul", {"ln", "w"}, {"mm"});
  f.node("Add", {"b", "mm"}, {"h"});
  if (spelt) {
    f.floats("sqrt2", {}, {1.4142135f});
    f.floats("one", {}, {1.f});
    f.floats("half", {}, {0.5f});
    f.node("Div", {"h", "sqrt2"}, {"q"});
    f.node("Erf", {"q"}, {"erf"});
    f.node("Add", {"erf", "one"}, {"erf1"});
    f.node("Mul", {"h", "erf1"}, {"twice"});
    f.node("Mul", {"twice", "half"}, {"a"});
  } else {
    f.node("Gelu", {"h"}, {"a"});
  }
  transpose(f, "a", "y", {0, 3, 1, 2});
  f.g()->add_output()->set_name("y");
  return f;
}

lw::Network import_folded(Model& f, const std::string& name) {
  lw::Network raw, net;
  lw::Status s = lw::import_onnx(f.save(name), &raw);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  REQUIRE(lw::fold_affine(raw, &net).is_ok());
  return net;
}

std::string import_message(Model& f, const std::string& name) {
  lw::Network net;
  return lw::import_onnx(f.save(name), &net).message();
}

std::vector<std::string> kinds(const lw::Network& net) {
  std::vector<std::string> k;
  for (const lw::Layer& l : net.layers) k.push_back(lw::to_string(l.kind));
  return k;
}

// The block by its formulas, in double, at position (h, w) of input x: y[k] for k < 4.
std::vector<double> block_by_hand(const lw::Tensor& x, int h, int w) {
  double v[3], mean = 0, var = 0;
  for (int c = 0; c < 3; ++c) mean += v[c] = x.f32()[x.offset(0, c, h, w)];
  mean /= 3;
  for (double e : v) var += (e - mean) * (e - mean);
  var /= 3;
  std::vector<double> y(4);
  for (int k = 0; k < 4; ++k) {
    double acc = kB[k];
    for (int c = 0; c < 3; ++c) acc += ((v[c] - mean) / std::sqrt(var + kEps) * kGamma[c] + kBeta[c]) * kW[size_t(c * 4 + k)];
    y[size_t(k)] = 0.5 * acc * (1 + std::erf(acc / std::sqrt(2.0)));
  }
  return y;
}

}  // namespace

TEST_CASE("LayerNormalization and Gelu, and the same spelt out, import to one layer-norm, conv and gelu") {
  Model ops = block(20, false), spelt = block(13, true);
  const lw::Network a = import_folded(ops, "ops.onnx"), b = import_folded(spelt, "spelt.onnx");
  // The MatMul is a 1x1 conv that took the bias add; the LayerNorm took the scale and shift.
  CHECK(kinds(a) == std::vector<std::string>{"input", "layer-norm", "conv2d", "gelu"});
  CHECK(kinds(b) == kinds(a));
  std::string wa, wb;
  REQUIRE(lw::weights_to_bytes(a, &wa).is_ok());
  REQUIRE(lw::weights_to_bytes(b, &wb).is_ok());
  CHECK(wa == wb);
  CHECK(a.layers[1].eps == kEps);
  CHECK(b.layers[1].eps == kEps);
  lw::Tensor x = lw::Tensor::create(a.input_shape());
  for (int64_t i = 0; i < x.shape().elements(); ++i) x.f32()[i] = float(std::sin(0.7 * double(i)) * 2.5);
  for (const lw::Network* net : {&a, &b}) {
    std::vector<lw::Tensor> out;
    REQUIRE(lw::reference_forward(*net, x, &out).is_ok());
    const lw::Tensor& y = out.back();
    REQUIRE(y.shape() == lw::Shape{1, 4, 6, 5});
    for (int h = 0; h < 6; ++h)
      for (int w = 0; w < 5; ++w) {
        const std::vector<double> want = block_by_hand(x, h, w);
        for (int k = 0; k < 4; ++k) CHECK(std::fabs(y.f32()[y.offset(0, k, h, w)] - want[size_t(k)]) <= 1e-5 * (1 + std::fabs(want[size_t(k)])));
      }
  }
}

TEST_CASE("what the ConvNeXt forms can get wrong is refused with the node, its op and the opset") {
  auto refused = [](Model f, const std::string& name, const std::string& want) {
    const std::string m = import_message(f, name);
    CHECK_MESSAGE(m.find(want) != std::string::npos, m);
  };
  Model over_hwc = block(20, false);  // axis 1 of [N, H, W, C]: H, W and C together
  over_hwc.g()->mutable_node(1)->mutable_attribute(0)->set_i(1);
  refused(over_hwc, "over_hwc.onnx", "(LayerNormalization, opset 20): LayerNormalization over other than the channels");
  Model tanh = block(20, false);
  auto* approx = tanh.g()->mutable_node(4)->add_attribute();
  approx->set_name("approximate");
  approx->set_type(onnx::AttributeProto::STRING);
  approx->set_s("tanh");
  refused(tanh, "tanh.onnx", "(Gelu, opset 20): approximate='tanh' (only the exact, erf form)");
  Model stats = block(20, false);  // the training outputs Mean and InvStdDev
  stats.g()->mutable_node(1)->add_output("mean");
  refused(stats, "stats.onnx", "the Mean / InvStdDev outputs (training)");
  Model other_perm = block(20, false);
  other_perm.g()->mutable_node(0)->mutable_attribute(0)->set_ints(1, 3);  // (0, 3, 3, 1): not a permutation
  refused(other_perm, "other_perm.onnx", "perm is not a permutation");
  Model swap_hw = block(20, false);
  auto* perm = swap_hw.g()->mutable_node(0)->mutable_attribute(0);
  perm->clear_ints();
  for (int64_t k : {0, 1, 3, 2}) perm->add_ints(k);
  refused(swap_hw, "swap_hw.onnx", "transpose other than a channel shuffle's or to and from channels last");
  // A Conv reading a channels-last view would see H, W and C mixed up.
  Model conv_nhwc(13);
  conv_nhwc.conv_weights(4);
  transpose(conv_nhwc, "x", "t", {0, 2, 3, 1});
  conv_nhwc.node("Conv", {"t", "w"}, {"y"});
  conv_nhwc.g()->add_output()->set_name("y");
  refused(conv_nhwc, "conv_nhwc.onnx", "(Conv, opset 13): input must be a computed tensor without a pending reshape, transpose or pad");
  // A part of a spelt-out LayerNorm read by anything else than its next step.
  Model leak = block(13, true);
  leak.node("Relu", {"mean"}, {"leaked"});
  refused(leak, "leak.onnx", "(Relu, opset 13): input 'mean' is a reshaped/padded tensor or a partial LayerNorm / GELU");
  // A division by sqrt(2) that something besides Erf reads is an ordinary scale, and Erf alone
  // is no operator the IR has.
  Model shared = block(13, true);
  shared.node("Relu", {"q"}, {"also"});
  refused(shared, "shared.onnx", "(Erf, opset 13): Erf other than in a LayerNorm's or GELU's usual spelling");
  Model no_half = block(13, true);  // x * (1 + erf(x / sqrt(2))) * 0.25
  no_half.g()->mutable_initializer(no_half.g()->initializer_size() - 1)->set_float_data(0, 0.25f);
  refused(no_half, "no_half.onnx", "times other than 0.5");
}
