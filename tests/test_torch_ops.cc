// Every torch implementation vs the reference through the testers (tests/testers/): f32
// within 1e-4 of max|ref|, int8 (QNNPACK and oneDNN engines, per-tensor and per-channel
// weights) within one quantisation step of the int8 reference (libs/quant).
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "libs/core/cpu.h"
#include "libs/ops/thread_pool.h"
#include "libs/torch/torch_backend.h"
#include "libs/torch/torch_ops_common.h"
#include "tests/testers/conv_tester.h"
#include "tests/testers/layer_testers.h"

using namespace lw;
using namespace lw::testers;

namespace {

const Registry& registry() { return registry_of<register_torch>(); }

std::vector<ImplDesc> conv_descriptors(DType dtype) {
  std::vector<ImplDesc> v;
  for (const ImplDesc& d : descriptors(registry(), Library::kTorch, LayerKind::kConv2d))
    if (d.dtype_in == dtype) v.push_back(d);
  return v;
}

}  // namespace

TEST_CASE("LibTorch's 2-thread steps run on libgomp's team, its thread 1 pinned to the thread set's second CPU") {
  (void)registry();  // registration pins the team (prepare_omp_team), with no other backend here
  if (available_thread_set_cpus() < 2) return;
  CHECK(torch_ops::second_thread_pinned_cpu() == thread_set_cpu(1));
}

TEST_CASE("torch conv2d f32 (default and onednn, NCHW and channels-last) on awkward and random shapes") {
  const auto shapes = conv_shapes(10, 17, false);
  const auto descs = conv_descriptors(DType::kF32);
  CHECK(descs.size() == 16);  // {default, onednn} x {nchw, nhwc} x {plain, fused} x 2 thread sets
  const auto ran = test_convs(registry(), descs, shapes);
  for (size_t i = 0; i < descs.size(); ++i) {
    INFO(descs[i].name());
    CHECK(ran[i].supported == int(shapes.size()));  // asymmetric padding is padded explicitly
    CHECK(ran[i].reshaped == int(shapes.size()));
  }
  // The prepacked oneDNN convs wrote every output straight into the tester's buffer.
  CHECK(torch_ops::prepacked_output_copies() == 0);
}

TEST_CASE("torch fused f32 conv + GELU (ConvNeXt's expanding 1x1 conv) on awkward shapes; int8 refuses it") {
  auto shapes = conv_shapes(6, 23, false);
  shapes.push_back(ConvTester().input(1, 19, 7, 5).out_channels(76).kernel(1));  // 4x expansion, C off 16
  for (ConvTester& t : shapes) t.activation(LayerKind::kGelu);
  std::vector<ImplDesc> f32, int8;
  for (const ImplDesc& d : conv_descriptors(DType::kF32))
    if (d.fused_activation) f32.push_back(d);
  for (const ImplDesc& d : conv_descriptors(DType::kI8))
    if (d.fused_activation) int8.push_back(d);
  REQUIRE(f32.size() == 8);
  const auto ran = test_convs(registry(), f32, shapes);  // at::gelu_ (erf) after the conv, vs the reference
  for (size_t i = 0; i < f32.size(); ++i) {
    INFO(f32[i].name());
    CHECK(ran[i].supported == int(shapes.size()));
  }
  for (const ImplDesc& d : int8) {
    INFO(d.name());
    CHECK(registry().supports(d, shapes[0].layer(), {shapes[0].input_shape()}).code() == StatusCode::kUnsupported);
  }
}

TEST_CASE("torch conv2d int8 through QNNPACK and oneDNN, per-tensor and per-channel weights") {
  const auto shapes = conv_shapes(20, 29, false);
  const auto descs = conv_descriptors(DType::kI8);
  CHECK(descs.size() == 32);
  int expected = 0;  // symmetric padding and an activation int8 can clamp to
  for (const ConvTester& t : shapes) {
    const LayerKind a = t.activation();
    expected += t.symmetric_padding() && (a == LayerKind::kInput || a == LayerKind::kRelu || a == LayerKind::kRelu6);
  }
  const auto ran = test_convs(registry(), descs, shapes);
  for (size_t i = 0; i < descs.size(); ++i) {
    INFO(descs[i].name());
    // The oneDNN engine's u8 x s8 sums saturate without VNNI: refused there (torch_backend.cc).
    const int here = torch_ops::onednn_engine(descs[i].algorithm) && !cpu_has_int8_dot() ? 0 : expected;
    CHECK(ran[i].supported == here);  // every such shape, none other
    CHECK(ran[i].reshaped == here);
  }
}

TEST_CASE("torch fully-connected f32, both layouts") {
  std::mt19937_64 rng(1);
  int ran = 0, cases = 0;
  for (const LayerCase& c : fc_cases()) {
    ++cases;
    ran += check_library(registry(), Library::kTorch, c.layer, case_inputs(c, rng))[DType::kF32];
  }
  CHECK(ran == cases * 4);  // every case, layout and thread set
}

TEST_CASE("torch primitives warm their call path without touching their own data or output") {
  // The prepacked (onednn) and the default f32 conv: run, warm the call path (the profiler's
  // last step before each cold run: a tiny conv of its own through the dispatcher), run again;
  // same output bytes, and the warm-up wrote nothing into the output in between.
  const ConvTester t = ConvTester().input(1, 13, 9, 7).out_channels(21).kernel(3).pad(1).stride(2);
  const Layer layer = t.layer();
  std::mt19937_64 rng(3);
  int checked = 0;
  for (const ImplDesc& d : conv_descriptors(DType::kF32)) {
    if (d.threads != 1 || d.fused_activation || d.layout_in != Layout::kNCHW) continue;
    INFO(d.name());
    PrimitiveArgs a;
    a.desc = d;
    a.layer = &layer;
    a.in_shapes = {t.input_shape()};
    std::unique_ptr<Primitive> prim;
    REQUIRE(registry().create(a, &prim).is_ok());
    REQUIRE(prim->reshape({t.input_shape()}).is_ok());
    Tensor x = Tensor::create(t.input_shape());
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (int64_t i = 0; i < x.shape().elements(); ++i) x.f32()[i] = u(rng);
    std::vector<uint8_t> y(prim->output_bytes()), again(prim->output_bytes());
    REQUIRE(prim->setup({x.data()}, y.data(), nullptr).is_ok());
    REQUIRE(prim->run().is_ok());
    const std::vector<uint8_t> first = y;
    std::fill(y.begin(), y.end(), uint8_t(0x5a));
    prim->warm_call_path();
    CHECK(std::all_of(y.begin(), y.end(), [](uint8_t b) { return b == 0x5a; }));
    REQUIRE(prim->run().is_ok());
    CHECK(y == first);
    ++checked;
  }
  CHECK(checked == 2);  // default and onednn (prepacked)
}
