/// \file
/// DeploymentEnv: the search problem as a Gymnasium-style episodic environment. An episode
/// visits the layers in topological order; each action picks the implementation of the
/// current layer. Reward shaping follows QS-DNN: a step returns minus (the layer's latency +
/// the conversion costs of all its incoming edges given the producers already chosen, + the
/// output conversion at the last layer), so the undiscounted return is minus the network
/// latency (env/cost.h). Options add a memory term and hard constraints.
///
/// Hot path: step() does no allocation and touches only flat tables, so tabular agents run
/// millions of steps per second.
#pragma once
#include <cstdint>
#include <vector>

#include "env/cost.h"

namespace lw {

constexpr double kDefaultMemoryWeightMsPerMiB = 0.0;
constexpr int64_t kNoLayerMemoryLimit = 0;

struct EnvOptions {
  /// Adds memory to the cost: reward -= weight * (weights + workspace + output of the chosen
  /// impl, MiB) (the TASO eq. 13 term). 0 = latency only (QS-DNN).
  double memory_weight_ms_per_mib = kDefaultMemoryWeightMsPerMiB;
  /// Hard constraint: impls whose weights + workspace + output exceed this are masked out.
  /// 0 = no limit.
  int64_t max_layer_memory_bytes = kNoLayerMemoryLimit;
  /// Hard constraint on the deployment's peak memory (predict_memory_bytes: weights + largest
  /// workspace + live activations): an impl is masked when even the cheapest completion would
  /// exceed it, so every finished episode meets it (an episode can dead-end). 0 = no limit.
  int64_t max_memory_bytes = kNoLayerMemoryLimit;
};

/// What an agent observes before choosing the implementation of `layer`.
struct Observation {
  int layer = 0;      // current layer (depth in the episode)
  int prev = -1;      // impl chosen for layer - 1, -1 at layer 0
  int64_t key = 0;    // QS-DNN state: 0 at layer 0, else 1 + flat index of the previous choice
  /// Markov state of the latency objective: a hash of the layer and of the output class
  /// (DeploymentEnv::output_class) of every chosen producer still read at or after it. The
  /// reward of every remaining step depends on nothing else, so two prefixes with the same
  /// frontier have the same future; the previous layer's impl is neither necessary (impls
  /// that deliver the same format are interchangeable) nor sufficient (on a DAG the previous
  /// layer is often not the producer: GoogLeNet, 27 of 140 layers). A producer with several
  /// consumers adds the formats it was already converted to (a later consumer reading one of
  /// them pays nothing). Markov for the latency objective only: under max_memory_bytes the
  /// mask also depends on the memory used so far (memory_limited()).
  uint64_t frontier = 0;
};

struct StepInfo {
  double latency_ms = 0;  // this step's latency contribution (impl + incoming conversions)
};

struct StepResult {
  Observation obs;
  double reward = 0;
  bool terminated = false;  // every layer has an implementation
  bool truncated = false;   // never set: episodes have a fixed length (kept for the Gymnasium shape)
  StepInfo info;
};

class DeploymentEnv {
 public:
  DeploymentEnv(const Problem& problem, EnvOptions options = {});

  /// Gymnasium reset: the environment is deterministic, the seed is accepted for the API shape.
  Observation reset(uint64_t seed = 0);
  /// Chooses implementation `action` for the current layer. The action must be allowed by
  /// action_mask() (checked: an agent that ignores the mask is a programmer error).
  StepResult step(int action);

  /// 1 = implementation `a` may be chosen for the current layer: status ok, not pruned, within
  /// the hard constraints and with finite conversion costs from the producers already chosen.
  const std::vector<uint8_t>& action_mask() const { return mask_; }
  bool allowed(int a) const { return mask_[a] != 0; }
  /// allowed(a) but for the peak-memory limit: a function of the frontier state.
  bool edge_allowed(int a) const { return edge_mask_[a] != 0; }
  /// A peak-memory limit is set: masks depend on the history, not only on the frontier.
  bool memory_limited() const { return options_.max_memory_bytes > 0; }
  /// No allowed action at the current layer (possible only under the peak-memory limit).
  bool dead_end() const;
  /// Within the peak-memory limit (if any) by the bound the mask uses, for impl b at layer t
  /// after assign[0 .. t-1]: for searches that do not step the env (graph searches). O(t).
  bool memory_allows(const int* assign, int t, int b) const;
  int num_actions() const { return problem_.actions(layer_); }

  /// Allowed whatever the other choices: usable and within the hard constraints (flat index).
  bool statically_allowed(int flat) const { return problem_.usable[flat] && constraint_ok_[flat]; }
  /// The memory term of the reward for one impl (flat index), ms.
  double extra_ms(int flat) const { return extra_ms_[flat]; }

  /// Reward of `action` now, without stepping (what greedy/DS+ and graph searches score).
  double step_cost(int action) const;

  /// Class of an impl (flat index) by its outgoing costs: two impls of a layer share a class
  /// exactly when every consumer's conversion costs from them are equal (same output format
  /// and fused flag, in practice). Impls of a layer without consumers share class 0.
  int output_class(int flat) const { return out_class_[flat]; }
  /// Chosen producers whose output is still read at or after `layer` ([begin, end) of live()).
  const int* live_begin(int layer) const { return live_.data() + live_at_[layer]; }
  const int* live_end(int layer) const { return live_.data() + live_at_[layer + 1]; }

  /// Observation as a vector for DQN: one-hot layer kind, depth and position (scaled to [0,1]),
  /// one-hot Table I fields of the previous choice, multi-hot formats of the current layer's
  /// chosen producers. Writes obs_size() floats.
  int obs_size() const { return obs_size_; }
  void observation_vector(float* out) const;

  int layer() const { return layer_; }
  bool done() const { return layer_ >= problem_.n; }
  /// Impls chosen so far (index within each layer; -1 = not yet).
  const std::vector<int>& assignment() const { return assign_; }
  /// Latency so far (impls + edges, and the output edge once terminated), ms.
  double latency_ms() const { return latency_; }
  const Problem& problem() const { return problem_; }
  const EnvOptions& options() const { return options_; }
  /// Number of step() calls since construction (agents report it as states considered).
  int64_t total_steps() const { return steps_; }

 private:
  void update_mask();
  Observation observe() const;
  void build_frontier_tables();
  void build_memory_tables();
  int64_t memory_bound(int flat) const;
  void account_memory(int flat);

  const Problem& problem_;
  EnvOptions options_;
  std::vector<double> extra_ms_;      // memory term per flat impl
  std::vector<uint8_t> constraint_ok_;  // hard constraints per flat impl
  std::vector<int> out_class_;          // per flat impl, see output_class()
  std::vector<int> live_, live_at_;     // per layer, the producers still read (CSR)
  std::vector<int> assign_;
  std::vector<uint8_t> mask_, edge_mask_;
  // Peak-memory tracking (predict_memory_bytes, step by step) and bounds of the rest.
  std::vector<int> freed_, freed_at_;  // CSR: layers whose output dies after step t
  std::vector<int64_t> rest_weights_, rest_workspace_;  // least weights sum / largest least workspace of layers >= t
  int64_t weights_ = 0, workspace_ = 0, live_bytes_ = 0, peak_ = 0;
  int layer_ = 0;
  double latency_ = 0;
  int64_t steps_ = 0;
  int obs_size_ = 0;
};

}  // namespace lw
