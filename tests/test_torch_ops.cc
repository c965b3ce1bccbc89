// Every torch implementation vs the reference: f32 within 1e-4 relative, int8 (QNNPACK and
// oneDNN engines, per-tensor and per-channel weights) within one quantisation step of the
// int8 reference (libs/quant).
#include <doctest/doctest.h>

#include "libs/torch/torch_backend.h"
#include "libs/torch/torch_ops_common.h"
#include "tests/test_quant_testers.h"

using namespace lw;
using namespace lw::qtest;

namespace {

const Registry& registry() {
  static Registry r = [] {
    Registry reg;
    register_torch(reg);
    return reg;
  }();
  return r;
}

bool symmetric(const Layer& l) {
  return l.window.pad_top == l.window.pad_bottom && l.window.pad_left == l.window.pad_right;
}

}  // namespace

TEST_CASE("torch conv2d f32 (default and onednn, NCHW and channels-last) on awkward and random shapes") {
  auto shapes = conv_shapes(20, 17);
  int descs = 0;
  for (const ImplDesc& d : descriptors(registry(), Library::kTorch, LayerKind::kConv2d)) {
    if (d.dtype_in != DType::kF32) continue;
    ++descs;
    int supported = 0;
    for (const ConvTester& t : shapes) supported += t.Test(registry(), d);
    INFO(d.name());
    CHECK(supported == int(shapes.size()));  // asymmetric padding is padded explicitly
  }
  CHECK(descs == 16);  // {default, onednn} x {nchw, nhwc} x {plain, fused} x 2 thread sets
  // The prepacked oneDNN convs wrote every output straight into the tester's buffer.
  CHECK(torch_ops::prepacked_output_copies() == 0);
}

TEST_CASE("torch conv2d int8 through QNNPACK and oneDNN, per-tensor and per-channel weights") {
  auto shapes = conv_shapes(20, 29);
  int descs = 0;
  for (const ImplDesc& d : descriptors(registry(), Library::kTorch, LayerKind::kConv2d)) {
    if (d.dtype_in != DType::kI8) continue;
    ++descs;
    int supported = 0, expected = 0;
    for (const ConvTester& t : shapes) {
      expected += symmetric(t.layer());
      supported += t.Test(registry(), d);
    }
    INFO(d.name());
    CHECK(supported == expected);  // every symmetric-padding shape, none other
  }
  CHECK(descs == 32);
}

TEST_CASE("torch fully-connected f32, both layouts") {
  const Shape shapes[] = {{1, 64, 1, 1}, {2, 37, 1, 1}, {1, 5, 3, 4}, {3, 16, 2, 2}};
  uint64_t seed = 1;
  int ran = 0;
  for (const Shape& s : shapes)
    for (LayerKind act : {LayerKind::kInput, LayerKind::kRelu, LayerKind::kHardSwish}) {
      Layer l = fc_layer(s, 7 + int(seed % 5), seed % 2 == 1, act, seed);
      std::mt19937_64 rng(++seed);
      Tensor x = random_tensor(s, rng);
      for (const ImplDesc& d : descriptors(registry(), Library::kTorch, LayerKind::kFullyConnected)) {
        double e = run_f32(registry(), d, l, {x});
        INFO(d.name(), " on ", s.to_string(), " error ", e);
        REQUIRE(e >= 0);
        CHECK(e <= 1e-4);
        ++ran;
      }
    }
  CHECK(ran == 4 * 3 * 4);
}
