#include "libs/quant/calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "libs/core/enum_names.h"
#include "libs/quant/quant.h"

namespace lw {

namespace {

constexpr NameRow<CalibrationMethod> kCalibrationMethods[] = {
#define X(e, s) {CalibrationMethod::e, s},
#include "libs/quant/calibration_method.inc"
#undef X
};

constexpr double kLevelSteps = double(kInt8Max - kInt8Min);  // 255 steps between 256 levels

}  // namespace

const char* to_string(CalibrationMethod m) { return name_of(kCalibrationMethods, m); }
std::optional<CalibrationMethod> parse_calibration_method(const std::string& s) {
  return parse_name(kCalibrationMethods, s);
}
std::string calibration_method_names() {
  std::string s;
  for (const auto& r : kCalibrationMethods) s += (s.empty() ? "" : "|") + std::string(r.name);
  return s;
}

void mse_range(const std::vector<double>& counts, float lo, float hi, float* a, float* b) {
  *a = lo, *b = hi;
  const int B = int(counts.size());
  if (B == 0 || !(hi > lo)) return;
  const double w = (double(hi) - lo) / B;
  // Prefix sums of n, n*c, n*c^2 over bins [0, k) (c: the bin's centre) make the clipping
  // error of any end O(1): sum n (x - c)^2 = x^2 S0 - 2 x S1 + S2.
  std::vector<double> s0(size_t(B) + 1, 0), s1(s0), s2(s0);
  for (int k = 0; k < B; ++k) {
    const double c = lo + (k + 0.5) * w, n = counts[size_t(k)];
    s0[k + 1] = s0[k] + n, s1[k + 1] = s1[k] + n * c, s2[k + 1] = s2[k] + n * c * c;
  }
  auto clipped = [&](int from, int to, double x) {  // bins [from, to) clipped onto x
    const double n = s0[to] - s0[from], nc = s1[to] - s1[from], ncc = s2[to] - s2[from];
    return std::max(0.0, x * x * n - 2 * x * nc + ncc);
  };
  // Ends on bin edges with a <= 0 <= b: edge i for a (i <= iz), edge B - j for b (j <= jz).
  const int iz = std::clamp(int(std::floor(-double(lo) / w + 1e-9)), 0, B);
  const int jz = std::clamp(int(std::floor(double(hi) / w + 1e-9)), 0, B);
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i <= iz; ++i) {
    const double ea = lo + i * w, low = clipped(0, i, ea);
    if (low >= best) break;  // clipping more of the low end only adds error there
    for (int j = 0; j <= jz && B - j > i; ++j) {
      const double eb = hi - j * w;
      if (!(eb > ea)) break;
      const double step = (eb - ea) / kLevelSteps;
      const double e = low + clipped(B - j, B, eb) + (s0[B - j] - s0[i]) * step * step / 12;
      if (e < best) best = e, *a = float(ea), *b = float(eb);
    }
  }
  *a = std::min(*a, 0.f), *b = std::max(*b, 0.f);
}

Calibrator::Calibrator(size_t tensors, CalibrationMethod method)
    : method_(method),
      lo_(tensors, std::numeric_limits<float>::infinity()),
      hi_(tensors, -std::numeric_limits<float>::infinity()),
      hist_(method == CalibrationMethod::kMse ? tensors : 0) {}

void Calibrator::observe(int pass, size_t tensor, const float* v, int64_t n) {
  if (pass == 0) {
    for (int64_t k = 0; k < n; ++k) lo_[tensor] = std::min(lo_[tensor], v[k]), hi_[tensor] = std::max(hi_[tensor], v[k]);
    return;
  }
  std::vector<double>& h = hist_[tensor];
  const float lo = std::min(lo_[tensor], 0.f), hi = std::max(hi_[tensor], 0.f);
  if (!(hi > lo)) return;
  if (h.empty()) h.assign(kCalibrationBins, 0);
  const double per_bin = kCalibrationBins / (double(hi) - lo);
  for (int64_t k = 0; k < n; ++k) {
    if (v[k] == 0.f || !std::isfinite(v[k])) continue;  // 0 is exact in every range
    const int bin = int((double(v[k]) - lo) * per_bin);
    h[size_t(std::clamp(bin, 0, kCalibrationBins - 1))] += 1;
  }
}

std::vector<QuantParams> Calibrator::params() const {
  std::vector<QuantParams> q(lo_.size());
  for (size_t i = 0; i < q.size(); ++i) {
    float a = lo_[i], b = hi_[i];
    if (method_ == CalibrationMethod::kMse && !hist_[i].empty())
      mse_range(hist_[i], std::min(lo_[i], 0.f), std::max(hi_[i], 0.f), &a, &b);
    q[i] = choose_quant_params(a, b);
  }
  return q;
}

}  // namespace lw
