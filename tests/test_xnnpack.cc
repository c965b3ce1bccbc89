// Every xnnpack implementation vs the reference: f32 within 1e-4 relative, int8 within one
// quantisation step of the int8 reference (libs/quant).
#include <doctest/doctest.h>

#include "libs/xnnpack/xnnpack.h"
#include "tests/test_quant_testers.h"

using namespace lw;
using namespace lw::qtest;

namespace {

const Registry& registry() {
  static Registry r = [] {
    Registry reg;
    register_xnnpack(reg);
    return reg;
  }();
  return r;
}

Layer simple_layer(LayerKind k) {
  Layer l;
  l.name = to_string(k);
  l.kind = k;
  return l;
}

Layer pool_layer(LayerKind k, int kh, int kw, int s, int pt, int pl, int pb, int pr, bool ceil, bool include_pad) {
  Layer l = simple_layer(k);
  l.window.kh = kh;
  l.window.kw = kw;
  l.window.stride_h = l.window.stride_w = s;
  l.window.pad_top = pt, l.window.pad_left = pl, l.window.pad_bottom = pb, l.window.pad_right = pr;
  l.window.ceil_mode = ceil;
  l.count_include_pad = include_pad;
  return l;
}

// Runs every descriptor of `op` on `layer` / inputs; returns how many ran.
int check_all(LayerKind op, const Layer& layer, const std::vector<Tensor>& in) {
  int ran = 0;
  for (const ImplDesc& d : descriptors(registry(), Library::kXnnpack, op)) {
    double e = run_f32(registry(), d, layer, in);
    if (e < 0) continue;
    INFO(d.name(), " on ", in[0].shape().to_string(), " error ", e);
    CHECK(e <= 1e-4);
    ++ran;
  }
  return ran;
}

}  // namespace

TEST_CASE("xnnpack conv2d: every implementation on awkward and random shapes") {
  auto shapes = conv_shapes(40, 7);
  auto descs = descriptors(registry(), Library::kXnnpack, LayerKind::kConv2d);
  REQUIRE(descs.size() == 12);  // {f32, int8, int8 qc8} x {plain, fused} x 2 thread sets
  for (const ImplDesc& d : descs) {
    int supported = 0;
    for (const ConvTester& t : shapes) supported += t.Test(registry(), d);
    INFO(d.name());
    CHECK(supported == int(shapes.size()));  // XNNPACK takes every shape here
  }
}

TEST_CASE("xnnpack conv2d rejects what it cannot do, with a reason") {
  ConvTester t;
  Layer l = t.layer();
  ImplDesc d;
  REQUIRE(parse_impl_name("conv2d_nchw_f32_xnnpack_default_t1", &d).is_ok());
  CHECK(registry().supports(d, l, {{1, 3, 8, 8}}).code() == StatusCode::kNotFound);  // NCHW is not registered
  REQUIRE(parse_impl_name("conv2d_nhwc_f32_xnnpack_default_t1", &d).is_ok());
  l.fused_activation = LayerKind::kSigmoid;
  Status s = registry().supports(d, l, {{1, 3, 8, 8}});
  CHECK(s.code() == StatusCode::kUnsupported);
  CHECK(s.message().find("relu") != std::string::npos);
  // int8 without input QuantParams is an argument error at create.
  REQUIRE(parse_impl_name("conv2d_nhwc_int8_xnnpack_default_t1", &d).is_ok());
  l.fused_activation = LayerKind::kInput;
  std::unique_ptr<Primitive> p;
  s = registry().create({d, &l, {{1, 3, 8, 8}}, {}, {}}, &p);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().rfind("failed to create conv2d_nhwc_int8_xnnpack_default_t1", 0) == 0);
}

TEST_CASE("xnnpack fully-connected f32 and int8, both layouts") {
  const Shape shapes[] = {{1, 64, 1, 1}, {2, 37, 1, 1}, {1, 5, 3, 4}, {3, 16, 2, 2}, {1, 1, 1, 1}};
  int ran_f32 = 0, ran_i8 = 0;
  uint64_t seed = 3;
  for (const Shape& s : shapes)
    for (LayerKind act : {LayerKind::kInput, LayerKind::kRelu}) {
      Layer l = fc_layer(s, 10 + int(seed % 7), seed % 2 == 0, act, seed);
      std::mt19937_64 rng(++seed);
      Tensor x = random_tensor(s, rng);
      for (const ImplDesc& d : descriptors(registry(), Library::kXnnpack, LayerKind::kFullyConnected)) {
        INFO(d.name(), " on ", s.to_string());
        if (d.dtype_in == DType::kI8) {
          int steps = run_int8(registry(), d, l, x);
          REQUIRE(steps >= 0);
          CHECK(steps <= 1);
          ++ran_i8;
        } else {
          double e = run_f32(registry(), d, l, {x});
          REQUIRE(e >= 0);
          CHECK(e <= 1e-4);
          ++ran_f32;
        }
      }
    }
  CHECK(ran_f32 == 40);
  CHECK(ran_i8 == 40);
}

TEST_CASE("xnnpack pooling: max (incl. ceil mode, asymmetric pads), average, global average") {
  std::mt19937_64 rng(11);
  Tensor x = random_tensor({2, 13, 11, 9}, rng);
  CHECK(check_all(LayerKind::kMaxPool, pool_layer(LayerKind::kMaxPool, 3, 3, 2, 1, 1, 1, 1, false, true), {x}) == 2);
  CHECK(check_all(LayerKind::kMaxPool, pool_layer(LayerKind::kMaxPool, 3, 3, 2, 0, 0, 0, 0, true, true), {x}) == 2);
  CHECK(check_all(LayerKind::kMaxPool, pool_layer(LayerKind::kMaxPool, 2, 3, 1, 0, 1, 1, 0, false, true), {x}) == 2);
  CHECK(check_all(LayerKind::kAvgPool, pool_layer(LayerKind::kAvgPool, 2, 2, 2, 0, 0, 0, 0, false, true), {x}) == 2);
  CHECK(check_all(LayerKind::kAvgPool, pool_layer(LayerKind::kAvgPool, 3, 3, 1, 1, 1, 1, 1, false, false), {x}) == 2);
  // PyTorch's default divisor counts padding; XNNPACK's does not: must be refused.
  CHECK(check_all(LayerKind::kAvgPool, pool_layer(LayerKind::kAvgPool, 3, 3, 1, 1, 1, 1, 1, false, true), {x}) == 0);
  CHECK(check_all(LayerKind::kGlobalAvgPool, simple_layer(LayerKind::kGlobalAvgPool), {x}) == 2);
  Tensor x1 = random_tensor({1, 19, 1, 1}, rng);
  CHECK(check_all(LayerKind::kGlobalAvgPool, simple_layer(LayerKind::kGlobalAvgPool), {x1}) == 2);
}

TEST_CASE("xnnpack add, mul (incl. SE broadcast), activations, softmax") {
  std::mt19937_64 rng(5);
  Tensor a = random_tensor({2, 7, 5, 3}, rng, -4.f, 4.f), b = random_tensor({2, 7, 5, 3}, rng, -4.f, 4.f);
  Tensor se = random_tensor({2, 7, 1, 1}, rng);
  CHECK(check_all(LayerKind::kAdd, simple_layer(LayerKind::kAdd), {a, b}) == 4);
  Layer add_relu = simple_layer(LayerKind::kAdd);
  add_relu.fused_activation = LayerKind::kRelu;
  CHECK(check_all(LayerKind::kAdd, add_relu, {a, b}) == 4);
  CHECK(check_all(LayerKind::kMul, simple_layer(LayerKind::kMul), {a, b}) == 4);
  CHECK(check_all(LayerKind::kMul, simple_layer(LayerKind::kMul), {a, se}) == 4);
  for (LayerKind k : {LayerKind::kRelu, LayerKind::kRelu6, LayerKind::kHardSwish, LayerKind::kSigmoid})
    CHECK(check_all(k, simple_layer(k), {a}) == 4);
  CHECK(check_all(LayerKind::kSoftmax, simple_layer(LayerKind::kSoftmax), {a}) == 2);  // NHWC only
  Tensor logits = random_tensor({3, 10, 1, 1}, rng, -5.f, 5.f);
  CHECK(check_all(LayerKind::kSoftmax, simple_layer(LayerKind::kSoftmax), {logits}) == 4);
}
