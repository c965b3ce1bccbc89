#include "env/runtime_costs.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "libs/core/tensor.h"

namespace lw {

namespace {

Status time_copy(const Shape& shape, const Protocol& protocol, double* ms) {
  Tensor src = Tensor::create(shape), dst = Tensor::create(shape);
  fill_random(src, 41);  // (an unwritten source reads as the zero page)
  fill_random(dst, 42);
  LatencyStats stats;
  Protocol warm = protocol;
  warm.cold_cache = false;
  LW_RETURN_IF_ERROR(measure(warm, [&] {
    std::memcpy(dst.data(), src.data(), src.bytes());
    return Status::ok();
  }, &stats));
  *ms = stats.median;
  return Status::ok();
}

using Clock = std::chrono::steady_clock;
constexpr int kHandoffSettleUs = 500;  // > libgomp's spin at GOMP_SPINCOUNT=10000 (~0.35 ms here)

// Runs `from`'s job (and the executor's release of it), then times `to`'s. Every pool starts
// parked and settled (an OpenMP worker, which cannot be parked, past its GOMP_SPINCOUNT spin),
// so one pair's workers never run into the next pair's.
double time_after(ThreadPoolId from, ThreadPoolId to, double item_us) {
  for (int q = 0; q < kThreadPoolCount; ++q) release_pool(q);
  std::this_thread::sleep_for(std::chrono::microseconds(kHandoffSettleUs));
  const bool caller_to = to == ThreadPoolId::kCaller, caller_from = from == ThreadPoolId::kCaller;
  if (caller_from && !caller_to) {  // the pool was parked before the 1-thread step
    run_pool_job(to, item_us);
    release_pool(int(to));
  }
  run_pool_job(from, item_us);
  if (from != to && !caller_from && !caller_to) release_pool(int(from));
  const auto t0 = Clock::now();
  run_pool_job(to, item_us);
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

Status measure_handoff_costs(int rounds, double item_us, RuntimeCosts* out) {
  if (available_thread_set_cpus() < 2) return unsupported("hand-offs: one CPU for the thread sets");
  std::vector<ThreadPoolId> pools;
  for (int q = 0; q < kThreadPoolCount; ++q)
    if (run_pool_job(ThreadPoolId(q), kHandoffItemUs)) pools.push_back(ThreadPoolId(q));
  const int P = kThreadPoolCount;
  std::vector<std::vector<double>> t(P * P);
  ScopedPin pin;
  for (int r = 0; r < rounds; ++r)
    for (ThreadPoolId from : pools)
      for (ThreadPoolId to : pools) t[int(from) * P + int(to)].push_back(time_after(from, to, item_us));
  out->handoff_ms.assign(P * P, 0.0);
  for (ThreadPoolId from : pools)
    for (ThreadPoolId to : pools) {
      const double base = median(t[int(to) * P + int(to)]);
      if (from != to) out->handoff_ms[int(from) * P + int(to)] = std::max(0.0, median(t[int(from) * P + int(to)]) - base);
    }
  out->handoff_item_us = item_us;
  return Status::ok();
}

double handoff_item_us(const Lut& lut) {
  std::vector<double> fastest;  // per layer with a usable 2-thread implementation, us
  for (const LutLayer& l : lut.layers) {
    double least = 0;
    for (const Impl& m : l.impls)
      if (m.ok() && m.threads == 2 && (least == 0 || m.latency_ms.median < least)) least = m.latency_ms.median;
    if (least > 0) fastest.push_back(least * 1000.0);
  }
  std::sort(fastest.begin(), fastest.end());
  double total = 0, below = 0;
  for (double us : fastest) total += us;
  for (double us : fastest)
    if ((below += us) >= total / 2) return std::clamp(us, kHandoffItemUs, kHandoffMaxItemUs);
  return kHandoffItemUs;  // no 2-thread implementation
}

Status measure_runtime_costs(const Network& net, const Protocol& protocol, RuntimeCosts* out) {
  if (net.layers.empty()) return invalid_argument("runtime costs: empty network");
  LW_RETURN_IF_ERROR(time_copy(net.input_shape(), protocol, &out->input_copy_ms));
  return time_copy(net.layers.back().out, protocol, &out->output_copy_ms);
}

std::string handoffs_table(const RuntimeCosts& rc) {
  if (!rc.has_handoffs()) return "no thread-pool hand-offs measured: charged as 0 (layerwise profile --runtime-only adds them)\n";
  const double item_us = rc.handoff_item_us > 0 ? rc.handoff_item_us : kHandoffItemUs;
  std::string out = "measured with " + std::to_string(std::lround(item_us)) + " us items\n  from \\ to";
  char cell[32];
  for (int t = 0; t < kThreadPoolCount; ++t) std::snprintf(cell, sizeof cell, " %9s", to_string(ThreadPoolId(t))), out += cell;
  for (int f = 0; f < kThreadPoolCount; ++f) {
    std::snprintf(cell, sizeof cell, "\n  %-9s", to_string(ThreadPoolId(f)));
    out += cell;
    for (int t = 0; t < kThreadPoolCount; ++t)
      std::snprintf(cell, sizeof cell, " %9.4f", rc.handoff(ThreadPoolId(f), ThreadPoolId(t))), out += cell;
  }
  return out + "\n";
}

}  // namespace lw
