/// \file
/// The experiment config: one JSON file drives the whole pipeline
/// (profile → search → filter → pareto → replay). Every key is listed in README.md
/// ("Experiment configs"); defaults are the named constants below; unknown keys and wrong
/// types are rejected with the file and the JSON path. The fully resolved config is written
/// next to the results so a run can be repeated exactly.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "explorer/measure/evaluator.h"
#include "libs/core/status.h"

namespace lw {

// Defaults (QS-DNN §V and §VI where the paper gives one). The measurement protocol's are
// Protocol's own (env/measure.h); the evaluation subsets' are the Evaluator's.
constexpr double kDefaultLatencyBandPct = 25; // filter keeps candidates within this of the fastest
constexpr double kDefaultMaxAccuracyDropPct = 1.0;
constexpr int kDefaultFilterCandidates = 16;  // at most this many candidates measured on device
constexpr int kDefaultReplayRuns = 20;
/// The replay's timed runs last at least this long in all (more runs than `runs` for a small
/// network): the quickstart network's 20 runs span a few ms, and in 3 of 22 quickstart runs
/// a stall of the shared host filled them (0.139-0.184 ms against 0.125-0.138, CV 0.17-0.20).
constexpr double kDefaultReplayMinSeconds = 1.0;
constexpr const char* kDefaultAgent = "qlearning";
constexpr const char* kDefaultProtocolBase = kQuickProtocol;  // as `layerwise profile`
constexpr const char* kDefaultOutputDir = "results";

struct AgentSpec {
  std::string name;        // registry name: qlearning, dqn, random, greedy, ...
  nlohmann::json params;   // the agent's own hyperparameters, validated by the agent
};

struct ExperimentConfig {
  std::string name;                    // experiment name (run ids start with the model name)
  std::string model;                   // zoo name or network .json path
  std::vector<std::string> libraries;  // libraries to profile; empty = all available
  std::vector<int> threads{1, 2};      // thread sets: 1 = cpu0, 2 = cpu0-1
  // profile
  // "protocol": the base the other "profile" keys change (`profile`'s quick one, or the
  // paper's "exhaustive"); then warmup, runs, cv_threshold, max_runs, max_seconds, median_ci,
  // early_stop, cold_cache, weight_age, far_wait_s, computing_us.
  std::string protocol_base = kDefaultProtocolBase;
  Protocol protocol = quick_protocol();
  std::string lut_file;                // a LUT from `layerwise profile` to use instead of profiling
  int in_network_rounds = 0;           // `lut refine` after profiling, rounds per deployment (0: off)
  // search
  std::string objective = "latency";   // latency | weighted (latency + memory_weight x MiB)
  double memory_weight_ms_per_mib = 0; // only for "weighted": reward = -(ms + w * MiB)
  std::optional<double> max_memory_mib;  // hard constraint in the search and the filter
  std::vector<AgentSpec> agents;
  std::vector<uint64_t> seeds{1};
  // filter / accuracy
  double latency_band_pct = kDefaultLatencyBandPct;
  double max_accuracy_drop_pct = kDefaultMaxAccuracyDropPct;
  int filter_candidates = kDefaultFilterCandidates;
  int test_images = kDefaultTestImages;
  int calibration_images = kDefaultCalibrationImages;
  CalibrationMethod calibration_method = kDefaultCalibrationMethod;
  int fidelity_inputs = kDefaultFidelityInputs;
  std::string eval_inputs, eval_labels, calibration_inputs;  // the user's data (.npy); "" = none
  // replay
  int replay_runs = kDefaultReplayRuns;
  double replay_min_seconds = kDefaultReplayMinSeconds;
  /// Time the chosen deployment's implementations again during the replay (replay --recheck):
  /// summary.md then tells the device's drift since profiling from the cost model's own miss.
  bool replay_recheck = true;
  // export: the chosen deployment as <run>/deployment.lwb for the runtime API (on by default:
  // the point of a run is a deployment that leaves the explorer)
  bool export_bundle = true;
  std::string output_dir = kDefaultOutputDir;
};

/// Names the config may use, supplied by the components that own them.
struct ConfigVocabulary {
  std::vector<std::string> libraries;
  std::vector<std::string> agents;
};

Status parse_config(const std::string& text, const std::string& origin, const ConfigVocabulary& vocab,
                    ExperimentConfig* out);
Status load_config(const std::string& path, const ConfigVocabulary& vocab, ExperimentConfig* out);
/// Every field, defaults filled in: what results/<run-id>/config.json holds (the same reading
/// function, echoing the struct).
nlohmann::json resolved_config(const ExperimentConfig& c);

}  // namespace lw
