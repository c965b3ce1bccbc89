/// \file
/// Activation calibration for post-training int8: every tensor's values over the calibration
/// samples are observed and turned into per-tensor QuantParams by a CalibrationMethod. The
/// min / max range (QS-DNN's) keeps every observed value, so one outlier widens the step of all
/// the others; the MSE range (as PyTorch's histogram observer and TensorRT's percentile
/// calibrators do) trades clipping a few values for finer steps. Callers that produce layer
/// outputs (the reference executor, the deployment executor) drive a Calibrator pass by pass.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libs/core/tensor.h"

namespace lw {

enum class CalibrationMethod {
#define X(e, s) e,
#include "libs/quant/calibration_method.inc"
#undef X
};
const char* to_string(CalibrationMethod m);
std::optional<CalibrationMethod> parse_calibration_method(const std::string& s);
/// The names joined by '|' (for --help and error messages).
std::string calibration_method_names();
/// min / max: on the zoo's trained and random-weight models MSE ranges did not raise the
/// output's fidelity (results/reference/calibration/: +2.5 / +2.8 dB SQNR on two Fashion-MNIST
/// members, -1.6 / -3.5 dB on two others; +0.35 dB on MobileNetV2, -1.5 dB on
/// MobileNetV3-Large): least error per tensor is not least error at the output.
constexpr CalibrationMethod kDefaultCalibrationMethod = CalibrationMethod::kMinMax;

/// Bins of the histogram the MSE range is chosen on: 8 per int8 step of the min / max range,
/// fine enough that the choice moves by less than a step.
constexpr int kCalibrationBins = 2048;

/// The range [a, b] (a <= 0 <= b) minimising the expected squared error of quantising
/// values distributed as `counts` (equal bins over [lo, hi], lo <= 0 <= hi; values at exactly
/// 0 left out: they are exact in any such range) onto 256 levels: n * step^2 / 12 for each
/// value inside, (distance to the range)^2 for each value clipped. a and b lie on bin edges.
void mse_range(const std::vector<double>& counts, float lo, float hi, float* a, float* b);

/// Observes the values of `tensors` tensors over the calibration samples. Min / max needs one
/// pass over the samples; MSE a second, binning values on the range the first found. Usage:
///   for (int pass = 0; pass < c.passes(); ++pass)
///     for each sample: run it; for each tensor i: c.observe(pass, i, values, n);
///   c.params();
class Calibrator {
 public:
  Calibrator(size_t tensors, CalibrationMethod method);
  int passes() const { return method_ == CalibrationMethod::kMinMax ? 1 : 2; }
  void observe(int pass, size_t tensor, const float* values, int64_t n);
  /// Per tensor: choose_quant_params of the chosen range.
  std::vector<QuantParams> params() const;

 private:
  CalibrationMethod method_;
  std::vector<float> lo_, hi_;
  std::vector<std::vector<double>> hist_;  // pass 1: kCalibrationBins per tensor over [lo, hi] widened to 0
};

}  // namespace lw
