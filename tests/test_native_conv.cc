// Every native conv implementation against the reference executor on many shapes.
#include "libs/native/native.h"
#include "tests/testers/conv_tester.h"

using namespace lw;
using namespace lw::testers;

TEST_CASE("native conv implementations match the reference") {
  Registry r;
  register_native(r);
  const auto descs = descriptors(r, Library::kNative, LayerKind::kConv2d);
  const auto ran = test_convs(r, descs, conv_shapes(60, 42));
  REQUIRE(!descs.empty());
  // Every descriptor must have met several shapes it supports, or the test proves nothing.
  for (size_t i = 0; i < descs.size(); ++i) {
    INFO(descs[i].name());
    CHECK(ran[i].supported >= 5);
    CHECK(ran[i].reshaped >= 5);
  }
}

// F(2x2, 5x5) and F(4x4, 5x5) (the 3x3 tiles' points, 6x6 and 8x8 tiles) on dense 5x5 convs:
// tiles overhanging the image, odd and vector-width channel counts, asymmetric padding, a
// 1x1 output, batch 2, blocks of tile rows, and GoogLeNet's deepest 5x5 (48 -> 128 on 7x7).
// F(6x6, 5x5) is not built and must say so.
TEST_CASE("native Winograd on 5x5 convs matches the reference; no F(6x6, 5x5)") {
  using T = ConvTester;
  const std::vector<ConvTester> shapes = {
      T().input(1, 13, 11, 9).out_channels(21).kernel(5).pad(2),
      T().input(1, 6, 5, 5).out_channels(7).kernel(5),                               // 1x1 output
      T().input(1, 17, 3, 4).out_channels(5).kernel(5).pad(2, 1, 2, 3),              // asymmetric, tiny
      T().input(2, 16, 9, 10).out_channels(32).kernel(5).pad(2).activation(LayerKind::kRelu),
      T().input(1, 48, 7, 7).out_channels(128).kernel(5).pad(2).bias(false),
      T().input(1, 64, 14, 14).out_channels(17).kernel(5).pad(2).activation(LayerKind::kHardSwish),
      T().input(2, 19, 45, 47).out_channels(21).kernel(5).pad(2).activation(LayerKind::kRelu6),  // blocks
      T().input(1, 48, 28, 28).out_channels(64).kernel(5).pad(2),  // U (F4: 786 KB) past the block budget
  };
  Registry r;
  register_native(r);
  int checked = 0;
  for (const ImplDesc& d : descriptors(r, Library::kNative, LayerKind::kConv2d)) {
    const bool f2 = d.algorithm == Algorithm::kWinogradF2, f4 = d.algorithm == Algorithm::kWinogradF4;
    if (!f2 && !f4 && d.algorithm != Algorithm::kWinogradF6) continue;
    double worst = 0;
    for (const ConvTester& t : shapes) {
      INFO(d.name(), ": ", t.describe());
      const Outcome o = t.Test(r, d);
      CHECK(o.supported == (f2 || f4));
      CHECK(o.reshaped == (f2 || f4));
      worst = std::max(worst, o.error);
    }
    if (f2 || f4) {
      ++checked;
      MESSAGE(d.name(), " on 5x5: worst error ", worst, " of max|ref|");
    }
  }
  CHECK(checked == 16);  // {f2, f4} x {NCHW, NHWC} x {plain, fused} x 2 thread sets
}

// At one thread a block of tiles grows to at least U's bytes of V + M once U outgrows the
// block budget (conv_winograd.cc plan_for): several blocks that each read all of U. At two
// threads the same conv is one block split by positions. Both must match the reference.
TEST_CASE("native Winograd with U past the block budget matches the reference") {
  using T = ConvTester;
  // F(4x4): U 590 KB, V + M 1.2 MB in 8 tile rows; F(2x2): U 262 KB; F(6x6): U 1 MB.
  const std::vector<ConvTester> shapes = {T().input(1, 64, 30, 30).out_channels(64).kernel(3).pad(1),
                                          T().input(1, 64, 29, 31).out_channels(80).kernel(3).pad(1).activation(LayerKind::kRelu)};
  Registry r;
  register_native(r);
  int checked = 0;
  for (const ImplDesc& d : descriptors(r, Library::kNative, LayerKind::kConv2d)) {
    if (d.algorithm != Algorithm::kWinogradF2 && d.algorithm != Algorithm::kWinogradF4 &&
        d.algorithm != Algorithm::kWinogradF6)
      continue;
    for (const ConvTester& t : shapes) {
      INFO(d.name(), ": ", t.describe());
      const Outcome o = t.Test(r, d);
      CHECK(o.supported);
      CHECK(o.reshaped);
      ++checked;
    }
  }
  CHECK(checked == 48);  // 3 tiles x 2 layouts x 2 fusions x 2 thread sets x 2 shapes
}
