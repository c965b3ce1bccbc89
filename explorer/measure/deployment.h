/// \file
/// From a search result to a running deployment: the per-layer implementation names a
/// search picked from a LUT become an executor plan on this device, with the LUT's measured
/// converters (so the executor inserts the chains the LUT charged) and int8 quantisation
/// from calibration on the train split (or seeded random inputs for random-weight models).
/// The filter, replay and bench stages all run deployments through here.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "env/lut.h"
#include "env/measure.h"
#include "libs/data/fashion_mnist.h"
#include "libs/exec/executor.h"
#include "libs/ir/network.h"
#include "libs/quant/calibration.h"

namespace lw {

/// Where inputs come from: Fashion-MNIST for its trained models (1x1x32x32 in, 10 classes,
/// weights not Network::random_weights), seeded random inputs for every random-weight model
/// (accuracy becomes fidelity).
enum class DataSource { kFashionMnist, kRandom };
DataSource data_source_for(const Network& net);

/// Calibration inputs: the first `count` train images, or seeded random inputs (a seed range
/// disjoint from the evaluation inputs). Never the test split. `data_dir` holds Fashion-MNIST
/// ("" = fashion_mnist_dir()).
Status calibration_samples(const Network& net, int count, std::vector<Tensor>* out,
                           const std::string& data_dir = "");
/// Evaluation inputs for fidelity (random-weight models): seeded, disjoint from calibration.
std::vector<Tensor> fidelity_inputs(const Network& net, int count);

/// The f32 reference deployment every accuracy figure leans on: native f32 on every layer,
/// one thread (fast, and checked against the naive reference executor in test_deployment).
/// `keep_outputs`: every layer's output stays readable after a run (for calibration).
Status plan_f32_reference(const Network& net, const Registry& registry, bool keep_outputs,
                          std::unique_ptr<Executor>* out);

/// Per-layer output QuantParams from every layer's f32 output over the samples, computed by
/// the f32 reference deployment, by `method` (libs/quant/calibration.h).
Status calibrate_network(const Network& net, const Registry& registry, const std::vector<Tensor>& samples,
                         std::vector<QuantParams>* out, CalibrationMethod method = kDefaultCalibrationMethod);

/// Descriptors for every network layer from one implementation name per LUT layer (the
/// input's entry is ignored). The LUT must describe `net` (same layer names and order).
Status assignment_from_names(const Network& net, const Lut& lut, const std::vector<std::string>& names,
                             std::vector<ImplDesc>* out);
/// The same assignment as impl indices into the LUT (for the cost model), -1 where absent.
std::vector<int> lut_indices(const Lut& lut, const std::vector<std::string>& names);

struct DeploymentOptions {
  const Registry* registry = nullptr;
  const Lut* lut = nullptr;              // measured converters; null = estimated costs
  std::vector<QuantParams> quant;        // from calibrate_network; needed for int8
  bool time_steps = false;
};
Status plan_deployment(const Network& net, const std::vector<ImplDesc>& assignment, const DeploymentOptions& o,
                       std::unique_ptr<Executor>* out);

/// End-to-end latency of a planned deployment under the profiler's protocol.
Status time_deployment(Executor& e, const Tensor& input, const Protocol& p, LatencyStats* out);

}  // namespace lw
