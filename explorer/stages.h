/// \file
/// The last three stages of the pipeline (QS-DNN §V-C, §VI-C) as plain functions, shared by
/// `layerwise filter | pareto | replay` and the experiment runner (`layerwise run`):
///   filter  the search's solutions within a latency band of the fastest are measured on the
///           device (latency, accuracy or fidelity, peak memory) together with the marked
///           reference deployments (ref-fp32, opt-fp32, all-int8); hard constraints decide
///           which are kept; the chosen one is the fastest kept (measured latency), or
///           the fastest reference that meets them when no candidate does;
///   pareto  latency–accuracy and latency–memory fronts of everything the filter measured;
///   replay  (explorer/replay.h) the chosen deployment end to end against the LUT prediction.
/// Every measurement runs the real kernels through explorer/deployment.h. Results are
/// written atomically: filtered.csv and filter.json (which pareto and replay read back).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "env/cost.h"
#include "env/lut.h"
#include "env/measure.h"
#include "explorer/accuracy.h"
#include "explorer/config.h"
#include "explorer/filter.h"
#include "explorer/pareto.h"
#include "libs/exec/executor.h"
#include "libs/ir/network.h"

namespace lw {

// kDefaultTestImages, kDefaultCalibrationImages, kDefaultFidelityInputs: explorer/config.h.
constexpr int kDefaultTimingRuns = 10;          // timed end-to-end runs per filtered deployment
/// Overrides the Fashion-MNIST directory (the CLI's --data-dir wins over it).
constexpr char kDataDirEnv[] = "LAYERWISE_FASHION_MNIST_DIR";
/// The reference deployments the filter always measures, in report order.
constexpr const char* kReferenceLabels[] = {"ref-fp32", "opt-fp32", "all-int8"};

/// The Fashion-MNIST directory: `flag` when given, else $LAYERWISE_FASHION_MNIST_DIR, else
/// the Debian package's.
std::string resolve_data_dir(const std::string& flag);

struct EvalOptions {
  int test_images = kDefaultTestImages;  // test images [0, n) (0 = the whole split)
  int calibration_images = kDefaultCalibrationImages;
  int fidelity_inputs = kDefaultFidelityInputs;
  std::string data_dir;                  // "" = resolve_data_dir("")
  /// The user's data instead of Fashion-MNIST / fidelity (.npy, see README "Your data"):
  /// labelled evaluation samples (top-1 on them) and int8 calibration samples.
  std::string eval_inputs, eval_labels, calibration_inputs;
  const Registry* registry = nullptr;    // where the kernels come from (required)
  Protocol timing{1, kDefaultTimingRuns, 0.0, kDefaultTimingRuns, 10.0};
  int max_threads = 2;                   // thread cap of the reference deployments
  /// Called while measuring: what (label), and the fraction of the current stage done.
  std::function<void(const std::string& what, double fraction)> progress;
};

/// One deployment measured on the device.
struct Measurement {
  std::string label;               // candidate id or reference label
  std::vector<std::string> names;  // implementation per LUT layer
  double predicted_ms = 0;         // LUT cost model (env/cost.h)
  double predicted_memory_bytes = 0;
  LatencyStats latency;            // end to end, ms
  AccuracyReport accuracy;         // top-1 on the test split, or fidelity
  MemoryReport memory;             // planned arena + workspace + weights; heap measured at plan
  int int8_layers = 0, f32_layers = 0;  // layers computing in each dtype (input excluded)
  int bf16_layers = 0;  // bf16 is reduced precision like int8: its accuracy is measured, not assumed
  bool mixed_precision() const { return int8_layers + bf16_layers > 0 && f32_layers > 0; }
};

/// A deployment planned and evaluated (accuracy or fidelity, memory) but not yet timed: the
/// filter times many of them in interleaved rounds so that all see the same machine.
struct PreparedDeployment {
  Measurement m;
  std::unique_ptr<Executor> ex;
  std::vector<double> samples_ms;  // end-to-end times so far
};

/// Holds what every measurement of one (network, LUT) shares: compiled costs, calibrated
/// quantisation, the evaluation data and, for random-weight models, the f32 reference outputs.
/// `net` and `lut` must outlive it.
class Evaluator {
 public:
  static Status create(const Network& net, const Lut& lut, const EvalOptions& o, std::unique_ptr<Evaluator>* out);
  ~Evaluator();
  /// Plans, times (under `timing`, default EvalOptions::timing), evaluates. Fails (naming the
  /// label) when the deployment cannot be planned.
  Status measure(const std::string& label, const std::vector<std::string>& names, Measurement* out,
                 const Protocol* timing = nullptr);
  /// Plans and evaluates without timing (m.latency stays empty until time_interleaved).
  Status prepare(const std::string& label, const std::vector<std::string>& names, PreparedDeployment* out);
  /// `rounds` rounds in which every deployment of `which` runs once, timed, in turn (after
  /// one untimed run each when `warmup`); appends to samples_ms and refreshes m.latency.
  Status time_interleaved(const std::vector<PreparedDeployment*>& which, int rounds, bool warmup);
  /// The deployment as an executor with the calibrated quantisation and the LUT's converters.
  Status plan(const std::vector<std::string>& names, bool time_steps, std::unique_ptr<Executor>* out) const;
  /// Fills only the LUT predictions and dtype counts.
  Status predict(const std::vector<std::string>& names, Measurement* out) const;
  /// "top1" or "fidelity".
  const std::string& metric() const;
  /// The calibrated int8 quantisation of every layer's output (what a bundle carries).
  const std::vector<QuantParams>& quant() const;
  const Network& network() const;
  const Lut& lut() const;
  const Problem& problem() const;
  const EvalOptions& options() const;
  /// One evaluation input (for timing).
  const Tensor& sample() const;

  struct State;

 private:
  explicit Evaluator(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

/// Solutions of `layerwise search` (solutions.csv: latency_ms,memory_bytes,"n1;n2;...") as
/// filter candidates named "<prefix>-<row>"; each must have one name per LUT layer.
Status read_solutions_csv(const std::string& path, const Lut& lut, const std::string& prefix,
                          std::vector<FilterCandidate>* out);

struct FilterResult {
  std::string model, metric;             // metric: "top1" or "fidelity"
  double reference_accuracy = 0;         // the ref-fp32 deployment's: the "accuracy drop" base
  FilterConstraints constraints;
  std::vector<FilterCandidate> candidates;  // every solution, measured or not, kept or not
  std::vector<Measurement> measured;        // the candidates measured (label = candidate id)
  std::vector<Measurement> references;      // ref-fp32, opt-fp32, all-int8 where the LUT has them
  /// Label of the measured deployment the user gets: the fastest of the kept candidates and
  /// the references meeting the constraints, all timed interleaved (explorer/choice.h); ""
  /// when nothing meets them.
  std::string chosen;
  std::string chosen_why;  // why it won, for summary.md
  int tie_break_rounds = 0;  // interleaved rounds spent re-measuring close contenders
  const Measurement* find(const std::string& label) const;
};

/// Measures the band's candidates and the references (interleaved), applies the constraints,
/// picks the chosen one and writes <out_dir>/filtered.csv and <out_dir>/filter.json.
Status run_filter(Evaluator& ev, std::vector<FilterCandidate> candidates, const FilterConstraints& k,
                  const std::string& out_dir, FilterResult* out);

/// filter.json <-> FilterResult.
std::string filter_json(const FilterResult& r);
Status load_filter_result(const std::string& path, FilterResult* out);

struct ParetoSummary {
  int points = 0;
  int accuracy_front = 0, memory_front = 0;      // sizes of the two fronts
  int mixed_on_accuracy_front = 0, mixed_on_memory_front = 0;
};

/// The fronts' points: every measured candidate (the chosen one labelled "chosen") and the
/// references, at measured latency, accuracy and peak memory.
std::vector<ParetoPoint> pareto_points(const FilterResult& r, std::vector<bool>* mixed);

/// Writes <out_dir>/pareto_accuracy.{csv,png,svg} and pareto_memory.{csv,png,svg}.
Status run_pareto(const FilterResult& r, const std::string& out_dir, ParetoSummary* summary);

}  // namespace lw
