/// \file
/// `layerwise bench`: every deployment of explorer/measure/baselines.h — Ref-FP32, each
/// single library, Layerwise's f32 and int8 optima — planned from one LUT and measured end
/// to end on this device, interleaved (round-robin, several rounds, medians) so that load
/// from other processes hits all of them alike. Each row also splits its time into the
/// steps' own times (layers and conversions) and the executor's overhead, and keeps the
/// LUT's prediction beside the measurement so a gap between the two can be traced.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "env/lut.h"
#include "env/measure.h"
#include "env/profiler.h"
#include "libs/ir/network.h"
#include "libs/quant/calibration.h"
#include "libs/ops/registry.h"

namespace lw {

constexpr int kDefaultBenchRounds = 15;           // interleaved rounds per (model, threads)
constexpr int kDefaultBenchCalibration = 4;       // calibration samples for int8 deployments
constexpr int kMinNearRounds = 3;                 // near rounds needed for BenchRow::measured_near_ms
constexpr const char* kBestSingleLabels[] = {"native", "xnnpack", "onednn", "torch-nchw", "torch-nhwc"};

struct BenchOptions {
  const Registry* registry = nullptr;
  int rounds = kDefaultBenchRounds;
  int calibration_samples = kDefaultBenchCalibration;
  CalibrationMethod calibration_method = kDefaultCalibrationMethod;
  std::vector<std::string> labels;  // empty: every baseline label
  std::function<void(const std::string&)> log;  // progress lines (optional)
  /// Time every implementation the measured deployments use again, alone, with this
  /// protocol (env/profiler.h remeasure_impls), a share after each round so that the recheck
  /// sees the machine the rounds saw, and predict each deployment with those figures too
  /// (BenchRow::recheck_ms). Null: no recheck.
  const ProfileOptions* recheck = nullptr;
  /// In a 2-thread block, before each round, wait for the cores to be as near as in the
  /// profile (not core_link_far of the LUT's core_link_ns), at most this many seconds over
  /// the block (0: measure whatever the host does; `--near-wait`). Rounds that still start
  /// far are run and counted far all the same. On a VM whose host puts the two vCPUs far
  /// apart for minutes at a time, it measures the machine the LUT describes.
  double near_wait_s = 0;
  /// The cores' distance now (null: probe_core_link_ns); tests place the far spells.
  std::function<double()> core_link_probe;
  /// How much slower the two cores compute together than one now (null:
  /// probe_core_pair_ratio); tests place the shared-core spells.
  std::function<double()> core_pair_probe;
};

/// One deployment of one model under one thread cap.
struct BenchRow {
  std::string model;
  int threads = 1;           // thread cap of the study (ref-fp32 always uses 1)
  std::string label;
  std::string status = "ok"; // or why it was not measured
  double predicted_ms = 0;   // LUT cost of the assignment (exact optimum of that baseline)
  double shared_write_ms = 0;  // of predicted_ms: the shared lines charged (env/cost.h)
  double streamed_ms = 0;      // of predicted_ms: the streamed outputs charged (env/cost.h)
  /// The same cost model with the deployment's implementations timed again between the
  /// rounds (BenchOptions::recheck; 0: not rechecked). recheck / predicted: the machine's
  /// drift since profiling; measured / recheck: what the cost model misses.
  double recheck_ms = 0;
  /// The LUT's prediction at the speed the device ran during the rounds (env/speed_probe.h:
  /// the probe timed before every round against the LUT's; 0 when the LUT has no probe).
  double at_speed_ms = 0;
  /// That speed against the profile's, per thread set (now / then: > 1 the device is slower
  /// now); 0 when not probed.
  double speed_ratio_t1 = 0, speed_ratio_t2 = 0;
  /// The cores' distance during the rounds (env/speed_probe.h probe_core_link_ns, probed
  /// before every round of a 2-thread block; 0: not probed): the median round trip, and the
  /// rounds in which it was more than kCoreLinkFar times the profile's (the LUT's
  /// core_link_ns, 0 when it has none).
  double core_link_ns = 0, core_link_profile_ns = 0;
  int core_link_far_rounds = 0;
  /// The rounds of a 2-thread block next to which (before or after) the pair probe read the
  /// two cores computing as one (env/speed_probe.h cores_shared): the host ran both vCPUs on
  /// one core, and the 2-thread steps of such a round ran at up to their 1-thread speed.
  int shared_core_rounds = 0;
  /// The rounds run with the cores as close as in the profile (env/speed_probe.h
  /// rounds_near: near probes before and after), and the median of the plain runs over them
  /// when there are at least kMinNearRounds (else 0): what a LUT profiled with close cores
  /// can be held to. On the Zen 4 VM of results/reference/core-distance/ GoogLeNet's 2-thread
  /// opt-fp32 ran 15.6 ms in rounds ~300 ns apart and 12.2 ms ~100 ns apart (LUT 11.3).
  int near_rounds = 0;
  double measured_near_ms = 0;
  /// Seconds the block waited before its rounds for the cores to be near
  /// (BenchOptions::near_wait_s).
  double near_wait_s = 0;
  double measured_ms = 0;    // end to end, median over rounds of plain runs
  double min_ms = 0, cv = 0;
  /// Median CPU time of the calling thread over the plain runs. For a 1-thread deployment
  /// this is its latency without the time other processes held the CPU (a shared machine
  /// preempts it at random); for 2 threads it also counts the caller's waiting.
  double cpu_ms = 0;
  int rounds = 0;
  int steps = 0, conversions = 0;  // executor steps, of which conversions
  double conversion_ms = 0;  // sum over conversion steps of their median time
  /// Median over rounds of the run with step timing, end to end. Against measured_ms it tells
  /// whether timing the steps changes the run; against the sum of the steps' medians (or
  /// means, BenchStep::mean_ms), how much a sum of medians misses when steps have slow tails.
  double timed_ms = 0;
  double overhead_ms = 0;    // median over timed runs of (run time - sum of its steps' times)
  double overhead_pct = 0;   // overhead_ms / measured_ms * 100
  double sqnr_db = 0;        // output vs ref-fp32's on the bench input (10 log10 signal / error)
  double load_avg = 0;       // 1-minute load average when this (model, threads) finished
  double vs_ref = 0, vs_best_single = 0;  // speed-ups (> 1: faster), filled by fill_speedups
  std::string best_single;   // the fastest measured single-library label of this block
  std::string note;          // opt-mixed: its accuracy floor check (explorer/measure/mixed_floor.h)
};

/// One executor step of one deployment: its measured median against the LUT's figure.
struct BenchStep {
  std::string model, label;
  int threads = 1;
  int index = 0, layer = -1;
  std::string name;
  bool conversion = false;
  double measured_ms = 0;
  double mean_ms = 0;  // its mean over the rounds: a sum of means is the expected run time
  double lut_ms = -1;  // the LUT's figure for this impl / converter (LatencyStats::cost_ms); -1 when absent
  double recheck_ms = -1;  // an implementation's median timed again (BenchOptions::recheck); -1: not
  std::string pool = "caller";  // the pool whose cpu1 thread ran part of it (ExecStep::pool)
  int rounds = 0;
  /// Timed rounds in which the caller ran our cpu1 worker's half itself, the worker late
  /// (ExecStep::last_alone): such a step ran at 1-thread speed.
  int alone_rounds = 0;
};

/// The LUT for `net` at `path` when it matches the model and this device; otherwise
/// profiles it (resumable through "<path>.partial") with `profile` options. A file there that
/// does not read as a LUT is an error, left as it is. `reprofile` (bench --reprofile, when the
/// report says the device drifted since profiling): profiles anew whatever is there, the file
/// replaced once the profile is complete.
Status lut_for_bench(const Network& net, const Registry& registry, const std::string& path,
                     const ProfileOptions& profile, Lut* lut, bool* profiled, bool reprofile = false);

/// Whether `lut` has an implementation on exactly `threads` threads: bench's block at that cap
/// measures deployments of its own only then (a LUT from `profile --threads 1` has no 2-thread
/// block; its deployments capped at 2 are the 1-thread ones again).
bool lut_has_thread_set(const Lut& lut, int threads);

/// `lut` as a study capped at `max_threads` must see it: implementations, converters and
/// conversion chains that use a larger thread set removed, the chains recomputed without
/// them (the profiler's chains may pass through any thread set).
Lut cap_lut_threads(const Lut& lut, int max_threads, const Registry& registry);

/// The LUT with every implementation's median replaced by its minimum: on a loaded shared
/// machine other processes only ever add time, so the minimum of a few runs estimates the
/// undisturbed latency better than the median, and the search stops chasing noise.
Lut lut_with_min_latency(const Lut& lut);

/// The LUT planned on medians, as before means were recorded (bench --lut-statistic median:
/// the A/B of results/reference/mean-cost/).
Lut lut_with_median_latency(const Lut& lut);

/// Reads the Fashion-MNIST splits that bench_network will read for `net` (the train split to
/// calibrate int8 labels, the test split for opt-mixed's accuracy floor), so that a missing
/// dataset fails before minutes of profiling; ok for random-weight models.
Status check_bench_data(const Network& net, const BenchOptions& o);

/// Plans every deployment of `net` under thread cap `max_threads` and measures them
/// interleaved; appends one row per label (unsupported ones with their reason) and the
/// per-step figures of every measured deployment.
Status bench_network(const Network& net, const Lut& lut, int max_threads, const BenchOptions& o,
                     std::vector<BenchRow>* rows, std::vector<BenchStep>* steps);

/// Speed-ups of every row relative to ref-fp32 and to the best single library of its
/// (model, threads) block.
void fill_speedups(std::vector<BenchRow>* rows);

std::string bench_csv(const std::vector<BenchRow>& rows);
std::string bench_steps_csv(const std::vector<BenchStep>& steps);
/// A summary table (one line per model and thread cap) and one detailed table per block.
std::string bench_markdown(const std::vector<BenchRow>& rows, const std::string& preamble);

/// Where one deployment's prediction misses, from its steps (issue 16 item 3): the means of
/// its steps summed per class against the LUT's figures of the same steps. Caller steps are
/// the ones the caller runs alone (every step of a 1-thread deployment, the 1-thread steps of a
/// 2-thread one); pool steps the ones a cpu1 thread shares; conversions apart. Steps without a
/// LUT figure are counted, not summed.
struct StepResiduals {
  std::string model, label;
  int threads = 1;
  struct Sum {
    int steps = 0;
    double measured_ms = 0, lut_ms = 0;
  };
  Sum caller, pool, conversions;
  int without_lut = 0;
  double measured_ms() const { return caller.measured_ms + pool.measured_ms + conversions.measured_ms; }
  double lut_ms() const { return caller.lut_ms + pool.lut_ms + conversions.lut_ms; }
};
/// One entry per (model, threads, deployment) in the order the steps came.
std::vector<StepResiduals> step_residuals(const std::vector<BenchStep>& steps);
/// The residuals as a Markdown section, with each deployment's prediction and end-to-end
/// measurement from `rows`: what its steps missed by class, and the rest (end to end less the
/// steps: the hand-offs and copies the cost model charges, and what it does not).
std::string bench_residuals_markdown(const std::vector<BenchRow>& rows, const std::vector<BenchStep>& steps);

/// The 1-minute load average (/proc/loadavg), -1 when unreadable.
double load_average();

}  // namespace lw
