#include "env/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

namespace lw {

nlohmann::json Protocol::to_json() const {
  return {{"warmup", warmup}, {"runs", runs}, {"cv_threshold", cv_threshold}, {"max_runs", max_runs},
          {"max_seconds", max_seconds}, {"statistic", "median"}};
}

bool Protocol::operator==(const Protocol& o) const { return to_json() == o.to_json(); }

LatencyStats latency_stats(std::vector<double> ms) {
  LatencyStats s;
  s.runs = int(ms.size());
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  size_t n = ms.size();
  s.median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  s.min = ms.front();
  s.p90 = ms[std::min(n - 1, size_t(std::ceil(0.9 * n)) - 1)];
  double mean = 0, var = 0;
  for (double x : ms) mean += x;
  mean /= n;
  for (double x : ms) var += (x - mean) * (x - mean);
  s.cv = mean > 0 && n > 1 ? std::sqrt(var / (n - 1)) / mean : 0;
  return s;
}

Status measure(const Protocol& p, const std::function<Status()>& fn, LatencyStats* out) {
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < p.warmup; ++i) LW_RETURN_IF_ERROR(fn());
  std::vector<double> ms;
  ms.reserve(p.max_runs);
  auto start = clock::now();
  for (;;) {
    auto t0 = clock::now();
    LW_RETURN_IF_ERROR(fn());
    ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
    int n = int(ms.size());
    if (n < p.runs) continue;
    if (n >= p.max_runs) break;
    if (std::chrono::duration<double>(clock::now() - start).count() >= p.max_seconds) break;
    if (latency_stats(ms).cv <= p.cv_threshold) break;
  }
  *out = latency_stats(std::move(ms));
  return Status::ok();
}

void fill_random(Tensor& t, uint64_t seed) {
  std::mt19937 rng{uint32_t(seed)};
  if (t.dtype() == DType::kF32) {
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (int64_t i = 0; i < t.shape().elements(); ++i) t.f32()[i] = u(rng);
  } else {
    for (size_t i = 0; i < t.bytes(); ++i) static_cast<uint8_t*>(t.data())[i] = uint8_t(rng());
  }
}

}  // namespace lw
