// Deployments: executor layer outputs, calibration through the executor, int8 end to end.
#include <doctest/doctest.h>

#include <cmath>

#include "explorer/measure/accuracy.h"
#include "explorer/measure/deployment.h"
#include "libs/exec/assignment.h"
#include "libs/exec/backends.h"
#include "libs/quant/quant.h"
#include "libs/ref/reference.h"
#include "libs/zoo/zoo_builder.h"

using namespace lw;

namespace {
Network small_net() {
  NetBuilder b("small", Shape{1, 3, 20, 20});
  int x = b.act(b.conv(0, 12, 3, 1), LayerKind::kRelu);
  int y = b.act(b.conv(x, 12, 3, 2, 1, 12), LayerKind::kRelu6);
  y = b.conv(y, 16, 1, 1, 0);
  b.fc(b.flatten(b.global_avg_pool(y)), 10);
  Network net = b.finish();
  init_random_weights(net, 5);
  return net;
}

double rel_error(const Tensor& a, const Tensor& b) {
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < b.shape().elements(); ++i) {
    diff = std::max(diff, double(std::abs(a.f32()[i] - b.f32()[i])));
    scale = std::max(scale, double(std::abs(b.f32()[i])));
  }
  return diff / scale;
}
}  // namespace

TEST_CASE("keep_outputs exposes every layer's output, equal to the reference") {
  Network net = small_net();
  const Registry& reg = default_registry();
  std::vector<ImplDesc> a;
  REQUIRE(library_assignment(net, reg, Library::kNative, 1, &a).is_ok());
  int nhwc = 0;
  for (size_t i = 1; i < a.size(); ++i) {  // mix layouts: the first conv is NHWC, so conversions run too
    if (a[i].op != LayerKind::kConv2d || nhwc) continue;
    for (const Candidate& c : reg.candidates(net, int(i)))
      if (c.supported.is_ok() && c.desc.library == Library::kNative && c.desc.layout_in == Layout::kNHWC &&
          !c.desc.fused_activation && c.desc.dtype_in == DType::kF32 && c.desc.threads == 1) {
        a[i] = c.desc;
        ++nhwc;
        break;
      }
  }
  REQUIRE(nhwc == 1);
  PlanOptions po;
  po.registry = &reg;
  po.keep_outputs = true;
  std::unique_ptr<Executor> ex;
  REQUIRE(Executor::plan(net, a, po, &ex).is_ok());
  std::vector<Tensor> samples;
  REQUIRE(calibration_samples(net, 1, &samples).is_ok());
  Tensor y;
  REQUIRE(ex->run(samples[0], &y).is_ok());
  std::vector<Tensor> ref;
  REQUIRE(reference_forward(net, samples[0], &ref).is_ok());
  for (size_t i = 0; i < net.layers.size(); ++i) {
    CAPTURE(net.layers[i].name);
    Tensor t;
    REQUIRE(ex->layer_output(int(i), &t).is_ok());
    REQUIRE(t.shape() == ref[i].shape());
    CHECK(rel_error(t, ref[i]) <= 1e-4);
  }
}

TEST_CASE("calibration through the executor matches calibration through the reference") {
  Network net = small_net();
  std::vector<Tensor> samples;
  REQUIRE(calibration_samples(net, 3, &samples).is_ok());
  std::vector<QuantParams> minmax;
  REQUIRE(calibrate(net, samples, &minmax, CalibrationMethod::kMinMax).is_ok());
  for (CalibrationMethod m : {CalibrationMethod::kMinMax, CalibrationMethod::kMse}) {
    CAPTURE(to_string(m));
    std::vector<QuantParams> fast, slow;
    REQUIRE(calibrate_network(net, default_registry(), samples, &fast, m).is_ok());
    REQUIRE(calibrate(net, samples, &slow, m).is_ok());
    REQUIRE(fast.size() == slow.size());
    for (size_t i = 0; i < fast.size(); ++i) {
      CAPTURE(net.layers[i].name);
      // The two executors' outputs differ in the last bits: a value may land in the next
      // histogram bin, moving an MSE end by one bin of the min / max range at most.
      const double bin = m == CalibrationMethod::kMse ? 2.0 * minmax[i].scale / kCalibrationBins : 0.0;
      CHECK(std::abs(fast[i].scale - slow[i].scale) <= 1e-3 * slow[i].scale + bin);
      CHECK(std::abs(fast[i].zero_point - slow[i].zero_point) <= 1);
    }
  }
}

TEST_CASE("an int8 deployment with calibrated quantisation stays close to f32") {
  Network net = small_net();
  const Registry& reg = default_registry();
  std::vector<Tensor> samples;
  REQUIRE(calibration_samples(net, 8, &samples).is_ok());
  DeploymentOptions o;
  o.registry = &reg;
  REQUIRE(calibrate_network(net, reg, samples, &o.quant).is_ok());
  std::vector<ImplDesc> f32, int8;
  REQUIRE(library_assignment(net, reg, Library::kNative, 1, &f32).is_ok());
  int8 = f32;
  int quantised = 0;
  for (size_t i = 1; i < net.layers.size(); ++i) {
    if (net.layers[i].kind != LayerKind::kConv2d) continue;
    ImplDesc d;
    REQUIRE(parse_impl_name("conv2d_nhwc_int8_xnnpack_default_t1", &d).is_ok());
    if (reg.supports(d, net.layers[i], input_shapes(net, int(i))).is_ok()) {
      int8[i] = d;
      ++quantised;
    }
  }
  REQUIRE(quantised >= 2);
  std::unique_ptr<Executor> a, b;
  REQUIRE(plan_deployment(net, f32, o, &a).is_ok());
  REQUIRE(plan_deployment(net, int8, o, &b).is_ok());
  Forward fa = [&](const Tensor& x, Tensor* y) { return a->run(x, y); };
  Forward fb = [&](const Tensor& x, Tensor* y) { return b->run(x, y); };
  AccuracyReport r;
  REQUIRE(fidelity(fb, fa, fidelity_inputs(net, 8), &r).is_ok());
  CAPTURE(r.label());
  CHECK(r.sqnr_db > 20);  // 8-bit per-tensor on a few layers: tens of dB, not noise
  CHECK(r.sqnr_db < 100);  // and really quantised (an f32 path would be exact)
}
