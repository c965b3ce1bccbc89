/// \file
/// The end of `layerwise run`: a summary table on stdout and results/<run-id>/summary.md —
/// reference vs found latency, speed-up, memory, accuracy, the chosen implementation per
/// layer, and what every search cost.
#pragma once
#include <string>
#include <vector>

#include "env/lut.h"

namespace lw {

/// One agent run of the search stage.
struct AgentOutcome {
  std::string agent;
  uint64_t seed = 0;
  std::vector<std::string> best;  // implementation per LUT layer
  double best_latency_ms = 0;     // LUT prediction
  double best_memory_bytes = 0;   // predicted peak
  long long states = 0;
  double wall_ms = 0;
  int episodes = 0;
  bool proven_optimal = false;
  size_t distinct = 0;            // distinct deployments found
};

/// A deployment as measured on the device by the filter / replay stages.
struct MeasuredPoint {
  std::string label;              // ref-fp32, opt-fp32, all-int8, chosen, ...
  double predicted_ms = 0, measured_ms = 0;
  double accuracy = -1;           // -1: not measured
  std::string accuracy_metric;    // "top1" or "fidelity"
  double peak_memory_bytes = 0;
};

struct RunSummary {
  std::string run_dir, model, lut_path;
  bool lut_reused = false;
  double lut_age_s = -1;  // a reused LUT: seconds since its file was written (-1: unknown)
  double profile_s = 0;
  std::vector<AgentOutcome> searches;
  double exact_optimum_ms = 0;    // certified optimum of the LUT (for gaps)
  std::vector<MeasuredPoint> points;
  std::vector<std::string> chosen;  // implementation per LUT layer
  std::string chosen_why;           // why the filter chose it (explorer/pipeline/choice.h)
  double replay_gap_pct = 0;        // chosen: measured vs predicted latency
  /// chosen: vs the prediction at the speed probed during the replay, and that speed against
  /// the profile's (thread set 1 and 2: now / then; 0: no probe in the LUT). env/speed_probe.h
  double replay_gap_at_speed_pct = 0, replay_speed_t1 = 0, replay_speed_t2 = 0;
  double replay_ms = 0;             // chosen: median of the replay (a later run than the filter's)
  /// chosen: the cores' round trip during the replay and in the profile (ns; 0: not probed),
  /// and whether the deployment has a step on 2 or more threads (explorer/pipeline/replay.h)
  double replay_core_link_ns = 0, replay_core_link_profile_ns = 0;
  bool replay_two_threads = false;
  /// chosen, with replay.recheck: the prediction from its implementations timed again during
  /// the replay (0: not rechecked), its drift from the LUT's and the replay's gap to it, in %
  double replay_rechecked_ms = 0, replay_drift_pct = 0, replay_gap_rechecked_pct = 0;
  const Lut* lut = nullptr;
};

/// Markdown summary (also printed, as plain text, on stdout).
std::string summary_markdown(const RunSummary& s);
void print_summary(const RunSummary& s);

}  // namespace lw
