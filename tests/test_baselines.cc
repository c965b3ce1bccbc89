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
    for (const char* label : {"ref-fp32", "native", "xnnpack", "onednn", "torch-nchw", "torch-nhwc"}) {
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
  CHECK(s.message().find("no usable xnnpack implementation (profile with xnnpack)") != std::string::npos);
  CHECK(baseline_deployment(lut, "bogus", 1, &d).code() == StatusCode::kInvalidArgument);
}

namespace {
Impl conv_impl(const std::string& library, const std::string& algorithm) {
  Impl m;  // nchw f32, thread set 1 (format 0 of the LUT below), unfused
  m.name = library + "_" + algorithm;
  m.library = library;
  m.algorithm = algorithm;
  return m;
}

// The rivals named in a skipped impl's reason ("... the median of <name>", once per look).
std::vector<std::string> rivals_in(const std::string& reason) {
  std::vector<std::string> names;
  const std::string key = "the median of ";
  for (size_t at = reason.find(key); at != std::string::npos; at = reason.find(key, at + 1)) {
    size_t from = at + key.size(), to = reason.find_first_of("; ", from);
    names.push_back(reason.substr(from, to == std::string::npos ? std::string::npos : to - from));
  }
  return names;
}
}  // namespace

TEST_CASE("the early stop may only drop an implementation no baseline needs") {
  Lut one_format;
  one_format.formats = {Format{}};
  StopRule rule = baselines_stop_rule();
  auto may_stop = [&](const Impl& slow, const Impl& rival) { return rule(one_format, LayerKind::kConv2d, slow, rival); };
  CHECK_FALSE(may_stop(conv_impl("openblas", "im2col"), conv_impl("native", "im2col")));  // ref-fp32's conv
  CHECK_FALSE(may_stop(conv_impl("openblas", "im2col"), conv_impl("openblas", "gemm_1x1")));
  CHECK_FALSE(may_stop(conv_impl("native", "direct"), conv_impl("onednn", "direct")));  // the native baseline's
  CHECK_FALSE(may_stop(conv_impl("xnnpack", "default"), conv_impl("native", "winograd_f4")));
  CHECK_FALSE(may_stop(conv_impl("torch", "default"), conv_impl("onednn", "direct")));
  CHECK(may_stop(conv_impl("native", "direct"), conv_impl("native", "winograd_f4")));
  CHECK_FALSE(may_stop(conv_impl("onednn", "direct"), conv_impl("native", "im2col")));  // the onednn baseline's
  CHECK(may_stop(conv_impl("onednn", "direct"), conv_impl("onednn", "default")));
  CHECK_FALSE(rule(one_format, LayerKind::kRelu6, conv_impl("native", "default"), conv_impl("xnnpack", "default")));

  // On a real profile with the stop at (almost) no margin, so that every slower impl is
  // dropped: every baseline is still planned from usable impls, ref-fp32's conv never
  // stopped, and each stop's rival is one the rule accepts.
  ProfileOptions o;
  o.threads = {1};
  o.protocol.warmup = 0;
  o.protocol.runs = o.protocol.max_runs = 4;
  o.protocol.early_stop_margin = 1e-6;
  o.stop_rule = rule;
  Lut lut;
  REQUIRE(profile_network(testing::tiny_conv_net(Shape{1, 8, 14, 14}, "tiny"), default_registry(), o, &lut).is_ok());
  int skipped = 0;
  for (size_t i = 1; i < lut.layers.size(); ++i)
    for (const Impl& m : lut.layers[i].impls) {
      if (m.library == "openblas" && m.algorithm == "im2col" && !m.fused_activation)  // ref-fp32's
        CHECK(m.status != ImplStatus::kSkipped);
      if (m.status != ImplStatus::kSkipped) continue;
      ++skipped;
      CAPTURE(m.reason);
      std::vector<std::string> rivals = rivals_in(m.reason);
      CHECK(rivals.size() == 2);
      for (const std::string& r : rivals) CHECK(rule(lut, lut.layers[i].kind, m, impl_named(lut.layers[i], r)));
    }
  CHECK(skipped > 0);  // the stop did stop something, so the checks above were exercised
  for (const char* label : {"ref-fp32", "native", "xnnpack", "onednn", "torch-nchw", "torch-nhwc", "opt-fp32"}) {
    CAPTURE(label);
    NamedDeployment d;
    Status s = baseline_deployment(lut, label, 1, &d);
    REQUIRE_MESSAGE(s.is_ok(), s.message());
    for (size_t i = 1; i < lut.layers.size(); ++i) CHECK(impl_named(lut.layers[i], d.names[i]).ok());
  }
}
