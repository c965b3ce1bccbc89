// libs/quant/calibration.h: the MSE range against a brute-force search of the real
// quantisation error (quantize_value / dequantize_value on the values themselves), and the
// Calibrator's two passes against the values they saw.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "libs/quant/calibration.h"
#include "libs/quant/quant.h"

using namespace lw;

namespace {

// The real squared error of quantising `v` with `q`, summed.
double error_of(const std::vector<float>& v, QuantParams q) {
  double e = 0;
  for (float x : v) {
    const double d = double(dequantize_value(quantize_value(x, q), q)) - x;
    e += d * d;
  }
  return e;
}

// What the Calibrator would pick for `v` alone, through its two passes.
QuantParams calibrate_values(const std::vector<float>& v, CalibrationMethod m) {
  Calibrator c(1, m);
  for (int pass = 0; pass < c.passes(); ++pass) c.observe(pass, 0, v.data(), int64_t(v.size()));
  return c.params()[0];
}

// The least real error over a grid of ranges [lo * i / G, hi * j / G] (the naive search).
double brute_force_error(const std::vector<float>& v, float lo, float hi) {
  constexpr int G = 60;
  double best = INFINITY;
  for (int i = (lo < 0 ? 1 : 0); i <= G; ++i)
    for (int j = 1; j <= G; ++j) best = std::min(best, error_of(v, choose_quant_params(lo * i / G, hi * j / G)));
  return best;
}

}  // namespace

TEST_CASE("calibration methods: names round-trip, unknown names refused") {
  for (CalibrationMethod m : {CalibrationMethod::kMinMax, CalibrationMethod::kMse})
    CHECK(parse_calibration_method(to_string(m)) == m);
  CHECK(!parse_calibration_method("entropy"));
  CHECK(calibration_method_names() == "minmax|mse");
}

TEST_CASE("mse range: the brute-force search's error; a heavy tail clipped, a lone outlier kept") {
  std::mt19937_64 rng(3);
  std::normal_distribution<float> n(0.2f, 1.f);
  std::student_t_distribution<float> t3(3);
  struct Case { const char* what; std::vector<float> v; bool clipped; };
  std::vector<Case> cases(2);
  cases[0].what = "student-t, 3 degrees of freedom: a tail of a few hundred values";
  for (int k = 0; k < 50000; ++k) cases[0].v.push_back(t3(rng));
  cases[0].clipped = true;
  // One value far out among 20000: clipping it to the bulk would cost (60 - 4)^2 ~ 3100,
  // more than the rounding error of all the others at min / max's step (~105): it is kept.
  cases[1].what = "normal with one outlier at 60";
  for (int k = 0; k < 20000; ++k) cases[1].v.push_back(n(rng));
  cases[1].v.push_back(60.f);
  cases[1].clipped = false;
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const float lo = *std::min_element(c.v.begin(), c.v.end()), hi = *std::max_element(c.v.begin(), c.v.end());
    const QuantParams mm = calibrate_values(c.v, CalibrationMethod::kMinMax);
    const QuantParams mse = calibrate_values(c.v, CalibrationMethod::kMse);
    CHECK(mm.scale == doctest::Approx((hi - lo) / 255));
    const double e_mse = error_of(c.v, mse), e_mm = error_of(c.v, mm), e_best = brute_force_error(c.v, lo, hi);
    CAPTURE(e_mse);
    CAPTURE(e_mm);
    CAPTURE(e_best);
    CHECK(e_mse <= e_best * 1.05);  // the grid is coarser than the bins: it may lose, by little
    CHECK(e_mse < e_mm);
    if (c.clipped) {
      CHECK(mse.scale < mm.scale * 0.9);
    } else {
      CHECK(std::fabs(dequantize_value(quantize_value(60.f, mse), mse) - 60.f) < 3.f);  // not clipped to the bulk
    }
  }
}

TEST_CASE("mse range: a uniform range stays within a step of min / max; awkward ranges") {
  std::mt19937_64 rng(5);
  struct Case { float lo, hi; };
  for (Case c : {Case{-1.f, 1.f}, Case{-3.f, 0.5f}, Case{0.f, 6.f}, Case{-0.01f, 0.f}, Case{-2.f, 7.f}}) {
    CAPTURE(c.lo);
    CAPTURE(c.hi);
    std::uniform_real_distribution<float> u(c.lo, c.hi);
    std::vector<float> v(30000);
    for (float& x : v) x = u(rng);
    const QuantParams mm = calibrate_values(v, CalibrationMethod::kMinMax);
    const QuantParams mse = calibrate_values(v, CalibrationMethod::kMse);
    CHECK(mse.scale <= mm.scale);
    CHECK(mse.scale >= mm.scale * (1 - 2.0 / 255));  // clips at most about a step at each end
    // Never worse than min / max beyond the model's approximation (step^2 / 12 inside; the
    // zero point's rounding moves the real grid by up to half a step).
    CHECK(error_of(v, mse) <= error_of(v, mm) * 1.01);
    CHECK(dequantize_value(quantize_value(0.f, mse), mse) == 0.f);
  }
}

TEST_CASE("mse range: non-negative values keep zero point kInt8Min (the u8 form); zeros cost nothing") {
  std::mt19937_64 rng(8);
  std::exponential_distribution<float> e(1.f);
  std::vector<float> v;
  for (int k = 0; k < 20000; ++k) v.push_back(k % 2 ? 0.f : e(rng));  // relu-like: half exact zeros
  const QuantParams q = calibrate_values(v, CalibrationMethod::kMse);
  CHECK(q.zero_point == kInt8Min);
  const float hi = *std::max_element(v.begin(), v.end());
  CHECK(q.scale < hi / 255);  // the exponential tail is clipped
  CHECK(error_of(v, q) <= brute_force_error(v, 0.f, hi) * 1.05);
}

TEST_CASE("mse range: degenerate inputs") {
  float a = 1, b = 1;
  mse_range({}, -1.f, 1.f, &a, &b);  // no histogram: the range as given
  CHECK(a == -1.f);
  CHECK(b == 1.f);
  mse_range(std::vector<double>(kCalibrationBins, 0.0), -1.f, 2.f, &a, &b);  // no values: any range, 0 inside
  CHECK(a <= 0.f);
  CHECK(b >= 0.f);
  CHECK(b > a);
  // All zeros: exact. A single value: off by at most a bin (the model puts it at its bin's centre).
  const QuantParams z = calibrate_values(std::vector<float>(100, 0.f), CalibrationMethod::kMse);
  CHECK(z.scale == 1.f);
  const std::vector<float> one = {0.f, 0.f, 2.5f};
  const double bin = 2.5 / kCalibrationBins;
  CHECK(error_of(one, calibrate_values(one, CalibrationMethod::kMse)) <= bin * bin);
}
