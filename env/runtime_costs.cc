#include "env/runtime_costs.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
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
  *ms = stats.cost_ms();
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

Status measure_handoff_costs(int rounds, RuntimeCosts* out) {
  if (available_thread_set_cpus() < 2) return unsupported("hand-offs: one CPU for the thread sets");
  std::vector<ThreadPoolId> pools;
  for (int q = 0; q < kThreadPoolCount; ++q)
    if (run_pool_job(ThreadPoolId(q), kHandoffItemsUs[0])) pools.push_back(ThreadPoolId(q));
  const int P = kThreadPoolCount, I = int(std::size(kHandoffItemsUs));
  std::vector<std::vector<double>> t(I * P * P);  // [item][from][to]
  ScopedPin pin;
  for (int r = 0; r < rounds; ++r)
    for (int i = 0; i < I; ++i)
      for (ThreadPoolId from : pools)
        for (ThreadPoolId to : pools) t[(i * P + int(from)) * P + int(to)].push_back(time_after(from, to, kHandoffItemsUs[i]));
  out->handoffs.assign(I, HandoffMatrix{});
  for (int i = 0; i < I; ++i) {
    HandoffMatrix& m = out->handoffs[i];
    m.item_us = kHandoffItemsUs[i];
    m.ms.assign(P * P, 0.0);
    for (ThreadPoolId from : pools)
      for (ThreadPoolId to : pools) {
        const double base = median(t[(i * P + int(to)) * P + int(to)]);
        if (from != to) m.ms[int(from) * P + int(to)] = std::max(0.0, median(t[(i * P + int(from)) * P + int(to)]) - base);
      }
  }
  return Status::ok();
}

Status measure_shared_lines(int rounds, RuntimeCosts* out) {
  if (available_thread_set_cpus() < 2) return unsupported("shared lines: one CPU for the thread sets");
  std::vector<float> buf(kSharedLinesBytes / sizeof(float)), evict((8 << 20) / sizeof(float));
  volatile float sink = 0;
  auto timed = [&](auto&& touch) {
    const auto t0 = Clock::now();
    touch();
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    sink = buf[buf.size() / 3];
    return us;
  };
  auto write = [&] { std::fill(buf.begin(), buf.end(), 2.0f); };
  auto read = [&] {  // one load per line
    float s = 0;
    for (size_t i = 0; i < buf.size(); i += 64 / sizeof(float)) s += buf[i];
    sink = s;
  };
  auto on_cpu1 = [&](auto&& touch) { on_each_cpu(2, [&](int64_t k, int64_t) { if (k == 1) touch(); }); };
  ScopedPin pin;
  std::vector<double> write_own, write_shared, read_own, read_shared;
  for (int r = 0; r < rounds; ++r) {
    write();
    std::fill(evict.begin(), evict.end(), float(r));  // 8 MiB through cpu0's private caches
    write_own.push_back(timed(write));
    write();
    on_cpu1(read);
    write_shared.push_back(timed(write));
    write();  // (cpu0's own, dirty: the state a 1-thread step's input starts in)
    read_own.push_back(timed(read));
    on_cpu1(write);
    read_shared.push_back(timed(read));
  }
  const double kib = kSharedLinesBytes / 1024.0;
  out->shared_write_us_per_kb = std::max(0.0, (median(write_shared) - median(write_own)) / kib);
  out->shared_read_us_per_kb = std::max(0.0, (median(read_shared) - median(read_own)) / kib);
  return Status::ok();
}

Status measure_runtime_costs(const Network& net, const Protocol& protocol, RuntimeCosts* out) {
  if (net.layers.empty()) return invalid_argument("runtime costs: empty network");
  LW_RETURN_IF_ERROR(time_copy(net.input_shape(), protocol, &out->input_copy_ms));
  return time_copy(net.layers.back().out, protocol, &out->output_copy_ms);
}

std::string handoffs_table(const RuntimeCosts& rc) {
  if (!rc.has_handoffs()) return "no thread-pool hand-offs measured: charged as 0 (layerwise profile --runtime-only adds them)\n";
  std::string out = rc.handoffs.size() > 1 ? "by the step's length, between the items\n" : "\n";
  char cell[64];
  for (const HandoffMatrix& m : rc.handoffs) {
    std::snprintf(cell, sizeof cell, "  measured with %ld us items\n    from \\ to", std::lround(m.item_us));
    out += cell;
    for (int t = 0; t < kThreadPoolCount; ++t) std::snprintf(cell, sizeof cell, " %9s", to_string(ThreadPoolId(t))), out += cell;
    for (int f = 0; f < kThreadPoolCount; ++f) {
      std::snprintf(cell, sizeof cell, "\n    %-9s", to_string(ThreadPoolId(f)));
      out += cell;
      for (int t = 0; t < kThreadPoolCount; ++t) std::snprintf(cell, sizeof cell, " %9.4f", m.ms[f * kThreadPoolCount + t]), out += cell;
    }
    out += "\n";
  }
  return out;
}

}  // namespace lw
