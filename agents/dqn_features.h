/// \file
/// What the DQN sees of one candidate: (layer t, impl a) given the impls chosen for the layers
/// before t. The network scores candidates from these features instead of having one output
/// per action index, so what it learns about "an int8 NHWC impl after an f32 NCHW producer"
/// carries over to every layer (and to other networks). Costs are normalised per network
/// (`scale` = ms per unit: the mean per-layer lower bound) so one learning rate fits all.
/// Torch-free: the features are plain floats, tested without LibTorch.
#pragma once
#include <vector>

#include "agents/bounds.h"
#include "env/env.h"

namespace lw {

class CandidateFeatures {
 public:
  explicit CandidateFeatures(const DeploymentEnv& env);
  int size() const { return size_; }
  double scale_ms() const { return scale_; }
  const Problem& problem() const { return env_.problem(); }
  /// Admissible bound (ms) of the cost of layers >= t.
  double to_go(int t) const { return bounds_.to_go[t]; }

  /// Step cost (ms) of impl a at layer t after `assign` (layers < t chosen): impl + memory term +
  /// incoming conversions (+ the output edge at the last layer). +inf when a is not allowed.
  double step_cost(const std::vector<int>& assign, int t, int a) const;
  /// Writes size() floats for candidate (t, a); `step_ms` is step_cost(assign, t, a), finite.
  void write(const std::vector<int>& assign, int t, int a, double step_ms, float* out) const;

 private:
  const DeploymentEnv& env_;
  Bounds bounds_;
  std::vector<double> layer_min_;  // per layer: least latency of an allowed impl
  std::vector<double> ahead_;      // per flat impl: extra cost its output forces on its consumers
  double scale_ = 1;
  int size_ = 0;
};

}  // namespace lw
