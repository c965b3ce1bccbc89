#include "explorer/measure/deployment.h"

#include <algorithm>
#include <limits>
#include <random>

#include "env/conversion_costs.h"
#include "libs/data/fashion_mnist.h"
#include "libs/exec/assignment.h"
#include "libs/quant/quant.h"

namespace lw {

namespace {
// Seed ranges of the two random input sets, far apart so they never overlap.
constexpr uint64_t kCalibrationSeed = 1000;
constexpr uint64_t kFidelitySeed = 9000000;

Tensor seeded_input(const Shape& s, uint64_t seed) {
  Tensor t = Tensor::create(s);
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < s.elements(); ++i) t.f32()[i] = float((rng() >> 11) * (2.0 / 9007199254740992.0) - 1.0);
  return t;
}
}  // namespace

DataSource data_source_for(const Network& net) {
  Shape in = net.input_shape(), out = net.output_shape();
  bool fmnist = !net.random_weights && in.c == 1 && in.h == kFashionMnistCanvas && in.w == kFashionMnistCanvas &&
                out.elements() == out.n * kFashionMnistClasses;
  return fmnist ? DataSource::kFashionMnist : DataSource::kRandom;
}

Status calibration_samples(const Network& net, int count, std::vector<Tensor>* out, const std::string& data_dir) {
  out->clear();
  if (data_source_for(net) == DataSource::kRandom) {
    for (int i = 0; i < count; ++i) out->push_back(seeded_input(net.input_shape(), kCalibrationSeed + i));
    return Status::ok();
  }
  FashionMnist train;
  LW_RETURN_IF_ERROR(load_fashion_mnist(Split::kTrain, &train, data_dir));
  for (int i = 0; i < std::min(count, train.count); ++i) out->push_back(fashion_mnist_batch(train, i, 1));
  return Status::ok();
}

std::vector<Tensor> fidelity_inputs(const Network& net, int count) {
  std::vector<Tensor> v;
  for (int i = 0; i < count; ++i) v.push_back(seeded_input(net.input_shape(), kFidelitySeed + i));
  return v;
}

Status plan_f32_reference(const Network& net, const Registry& registry, bool keep_outputs,
                          std::unique_ptr<Executor>* out) {
  std::vector<ImplDesc> f32;
  LW_RETURN_IF_ERROR(library_assignment(net, registry, Library::kNative, 1, &f32));
  PlanOptions po;
  po.registry = &registry;
  po.keep_outputs = keep_outputs;
  return Executor::plan(net, f32, po, out);
}

Status calibrate_network(const Network& net, const Registry& registry, const std::vector<Tensor>& samples,
                         std::vector<QuantParams>* out, CalibrationMethod method) {
  if (samples.empty()) return invalid_argument("calibration needs at least one sample");
  std::unique_ptr<Executor> ex;
  LW_RETURN_IF_ERROR(plan_f32_reference(net, registry, true, &ex));
  Calibrator c(net.layers.size(), method);
  Tensor y, t;
  for (int pass = 0; pass < c.passes(); ++pass) {
    for (const Tensor& x : samples) {
      LW_RETURN_IF_ERROR(ex->run(x, &y));
      for (size_t i = 0; i < net.layers.size(); ++i) {
        LW_RETURN_IF_ERROR(ex->layer_output(int(i), &t));
        c.observe(pass, i, t.f32(), t.shape().elements());
      }
    }
  }
  *out = c.params();
  return Status::ok();
}

Status assignment_from_names(const Network& net, const Lut& lut, const std::vector<std::string>& names,
                             std::vector<ImplDesc>* out) {
  if (names.size() != net.layers.size() || lut.layers.size() != net.layers.size())
    return invalid_argument("assignment of " + std::to_string(names.size()) + " layers, LUT of " +
                            std::to_string(lut.layers.size()) + ", network '" + net.name + "' of " +
                            std::to_string(net.layers.size()));
  std::vector<ImplDesc> a(net.layers.size());
  for (size_t i = 1; i < net.layers.size(); ++i) {
    if (lut.layers[i].name != net.layers[i].name)
      return invalid_argument("LUT layer " + std::to_string(i) + " is '" + lut.layers[i].name + "', network has '" +
                              net.layers[i].name + "'");
    Status s = parse_impl_name(names[i], &a[i]);
    if (!s.is_ok()) return invalid_argument("layer '" + net.layers[i].name + "': " + s.message());
  }
  *out = std::move(a);
  return Status::ok();
}

std::vector<int> lut_indices(const Lut& lut, const std::vector<std::string>& names) {
  std::vector<int> idx(names.size(), -1);
  for (size_t i = 0; i < names.size() && i < lut.layers.size(); ++i) {
    const auto& impls = lut.layers[i].impls;
    for (size_t k = 0; k < impls.size(); ++k)
      if (impls[k].name == names[i]) idx[i] = int(k);
  }
  if (!idx.empty() && idx[0] < 0) idx[0] = 0;  // the input has one pseudo-implementation
  return idx;
}

Status plan_deployment(const Network& net, const std::vector<ImplDesc>& assignment, const DeploymentOptions& o,
                       std::unique_ptr<Executor>* out) {
  PlanOptions po;
  po.registry = o.registry;
  po.quant = o.quant;
  po.time_steps = o.time_steps;
  if (o.lut && !o.lut->converters.empty()) po.conversion_cost = lut_conversion_cost(*o.lut);
  // The output conversion the LUT charged (env/cost.h), not one to the last layer's thread set.
  if (o.lut && size_t(o.lut->output_format) < o.lut->formats.size()) po.output_format = o.lut->formats[o.lut->output_format];
  return Executor::plan(net, assignment, po, out);
}

Status time_deployment(Executor& e, const Tensor& input, const Protocol& p, LatencyStats* out) {
  ScopedPin pin;  // once for all runs, not per run (libs/ops/thread_pool.h)
  Tensor y;
  return measure(p, [&] { return e.run(input, &y); }, out);
}

}  // namespace lw
