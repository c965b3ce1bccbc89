// `lut refine` (explorer/measure/in_network.h) on a real (tiny) LUT: the contenders are timed
// inside network inferences and their in-network medians replace their latencies, the alone
// figures stay beside them, nothing else changes, and the LUT keeps reading back.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "tests/tiny_profile.h"
#include "explorer/measure/baselines.h"
#include "explorer/measure/in_network.h"
#include "libs/exec/backends.h"

using namespace lw;

namespace {

const testing::ProfiledNet& tiny() {
  static const testing::ProfiledNet t =
      testing::profiled(testing::tiny_conv_net(Shape{1, 8, 14, 14}, "tiny_in_network"));
  return t;
}

InNetworkOptions options() {
  InNetworkOptions o;
  o.registry = &default_registry();
  o.rounds = 3;
  o.calibration_samples = 2;
  return o;
}

bool pseudo(const Impl& m) { return m.library == "fused" || m.library == "input"; }

}  // namespace

TEST_CASE("an implementation's signature is its name without the layer kind") {
  CHECK(impl_signature("conv2d_nchw8c_f32_onednn_default_fused_t1") == "nchw8c_f32_onednn_default_fused_t1");
  CHECK(impl_signature("global-avg-pool_nhwc_f32_xnnpack_default_t2") == "nhwc_f32_xnnpack_default_t2");
  CHECK(impl_signature("conv2d_nchw-nchw8c_f32_onednn_default_t1") == "nchw-nchw8c_f32_onednn_default_t1");
  CHECK(impl_signature("input") == "input");
}

TEST_CASE("the alone figure of a refined implementation reads back; others have none") {
  Lut lut = tiny().lut;
  Impl* refined = nullptr;
  for (Impl& m : lut.layers[1].impls)
    if (m.ok() && !refined) refined = &m;
  REQUIRE(refined);
  refined->alone_ms = refined->latency_ms;
  refined->latency_ms.median = 0.5 * refined->alone_ms->median;
  refined->latency_ms.runs = 7;
  Lut back;
  Status s = lut_from_json(lut_to_json(lut), "mem", &back);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  for (size_t i = 1; i < lut.layers.size(); ++i)
    for (size_t k = 0; k < lut.layers[i].impls.size(); ++k) {
      const Impl &a = lut.layers[i].impls[k], &b = back.layers[i].impls[k];
      REQUIRE(a.alone_ms.has_value() == b.alone_ms.has_value());
      CHECK(b.latency_ms.median == doctest::Approx(a.latency_ms.median));
      if (a.alone_ms) {
        CHECK(b.alone_ms->median == doctest::Approx(a.alone_ms->median));
        CHECK(b.alone_ms->runs == a.alone_ms->runs);
        CHECK(b.latency_ms.runs == 7);
      }
    }
  // A malformed alone figure is an error naming its path, like any other.
  nlohmann::json j = nlohmann::json::parse(lut_to_json(lut));
  j["layers"][1]["impls"][0]["alone_latency_ms"]["median"] = "fast";
  Lut bad;
  Status e = lut_from_json(j.dump(), "bad.json", &bad);
  REQUIRE_FALSE(e.is_ok());
  CHECK(e.message().find("bad.json") != std::string::npos);
  CHECK(e.message().find("/layers/1/impls/0/alone_latency_ms/median") != std::string::npos);
}

TEST_CASE("refine times each layer's fastest implementation in the network and keeps the rest") {
  const Lut& before = tiny().lut;
  Lut lut = before;
  InNetworkReport report;
  Status s = refine_in_network(tiny().net, options(), &lut, &report);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  CHECK(report.deployments > 0);
  CHECK(report.refined > 0);
  for (const std::string& f : report.failed) CHECK_MESSAGE(false, "not run: " << f);
  int refined = 0;
  for (size_t i = 1; i < lut.layers.size(); ++i) {
    CAPTURE(lut.layers[i].name);
    double fastest_t1 = std::numeric_limits<double>::infinity();
    std::string fastest_name;
    for (const Impl& m : before.layers[i].impls)
      if (m.ok() && !pseudo(m) && m.threads == 1 && m.latency_ms.median < fastest_t1)
        fastest_t1 = m.latency_ms.median, fastest_name = m.name;
    CAPTURE(fastest_name);
    bool fastest_refined = !std::isfinite(fastest_t1);
    for (size_t k = 0; k < lut.layers[i].impls.size(); ++k) {
      const Impl &a = before.layers[i].impls[k], &b = lut.layers[i].impls[k];
      CAPTURE(b.name);
      REQUIRE(a.name == b.name);
      CHECK(a.status == b.status);
      if (!b.alone_ms) {  // not run in the network: untouched
        CHECK(b.latency_ms.median == a.latency_ms.median);
        CHECK(b.latency_ms.runs == a.latency_ms.runs);
        continue;
      }
      ++refined;
      CHECK(b.ok());
      CHECK_FALSE(pseudo(b));
      CHECK(b.alone_ms->median == a.latency_ms.median);
      CHECK(b.latency_ms.runs >= 3);
      CHECK(b.latency_ms.median > 0);
      CHECK(b.latency_ms.min <= b.latency_ms.median);
      if (b.threads == 1 && a.latency_ms.median == fastest_t1) fastest_refined = true;
    }
    // On one thread every step runs on the caller, so no step is left out for a hand-off:
    // each layer's fastest implementation is a contender and runs in its signature's deployment.
    CHECK(fastest_refined);
  }
  CHECK(refined == report.refined);
  nlohmann::json protocol = nlohmann::json::parse(lut.protocol_json);
  REQUIRE(protocol.contains("in_network"));
  CHECK(protocol["in_network"]["deployments"] == report.deployments);
  CHECK(protocol["in_network"]["rounds"] == 3);
  for (const auto& entry : report.ratio_by_library) {  // (a structured binding cannot be captured in C++17)
    const std::string& lib = entry.first;
    CAPTURE(lib);
    CHECK(entry.second.first > 0);
    CHECK(entry.second.second > 0);
  }

  // The search reads the refined figures: the f32 optimum's prediction is the refined cost.
  NamedDeployment d;
  REQUIRE(baseline_deployment(lut, "opt-fp32", 1, &d).is_ok());
  CHECK(d.predicted_ms > 0);

  // Refining again times anew but keeps the first alone figure.
  Lut twice = lut;
  InNetworkReport again;
  REQUIRE(refine_in_network(tiny().net, options(), &twice, &again).is_ok());
  for (size_t i = 1; i < twice.layers.size(); ++i)
    for (size_t k = 0; k < twice.layers[i].impls.size(); ++k)
      if (lut.layers[i].impls[k].alone_ms && twice.layers[i].impls[k].alone_ms)
        CHECK(twice.layers[i].impls[k].alone_ms->median == lut.layers[i].impls[k].alone_ms->median);
}

TEST_CASE("refine refuses fewer than three rounds and a missing registry") {
  Lut lut = tiny().lut;
  InNetworkReport report;
  InNetworkOptions o = options();
  o.rounds = 2;
  CHECK_FALSE(refine_in_network(tiny().net, o, &lut, &report).is_ok());
  o = options();
  o.registry = nullptr;
  CHECK_FALSE(refine_in_network(tiny().net, o, &lut, &report).is_ok());
}
