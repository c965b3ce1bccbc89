/// \file
/// The Evaluator: everything the measurements of one (network, LUT) share — compiled costs,
/// calibrated quantisation, the evaluation data and, for random-weight models, the f32
/// reference outputs — and the measurement of one deployment on the device (latency,
/// accuracy or fidelity, memory). The filter, the replay and the bench all measure through
/// it; every plan runs the real kernels through explorer/measure/deployment.h.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "env/cost.h"
#include "env/lut.h"
#include "env/measure.h"
#include "explorer/measure/accuracy.h"
#include "libs/exec/executor.h"
#include "libs/ir/network.h"
#include "libs/quant/calibration.h"

namespace lw {

constexpr int kDefaultTestImages = 2000;      // 0 = the whole test split
constexpr int kDefaultCalibrationImages = 256;
constexpr int kDefaultFidelityInputs = 16;    // random-weight models: inputs compared with f32
constexpr int kDefaultTimingRuns = 10;          // timed end-to-end runs per filtered deployment
struct EvalOptions {
  int test_images = kDefaultTestImages;  // test images [0, n) (0 = the whole split)
  int calibration_images = kDefaultCalibrationImages;
  CalibrationMethod calibration_method = kDefaultCalibrationMethod;  // int8 activation ranges
  int fidelity_inputs = kDefaultFidelityInputs;
  std::string data_dir;                  // "" = fashion_mnist_dir() (libs/data)
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
  /// Memory on the fronts and in the constraints: what the heap really grew by while
  /// planning (weights, arena, workspace and whatever the libraries allocate), falling back
  /// to the planned sum.
  double measured_memory() const {
    return memory.measured_heap_bytes > 0 ? double(memory.measured_heap_bytes) : double(memory.peak_bytes());
  }
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
  /// `rounds` rounds in which every deployment of `which` runs twice in turn, untimed then
  /// timed; appends to samples_ms and refreshes m.latency.
  Status time_interleaved(const std::vector<PreparedDeployment*>& which, int rounds);
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

}  // namespace lw
