// Baseline deployments on a real (tiny) LUT: each keeps to its library, and the optima
// are never worse than any baseline.
#include <doctest/doctest.h>

#include "explorer/measure/baselines.h"
#include "tests/tiny_profile.h"

using namespace lw;

namespace {
const Lut& tiny_lut() {
  static Lut lut = testing::quick_profile(testing::tiny_conv_net(Shape{1, 8, 14, 14}, "tiny"));
  return lut;
}

const Impl& impl_named(const LutLayer& l, const std::string& name) {
  for (const Impl& m : l.impls)
    if (m.name == name) return m;
  FAIL("no impl " << name);
  return l.impls[0];
}
}  // namespace

TEST_CASE("every baseline keeps to its own library, dtype and thread set") {
  const Lut& lut = tiny_lut();
  for (int t : {1, 2})
    for (const std::string& label : baseline_labels()) {
      CAPTURE(label);
      CAPTURE(t);
      NamedDeployment d;
      Status s = baseline_deployment(lut, label, t, &d);
      REQUIRE_MESSAGE(s.is_ok(), s.message());
      REQUIRE(d.names.size() == lut.layers.size());
      CHECK(d.predicted_ms > 0);
      for (size_t i = 1; i < lut.layers.size(); ++i) {
        const Impl& m = impl_named(lut.layers[i], d.names[i]);
        CHECK(m.ok());
        CHECK(m.threads <= t);
        if (label != "opt-int8" && label != "all-int8" && label != "opt-mixed") CHECK(m.dtype == DType::kF32);
        if (label != "opt-mixed") CHECK(m.dtype != DType::kBF16);  // bf16 only in the mixed optimum
        if (label == "all-int8") {  // int8 exactly where the layer has a usable int8 impl
          bool any_int8 = false;
          for (const Impl& x : lut.layers[i].impls) any_int8 = any_int8 || (x.ok() && x.dtype == DType::kI8 && x.threads <= t);
          CHECK(m.dtype == (any_int8 ? DType::kI8 : DType::kF32));
        }
        if (label == "ref-fp32") {
          CHECK(m.threads == 1);
          if (lut.layers[i].kind == LayerKind::kConv2d) CHECK(d.names[i].find("_openblas_im2col_") != std::string::npos);
        }
        if (label == "native") CHECK((m.library == "native" || m.library == "fused"));
        if (label == "xnnpack" && lut.layers[i].kind == LayerKind::kConv2d) CHECK(m.library == "xnnpack");
        if (label.rfind("torch", 0) == 0 && lut.layers[i].kind == LayerKind::kConv2d) CHECK(m.library == "torch");
      }
    }
}

TEST_CASE("the optima are never worse than any baseline") {
  const Lut& lut = tiny_lut();
  for (int t : {1, 2}) {
    NamedDeployment opt32, opt8;
    REQUIRE(baseline_deployment(lut, "opt-fp32", t, &opt32).is_ok());
    REQUIRE(baseline_deployment(lut, "opt-int8", t, &opt8).is_ok());
    CHECK(opt8.predicted_ms <= opt32.predicted_ms + 1e-9);
    NamedDeployment all8;
    REQUIRE(baseline_deployment(lut, "all-int8", t, &all8).is_ok());
    CHECK(opt8.predicted_ms <= all8.predicted_ms + 1e-9);
    for (const char* label : {"ref-fp32", "native", "xnnpack", "torch-nchw", "torch-nhwc"}) {
      NamedDeployment d;
      REQUIRE(baseline_deployment(lut, label, t, &d).is_ok());
      CHECK(opt32.predicted_ms <= d.predicted_ms + 1e-9);
    }
  }
}

TEST_CASE("a library the LUT lacks is refused, not silently replaced") {
  Lut lut = restrict_lut(tiny_lut(), [](const LutLayer&, const Impl& m) { return m.library != "xnnpack"; });
  NamedDeployment d;
  Status s = baseline_deployment(lut, "xnnpack", 1, &d);
  CHECK(s.code() == StatusCode::kUnsupported);
  CHECK(s.message().find("no usable xnnpack") != std::string::npos);
  CHECK(baseline_deployment(lut, "bogus", 1, &d).code() == StatusCode::kInvalidArgument);
}
