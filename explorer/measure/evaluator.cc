#include "explorer/measure/evaluator.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "env/device.h"
#include "env/profiler.h"
#include "explorer/measure/baselines.h"
#include "explorer/measure/deployment.h"
#include "libs/ops/thread_pool.h"
#include "libs/data/fashion_mnist.h"
#include "libs/data/npy.h"
#include "libs/exec/assignment.h"

namespace lw {

struct Evaluator::State {
  const Network* net = nullptr;
  const Lut* lut = nullptr;
  EvalOptions o;
  Problem problem;
  std::vector<QuantParams> quant;
  std::string metric;
  FashionMnist test;                  // top1 on Fashion-MNIST
  std::vector<Tensor> user_inputs;    // top1 on the user's data
  std::vector<int64_t> user_labels;
  std::vector<Tensor> inputs, ref;    // fidelity: inputs and the f32 reference outputs
  Tensor sample;
};

Evaluator::Evaluator(std::unique_ptr<State> s) : s_(std::move(s)) {}
Evaluator::~Evaluator() = default;
const std::string& Evaluator::metric() const { return s_->metric; }
const std::vector<QuantParams>& Evaluator::quant() const { return s_->quant; }
const Network& Evaluator::network() const { return *s_->net; }
const Lut& Evaluator::lut() const { return *s_->lut; }
const Problem& Evaluator::problem() const { return s_->problem; }
const EvalOptions& Evaluator::options() const { return s_->o; }
const Tensor& Evaluator::sample() const { return s_->sample; }

namespace {

// The f32 reference of fidelity (plan_f32_reference), run once per input.
Status reference_outputs(const Network& net, const Registry& reg, const std::vector<Tensor>& inputs,
                         std::vector<Tensor>* out) {
  std::unique_ptr<Executor> ex;
  LW_RETURN_IF_ERROR(plan_f32_reference(net, reg, false, &ex));
  out->assign(inputs.size(), Tensor());
  for (size_t i = 0; i < inputs.size(); ++i) LW_RETURN_IF_ERROR(ex->run(inputs[i], &(*out)[i]));
  return Status::ok();
}

}  // namespace

Status Evaluator::create(const Network& net, const Lut& lut, const EvalOptions& o, std::unique_ptr<Evaluator>* out) {
  if (!o.registry) return invalid_argument("evaluator: no registry");
  const std::string why = lut_unusable_here(lut, net, *o.registry);
  if (!why.empty()) return invalid_argument("the LUT does not describe network '" + net.name + "': " + why);
  auto s = std::make_unique<State>();
  s->net = &net;
  s->lut = &lut;
  s->o = o;
  s->o.data_dir = fashion_mnist_dir(o.data_dir);
  LW_RETURN_IF_ERROR(compile_problem(lut, &s->problem));
  if (o.eval_inputs.empty() != o.eval_labels.empty())
    return invalid_argument("the user's evaluation data needs both eval_inputs and eval_labels");
  if (!o.eval_inputs.empty() && o.calibration_inputs.empty())
    return invalid_argument("with eval_inputs, give calibration_inputs too (calibrating on the evaluation data would flatter int8)");
  if (!o.eval_inputs.empty()) {
    s->metric = "top1";
    LW_RETURN_IF_ERROR(read_npy_samples(o.eval_inputs, net.input_shape(), &s->user_inputs));
    LW_RETURN_IF_ERROR(read_npy_labels(o.eval_labels, int64_t(s->user_inputs.size()), &s->user_labels));
    if (s->o.test_images <= 0 || s->o.test_images > int(s->user_inputs.size())) s->o.test_images = int(s->user_inputs.size());
    s->sample = s->user_inputs[0];
  } else if (data_source_for(net) == DataSource::kFashionMnist) {
    s->metric = "top1";
    // The test split first: a missing dataset fails before any calibration work.
    LW_RETURN_IF_ERROR(load_fashion_mnist(Split::kTest, &s->test, s->o.data_dir));
    if (s->o.test_images <= 0 || s->o.test_images > s->test.count) s->o.test_images = s->test.count;
    s->sample = fashion_mnist_batch(s->test, 0, 1);
  } else {
    s->metric = "fidelity";
    if (s->o.fidelity_inputs < 1) return invalid_argument("fidelity needs at least one input");
    s->inputs = fidelity_inputs(net, s->o.fidelity_inputs);
    LW_RETURN_IF_ERROR(reference_outputs(net, *o.registry, s->inputs, &s->ref));
    s->sample = s->inputs[0];
  }
  std::vector<Tensor> calib;
  if (!o.calibration_inputs.empty()) {
    LW_RETURN_IF_ERROR(read_npy_samples(o.calibration_inputs, net.input_shape(), &calib));
    if (int(calib.size()) > std::max(1, o.calibration_images)) calib.resize(size_t(std::max(1, o.calibration_images)));
  } else {
    LW_RETURN_IF_ERROR(calibration_samples(net, std::max(1, o.calibration_images), &calib, s->o.data_dir));
  }
  LW_RETURN_IF_ERROR(calibrate_network(net, *o.registry, calib, &s->quant, o.calibration_method));
  out->reset(new Evaluator(std::move(s)));
  return Status::ok();
}

Status Evaluator::predict(const std::vector<std::string>& names, Measurement* out) const {
  const Lut& lut = *s_->lut;
  if (names.size() != lut.layers.size())
    return invalid_argument("deployment of " + std::to_string(names.size()) + " layers, LUT of " +
                            std::to_string(lut.layers.size()));
  std::vector<int> idx = lut_indices(lut, names);
  out->int8_layers = out->f32_layers = out->bf16_layers = 0;
  for (size_t i = 1; i < idx.size(); ++i) {
    if (idx[i] < 0) return invalid_argument("layer '" + lut.layers[i].name + "': '" + names[i] + "' is not in the LUT");
    const Impl& m = lut.layers[i].impls[idx[i]];
    if (m.is_fused_consumer()) continue;  // computed by its producer
    (m.dtype == DType::kF32 ? out->f32_layers : m.dtype == DType::kBF16 ? out->bf16_layers : out->int8_layers) += 1;
  }
  out->names = names;
  out->predicted_ms = predict_latency_ms(s_->problem, idx);
  out->predicted_memory_bytes = double(predict_memory_bytes(s_->problem, idx));
  return Status::ok();
}

Status Evaluator::plan(const std::vector<std::string>& names, bool time_steps, std::unique_ptr<Executor>* out) const {
  const State& s = *s_;
  std::vector<ImplDesc> a;
  LW_RETURN_IF_ERROR(assignment_from_names(*s.net, *s.lut, names, &a));
  DeploymentOptions d;
  d.registry = s.o.registry;
  d.lut = s.lut;
  d.quant = s.quant;
  d.time_steps = time_steps;
  return plan_deployment(*s.net, a, d, out);
}

Status Evaluator::prepare(const std::string& label, const std::vector<std::string>& names, PreparedDeployment* out) {
  State& s = *s_;
  auto fail = [&](const Status& st) { return Status(st.code(), label + ": " + st.message()); };
  PreparedDeployment d;
  d.m.label = label;
  Status st = predict(names, &d.m);
  if (!st.is_ok()) return fail(st);
  if (!(st = plan(names, false, &d.ex)).is_ok()) return fail(st);
  d.m.memory = d.ex->memory();
  const int total = s.metric == "top1" ? s.o.test_images : int(s.inputs.size());
  int done = 0;
  Executor& ex = *d.ex;
  Forward f = [&](const Tensor& x, Tensor* y) {
    if (s.o.progress && ++done % 64 == 0) s.o.progress(label, double(done) / total);
    return ex.run(x, y);
  };
  if (!s.user_inputs.empty()) {
    st = top1_accuracy(f, s.user_inputs, s.user_labels, s.o.test_images, &d.m.accuracy);
  } else if (s.metric == "top1") {
    st = top1_accuracy(f, s.test, 0, s.o.test_images, &d.m.accuracy);
  } else {
    // The reference outputs were computed once; x is an element of s.inputs.
    Forward ref = [&](const Tensor& x, Tensor* y) {
      *y = s.ref[size_t(&x - s.inputs.data())];
      return Status::ok();
    };
    st = fidelity(f, ref, s.inputs, &d.m.accuracy);
  }
  if (!st.is_ok()) return fail(st);
  *out = std::move(d);
  return Status::ok();
}

Status Evaluator::time_interleaved(const std::vector<PreparedDeployment*>& which, int rounds) {
  using clock = std::chrono::steady_clock;
  ScopedPin pin;  // once for the window, not per run (libs/ops/thread_pool.h)
  Tensor y;
  for (int r = 0; r < rounds; ++r)
    for (PreparedDeployment* d : which) {
      // An untimed run first, so the timed one finds the deployment's weights and code as
      // repeated inference leaves them, not as the deployment before evicted them (as bench),
      // and a fresh plan's first-run costs (its arena's first touch) fall outside the timing.
      LW_RETURN_IF_ERROR(d->ex->run(s_->sample, &y));
      // Every run starts with the pools parked, as the cost model charges it (the hand-off from
      // the caller into the first 2-thread step), not with the previous deployment's spinning.
      release_all_pools();
      auto t0 = clock::now();
      LW_RETURN_IF_ERROR(d->ex->run(s_->sample, &y));
      d->samples_ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
    }
  for (PreparedDeployment* d : which) d->m.latency = latency_stats(d->samples_ms);
  return Status::ok();
}

Status Evaluator::measure(const std::string& label, const std::vector<std::string>& names, Measurement* out,
                          const Protocol* timing) {
  PreparedDeployment d;
  LW_RETURN_IF_ERROR(prepare(label, names, &d));
  Status st = time_deployment(*d.ex, s_->sample, timing ? *timing : s_->o.timing, &d.m.latency);
  if (!st.is_ok()) return Status(st.code(), label + ": " + st.message());
  *out = std::move(d.m);
  return Status::ok();
}

}  // namespace lw
