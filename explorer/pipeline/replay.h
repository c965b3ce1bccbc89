/// \file
/// The replay stage (QS-DNN §VI-C): the chosen deployment run end to end N times on
/// this device — median latency, peak memory (planned and measured heap), accuracy or
/// fidelity — against the LUT's predictions, with a per-layer breakdown (each step timed in
/// its own pass) so that a gap between prediction and measurement can be traced to layers,
/// conversions or the overhead between steps. Writes replay.json atomically.
#pragma once
#include <string>
#include <vector>

#include "explorer/pipeline/config.h"  // kDefaultReplayRuns
#include "explorer/measure/evaluator.h"

namespace lw {

struct ProfileOptions;

constexpr int kDefaultReplayWarmup = 3;  // discarded runs at the start of every block
constexpr int kReplayBlocks = 5;         // end-to-end and per-step runs alternate in blocks

constexpr int kReplayMaxRuns = 20000;  // with min_seconds: a bound on a tiny network's runs (and per-step samples)

struct ReplayOptions {
  int runs = kDefaultReplayRuns;      // timed end-to-end runs (and timed per-step runs) at least
  int warmup = kDefaultReplayWarmup;  // discarded runs before each
  /// More runs until the end-to-end ones took at least half of this, the per-step ones the
  /// other half (spread over the blocks; at most kReplayMaxRuns each).
  double min_seconds = kDefaultReplayMinSeconds;
  /// Also time the deployment's implementations again, alone, a share before each block, with
  /// these options' protocol (explorer/measure/recheck.h), and predict it from those figures:
  /// the gap to the LUT's prediction is the device's drift since profiling, the gap to the
  /// measurement what the cost model misses. nullptr: no recheck.
  const ProfileOptions* recheck = nullptr;
};

/// One layer of the breakdown: the LUT's median vs the median of its step in the replay;
/// conversions feeding the layer (or, for the last layer, the network output) likewise.
struct ReplayLayer {
  int layer = 0;
  std::string name, impl;
  double lut_ms = 0, measured_ms = 0;
  double lut_conversion_ms = 0, measured_conversion_ms = 0;  // LUT: with the thread-pool hand-off into the layer
  int conversions = 0;  // conversion steps the executor inserted for this layer
  double recheck_ms = 0;  // the implementation timed again during the replay (ReplayOptions::recheck), else 0
};

struct ReplayResult {
  Measurement end_to_end;           // predictions, latency, accuracy, memory
  double gap_pct = 0;               // (measured median - predicted) / predicted, in %
  /// The prediction at the speed the device ran during the replay (env/speed_probe.h: the
  /// probe timed before every block against the LUT's; 0 when the LUT has no probe), its gap,
  /// and now / then per thread set (index threads - 1; > 1: the device is slower than when
  /// it was profiled).
  double predicted_at_speed_ms = 0, gap_at_speed_pct = 0;
  std::vector<double> speed_ratio;
  /// With ReplayOptions::recheck: the prediction from the implementations timed again during
  /// the replay, (rechecked - predicted) / predicted (the drift since profiling) and
  /// (measured - rechecked) / rechecked (the cost model's own miss), in %; how many were timed.
  double predicted_rechecked_ms = 0, drift_pct = 0, gap_rechecked_pct = 0;
  int rechecked_impls = 0;
  /// Cores 0 and 1, a cache line's round trip (env/speed_probe.h): the median of the probes
  /// before the blocks, the profile's, and the blocks probed more than kCoreLinkFar times
  /// farther or nearer than the profile (0 when either was not probed). A host that moves the
  /// vCPUs apart slows 2-thread steps well past their LUT figures (results/reference/far-cores/).
  double core_link_ns = 0, core_link_profile_ns = 0;
  int core_link_moved_blocks = 0;
  bool two_threads = false;  // some step of the deployment runs on 2 or more threads
  double steps_sum_ms = 0;          // sum of the per-step medians
  std::vector<ExecStep> steps;      // the executor's steps (conversions included), in run order
  std::vector<double> step_ms;      // per executor step, median
  double cpu_median_ms = 0;         // process CPU time per end-to-end run: each block's mean, median over blocks
  double load_average = -1;         // 1-minute load average after the runs (shared machine)
  double min_seconds = 0;           // ReplayOptions::min_seconds it ran with
  std::vector<ReplayLayer> layers;  // in layer order
};

/// Runs the deployment `names` (one implementation per LUT layer) and writes
/// <out_dir>/replay.json.
Status run_replay(Evaluator& ev, const std::string& label, const std::vector<std::string>& names,
                  const ReplayOptions& o, const std::string& out_dir, ReplayResult* out);

/// The replay.json text.
std::string replay_json(const std::string& model, const ReplayResult& r);

}  // namespace lw
