// A conv absorbs the GELU after it (ConvNeXt's expanding 1x1 conv, then GELU): oneDNN's fused
// f32 / bf16 convs as an eltwise_gelu_erf post-op, on the awkward shapes, against the
// reference conv + exact GELU; what cannot absorb it (int8, native, XNNPACK, OpenBLAS) says so;
// the registry's view of the pair; and a network planned with the fused pair runs like the
// reference.
#include <doctest/doctest.h>

#include <string>

#include "libs/exec/backends.h"
#include "libs/exec/executor.h"
#include "libs/onednn/onednn.h"
#include "libs/ref/reference.h"
#include "libs/zoo/zoo_builder.h"
#include "tests/testers/conv_tester.h"
#include "tests/testers/tester.h"

using namespace lw;
using namespace lw::testers;

namespace {

const Registry& onednn_registry() { return registry_of<register_onednn>(); }

// Awkward shapes, every one with GELU: ConvNeXt's 1x1 expansion off the vector width, a
// strided 1x1, odd 3x3s with asymmetric padding, depthwise, batch 2, 1x1 spatial, and the
// random ones of the other testers.
std::vector<ConvTester> gelu_shapes() {
  using T = ConvTester;
  std::vector<ConvTester> v = {
      T().input(1, 19, 7, 5).out_channels(76).kernel(1),                        // 1x1, 4x expansion, C off 16
      T().input(1, 32, 6, 6).out_channels(128).kernel(1),                       // 1x1, whole blocks
      T().input(2, 24, 9, 9).out_channels(40).kernel(1).stride(2),              // strided 1x1, batch 2
      T().input(1, 17, 9, 11).out_channels(13).kernel(3).stride(2).pad(0, 1, 1, 0),
      T().input(1, 9, 13, 10).out_channels(11).kernel(3).pad(1),
      T().input(1, 16, 10, 10).out_channels(16).kernel(7).pad(3).groups(16),    // ConvNeXt's depthwise 7x7
      T().input(1, 20, 1, 1).out_channels(13).kernel(1),                        // 1x1 spatial
  };
  for (ConvTester t : conv_shapes(6, 77, false)) v.push_back(t);
  for (ConvTester& t : v) t.activation(LayerKind::kGelu);
  return v;
}

}  // namespace

TEST_CASE("onednn fused conv + GELU: f32 and bf16 on awkward shapes against the reference, int8 refused") {
  const auto shapes = gelu_shapes();
  std::vector<ImplDesc> descs;
  for (const ImplDesc& d : descriptors(onednn_registry(), Library::kOnednn, LayerKind::kConv2d))
    if (d.fused_activation && d.algorithm != Algorithm::kWinograd) descs.push_back(d);
  REQUIRE(!descs.empty());
  const auto ran = test_convs(onednn_registry(), descs, shapes);  // CHECKs every run against the reference
  int f32_plain = 0;
  for (size_t i = 0; i < descs.size(); ++i) {
    const ImplDesc& d = descs[i];
    INFO(d.name(), " ran ", ran[i].supported, " of ", shapes.size());
    if (d.dtype_in == DType::kI8) {
      CHECK(ran[i].supported == 0);  // post-ops see requantised values: only the clamps
      const Status s = onednn_registry().supports(d, shapes[0].layer(), {shapes[0].input_shape()});
      CHECK(s.code() == StatusCode::kUnsupported);
      CHECK_FALSE(s.message().empty());
    }
    // Plain layouts run every shape, as the unfused conv does.
    if (d.dtype_in == DType::kF32 && layout_block(d.layout_out) == 1) {
      CHECK(ran[i].supported == int(shapes.size()));
      f32_plain += 1;
    }
  }
  CHECK(f32_plain == 2 * 2);  // NCHW, NHWC x 2 thread sets
}

namespace {

// x -> 1x1 conv (4x expansion) -> GELU -> 1x1 conv -> (+ x): ConvNeXt's block without its
// depthwise conv and LayerNorm. 19 channels: partial blocks of 16 and 8.
Network gelu_net() {
  NetBuilder b("gelu_tiny", {1, 19, 6, 7});
  const int h = b.act(b.conv(0, 76, 1, 1, 0), LayerKind::kGelu);
  b.add(b.conv(h, 19, 1, 1, 0), 0);
  Network net = b.finish();
  init_random_weights(net, 8);
  return net;
}

int find_kind(const Network& net, LayerKind k) {
  for (size_t i = 1; i < net.layers.size(); ++i)
    if (net.layers[i].kind == k) return int(i);
  return -1;
}

}  // namespace

TEST_CASE("runtime fusion: a conv absorbs the GELU after it; only the backends that compute it offer the fused form") {
  const Network net = gelu_net();
  const int gelu = find_kind(net, LayerKind::kGelu), conv = net.layers[gelu].inputs[0];
  const RuntimeFusion f = runtime_fusion(net, conv);
  CHECK(f.activation == LayerKind::kGelu);
  CHECK(f.activation_layer == gelu);
  CHECK(absorber_of(net, gelu) == conv);
  int onednn_ok = 0;
  for (const Candidate& c : default_registry().candidates(net, conv)) {
    if (!c.desc.fused_activation) continue;
    INFO(c.desc.name(), ": ", c.supported.message());
    if (c.desc.library == Library::kOnednn && c.desc.dtype_in == DType::kF32 && layout_block(c.desc.layout_out) == 1 &&
        c.desc.algorithm != Algorithm::kWinograd)
      onednn_ok += c.supported.is_ok();
    // Those that cannot apply GELU after the conv refuse it with a reason, not a wrong result.
    if (c.desc.library == Library::kNative || c.desc.library == Library::kXnnpack || c.desc.library == Library::kOpenBLAS ||
        c.desc.dtype_in == DType::kI8) {
      CHECK(c.supported.code() == StatusCode::kUnsupported);
      CHECK_FALSE(c.supported.message().empty());
    }
  }
  CHECK(onednn_ok == 2 * 2);
  bool pseudo = false;
  for (const Candidate& c : default_registry().candidates(net, gelu))
    pseudo |= c.desc.algorithm == Algorithm::kFused && c.supported.is_ok() && c.desc.layout_in == Layout::kNHWC &&
              c.desc.dtype_in == DType::kF32;
  CHECK(pseudo);
}

TEST_CASE("a network with the conv + GELU fused by oneDNN runs like the reference, in f32 and bf16") {
  const Network net = gelu_net();
  const int gelu = find_kind(net, LayerKind::kGelu), conv = net.layers[gelu].inputs[0];
  std::vector<DType> dtypes = {DType::kF32};
  if (onednn_native_bf16()) dtypes.push_back(DType::kBF16);
  for (DType dt : dtypes)
    for (Layout lay : {Layout::kNHWC, Layout::kNCHW16C}) {
      if (lay == Layout::kNCHW16C && onednn_cpu_isa().rfind("avx512", 0) != 0) continue;  // nChw16c needs AVX-512
      std::vector<ImplDesc> a(net.layers.size());
      for (size_t i = 1; i < net.layers.size(); ++i) {
        ImplDesc& d = a[i];
        d.op = net.layers[i].kind;
        d.library = Library::kOnednn;
        d.layout_in = d.layout_out = lay;
        d.dtype_in = d.dtype_out = dt;
        d.threads = 1;
      }
      a[conv].fused_activation = true;
      a[gelu] = fused_partner(a[conv], LayerKind::kGelu);
      PlanOptions opt;
      opt.registry = &default_registry();
      std::unique_ptr<Executor> ex;
      Status s = Executor::plan(net, a, opt, &ex);
      INFO(to_string(dt), " ", to_string(lay));
      REQUIRE_MESSAGE(s.is_ok(), s.message());
      std::mt19937_64 rng(4);
      Tensor x = random_tensor(net.input_shape(), rng), y;
      REQUIRE(ex->run(x, &y).is_ok());
      std::vector<Tensor> ref;
      REQUIRE(reference_forward(net, x, &ref).is_ok());
      CHECK(output_error(y, ref.back()) <= (dt == DType::kBF16 ? kBf16Tolerance : 1e-4));
    }
}
