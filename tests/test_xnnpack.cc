// Every xnnpack implementation vs the reference through the testers (tests/testers/): f32
// within 1e-4 of max|ref|, int8 within one quantisation step of the int8 reference.
#include <doctest/doctest.h>

#include "libs/xnnpack/xnnpack.h"
#include "tests/testers/conv_tester.h"
#include "tests/testers/layer_testers.h"

using namespace lw;
using namespace lw::testers;

namespace {

const Registry& registry() { return registry_of<register_xnnpack>(); }

int check_all(const Layer& layer, const std::vector<Tensor>& in) {
  return check_library(registry(), Library::kXnnpack, layer, in)[DType::kF32];
}

// XNNPACK fuses an activation only as an output clamp.
bool clamps(LayerKind act) { return act == LayerKind::kInput || act == LayerKind::kRelu || act == LayerKind::kRelu6; }

}  // namespace

TEST_CASE("xnnpack conv2d: every implementation on awkward and random shapes") {
  const auto descs = descriptors(registry(), Library::kXnnpack, LayerKind::kConv2d);
  REQUIRE(descs.size() == 12);  // {f32, int8, int8 qc8} x {plain, fused} x 2 thread sets
  for (DType dtype : {DType::kF32, DType::kI8}) {
    const auto shapes = conv_shapes(50, 7, false);
    std::vector<ImplDesc> of_dtype;
    for (const ImplDesc& d : descs)
      if (d.dtype_in == dtype) of_dtype.push_back(d);
    int expected = 0;
    for (const ConvTester& t : shapes) expected += clamps(t.activation());
    const auto ran = test_convs(registry(), of_dtype, shapes);
    for (size_t i = 0; i < of_dtype.size(); ++i) {
      INFO(of_dtype[i].name());
      CHECK(ran[i].supported == expected);  // every shape whose activation is a clamp
      CHECK(ran[i].reshaped == expected);
    }
  }
}

TEST_CASE("xnnpack's 2-thread operators run on libgomp's team (omp_pthreadpool.cc), 1-thread ones on the caller") {
  ConvTester t;
  t.input(1, 16, 14, 14).out_channels(32).kernel(3).pad(1);
  const Layer l = t.layer();
  for (int threads : {1, 2}) {
    ImplDesc d;
    REQUIRE(parse_impl_name("conv2d_nhwc_f32_xnnpack_default_t" + std::to_string(threads), &d).is_ok());
    CHECK(thread_pool_of(Library::kXnnpack, threads) == (threads == 1 ? ThreadPoolId::kCaller : ThreadPoolId::kOpenmp));
    std::unique_ptr<Primitive> p;
    REQUIRE(registry().create({d, &l, {t.input_shape()}, {}, {}}, &p).is_ok());
    REQUIRE(p->reshape({t.input_shape()}).is_ok());
    Tensor in = Tensor::create(t.input_shape(), DType::kF32, Layout::kNHWC), out = Tensor::create(p->output_shape(), DType::kF32, Layout::kNHWC);
    std::vector<uint8_t> ws(p->workspace_bytes() + 1);
    REQUIRE(p->setup({in.data()}, out.data(), ws.data()).is_ok());
    const uint64_t before = xnnpack_team_calls();
    REQUIRE(p->run().is_ok());
    // (a 1-thread operator passes no pool: XNNPACK calls nothing of pthreadpool's on a team)
    if (threads == 1) CHECK(xnnpack_team_calls() == before);
    else CHECK(xnnpack_team_calls() > before);
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
  std::mt19937_64 rng(3);
  int cases = 0, f32 = 0, i8 = 0;
  for (const LayerCase& c : fc_cases()) {
    auto ran = check_library(registry(), Library::kXnnpack, c.layer, case_inputs(c, rng));
    if (!clamps(c.layer.fused_activation)) {
      CHECK(ran.empty());
      continue;
    }
    ++cases, f32 += ran[DType::kF32], i8 += ran[DType::kI8];
  }
  CHECK(cases == 10);
  CHECK(f32 == cases * 4);  // {nchw, nhwc} x 2 thread sets
  CHECK(i8 == cases * 4);
}

TEST_CASE("xnnpack pooling: max (incl. ceil mode, asymmetric pads), average, global average") {
  std::mt19937_64 rng(11);
  Tensor x = random_tensor({2, 13, 11, 9}, rng);
  CHECK(check_all(pool_layer(LayerKind::kMaxPool, 3, 3, 2, 1, 1, 1, 1, false, true), {x}) == 2);
  CHECK(check_all(pool_layer(LayerKind::kMaxPool, 3, 3, 2, 0, 0, 0, 0, true, true), {x}) == 2);
  CHECK(check_all(pool_layer(LayerKind::kMaxPool, 2, 3, 1, 0, 1, 1, 0, false, true), {x}) == 2);
  CHECK(check_all(pool_layer(LayerKind::kAvgPool, 2, 2, 2, 0, 0, 0, 0, false, true), {x}) == 2);
  CHECK(check_all(pool_layer(LayerKind::kAvgPool, 3, 3, 1, 1, 1, 1, 1, false, false), {x}) == 2);
  // PyTorch's default divisor counts padding; XNNPACK's does not: must be refused.
  CHECK(check_all(pool_layer(LayerKind::kAvgPool, 3, 3, 1, 1, 1, 1, 1, false, true), {x}) == 0);
  CHECK(check_all(simple_layer(LayerKind::kGlobalAvgPool), {x}) == 2);
  Tensor x1 = random_tensor({1, 19, 1, 1}, rng);
  CHECK(check_all(simple_layer(LayerKind::kGlobalAvgPool), {x1}) == 2);
}

TEST_CASE("xnnpack add, mul (incl. SE broadcast), activations, softmax") {
  std::mt19937_64 rng(5);
  Tensor a = random_tensor({2, 7, 5, 3}, rng, -4.f, 4.f), b = random_tensor({2, 7, 5, 3}, rng, -4.f, 4.f);
  Tensor se = random_tensor({2, 7, 1, 1}, rng);
  CHECK(check_all(simple_layer(LayerKind::kAdd, 2), {a, b}) == 4);
  Layer add_relu = simple_layer(LayerKind::kAdd, 2);
  add_relu.fused_activation = LayerKind::kRelu;
  CHECK(check_all(add_relu, {a, b}) == 4);
  CHECK(check_all(simple_layer(LayerKind::kMul, 2), {a, b}) == 4);
  CHECK(check_all(simple_layer(LayerKind::kMul, 2), {a, se}) == 4);
  for (LayerKind k : {LayerKind::kRelu, LayerKind::kRelu6, LayerKind::kHardSwish, LayerKind::kSigmoid})
    CHECK(check_all(simple_layer(k), {a}) == 4);
  CHECK(check_all(simple_layer(LayerKind::kSoftmax), {a}) == 2);  // NHWC only
  Tensor logits = random_tensor({3, 10, 1, 1}, rng, -5.f, 5.f);
  CHECK(check_all(simple_layer(LayerKind::kSoftmax), {logits}) == 4);
}

TEST_CASE("xnnpack on the shared layer cases, wherever it has the layer") {
  std::mt19937_64 rng(8);
  int ran = 0;
  for (const LayerCase& c : layer_cases()) ran += check_all(c.layer, case_inputs(c, rng));
  CHECK(ran > 0);
}
