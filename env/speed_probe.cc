#include "env/speed_probe.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <thread>

#include "env/measure.h"
#include "libs/ops/thread_pool.h"

namespace lw {

namespace {

constexpr int kMaxProbeThreads = 2;
constexpr long kComputeIters = 500000;  // ~0.75 ms of multiply-adds on a 2026 server core (-O3)
constexpr int kLanes = 32;              // independent chains: throughput, not latency, bound
volatile float g_seed = 1.0f;           // (read at run time: the loop cannot be folded away)

// Multiply-adds on Lanes independent chains of registers, `iters` times: a core's own speed
// (its clock, and whatever share of it the host grants this vCPU). Left out of AddressSanitizer
// (scripts/check-sanitizers): its fake stack put the chains in memory, and the pair probe read
// the two cores as one throughout (3.3), a sanitizer run's profiles then retried every timing.
// Left out of the fuzzers' coverage too (clang): a callback on every compare of the loops made
// the probes 20x slower, most of a sanitizer run's profiling time (test_bench 485 s in CI).
template <int Lanes>
#if defined(__clang__)
__attribute__((no_sanitize("address", "coverage")))
#elif defined(__GNUC__)
__attribute__((no_sanitize("address")))
#endif
float multiply_adds(long iters) {
  float a[Lanes];
  const float s0 = g_seed;
  for (int j = 0; j < Lanes; ++j) a[j] = s0 + 0.001f * float(j);
  for (long it = 0; it < iters; ++it)
    for (int j = 0; j < Lanes; ++j) a[j] = a[j] * 0.9999999f + 1e-7f;
  float s = 0;
  for (float x : a) s += x;
  return s;
}

float compute_part() { return multiply_adds<kLanes>(kComputeIters); }

// A sum over a buffer 8x the size of the core's private caches (~0.5 ms): what streaming
// weights from the shared cache and memory costs now.
float memory_part(const std::vector<float>& buf) {
  float acc[8] = {};
  for (size_t i = 0; i + 8 <= buf.size(); i += 8)
    for (int j = 0; j < 8; ++j) acc[j] += buf[i + size_t(j)];
  float s = 0;
  for (float x : acc) s += x;
  return s;
}

struct ProbeBuffers {
  std::vector<float> core[kMaxProbeThreads];
  ProbeBuffers() {
    const size_t n = 8 * private_cache_bytes() / sizeof(float);
    for (auto& b : core) {
      b.resize(n);
      for (size_t i = 0; i < n; ++i) b[i] = float(i % 251) * 1e-3f;  // written: never the zero page
    }
  }
};

double one_run_ms(int threads, ProbeBuffers& bufs) {
  volatile float sink = 0;  // keeps the work from being optimised away
  const auto t0 = std::chrono::steady_clock::now();
  parallel_for(threads, threads, 1, [&](int64_t b, int64_t e) {
    float s = 0;
    for (int64_t k = b; k < e; ++k) s += compute_part() + memory_part(bufs.core[k]);
    sink = sink + s;
  });
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Multiply-adds on more chains than the core's float units keep busy at once (throughput
// bound, on AVX2 Zen 3 and on Intel alike): a second hardware thread on the same core halves
// each one's share, while memory_part's or a latency-bound loop's would hide it.
constexpr int kPairLanes = 48;
constexpr long kPairIters = 100000;  // ~0.2 ms alone
float pair_part() { return multiply_adds<kPairLanes>(kPairIters); }

double pair_run_ms(int threads) {
  volatile float sink = 0;
  const auto t0 = std::chrono::steady_clock::now();
  parallel_for(threads, threads, 1, [&](int64_t b, int64_t e) {
    float s = 0;
    for (int64_t k = b; k < e; ++k) s += pair_part();
    sink = sink + s;
  });
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// One run of the core link: the caller (slot 0) writes odd values, a thread on slot 1 answers
// with the next even one; ns per round trip.
double one_link_run_ns() {
  alignas(64) std::atomic<long> flag{0};
  std::thread other([&flag] {
    become_thread_set_worker(thread_set_cpu(1));
    for (long i = 0; i < kCoreLinkTrips; ++i) {
      while (flag.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      flag.store(2 * i + 2, std::memory_order_release);
    }
  });
  // Wait for the other thread to be on its CPU before timing (its start is not the link).
  flag.store(1, std::memory_order_release);
  while (flag.load(std::memory_order_acquire) != 2) {
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 1; i < kCoreLinkTrips; ++i) {
    flag.store(2 * i + 1, std::memory_order_release);
    while (flag.load(std::memory_order_acquire) != 2 * i + 2) {
    }
  }
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  other.join();
  return ns / (kCoreLinkTrips - 1);
}

}  // namespace

double probe_core_link_ns() {
  if (available_thread_set_cpus() < 2) return 0;
  ScopedPin pin;
  release_all_pools();  // a pool's spinning worker on cpu1 would delay the answering thread
  std::vector<double> ns;
  for (int r = 0; r < kSpeedProbeRuns; ++r) ns.push_back(one_link_run_ns());
  return median_of(ns);
}

double probe_core_pair_ratio() {
  if (available_thread_set_cpus() < 2) return 0;
  ScopedPin pin;
  pair_run_ms(2);  // wakes our cpu1 worker: its wake-up is not the core's speed
  std::vector<double> r;
  for (int k = 0; k < kSpeedProbeRuns; ++k) {
    const double alone = pair_run_ms(1), both = pair_run_ms(2);
    if (alone > 0) r.push_back(both / alone);
  }
  release_all_pools();  // our worker would spin on cpu1 into whatever runs next
  return median_of(r);
}

double probe_core_pair_ratio(const std::function<double()>& probe) { return probe ? probe() : probe_core_pair_ratio(); }

bool cores_shared(double pair_ratio) { return pair_ratio > kCoresShared; }

double probe_core_link_ns(const std::function<double()>& probe) { return probe ? probe() : probe_core_link_ns(); }

bool core_link_far(double now_ns, double profile_ns) {
  return now_ns > 0 && profile_ns > 0 && now_ns > kCoreLinkFar * profile_ns;
}

bool core_link_moved(double now_ns, double profile_ns) {
  return core_link_far(now_ns, profile_ns) || core_link_far(profile_ns, now_ns);
}

bool two_thread_steps_moved(bool two_threads, double now_ns, double profile_ns) {
  return two_threads && core_link_moved(now_ns, profile_ns);
}

bool wait_for_near_cores(double reference_ns, double budget_s, double* waited_s, const std::function<double()>& probe,
                         const std::function<void(double ns)>& waiting) {
  for (;;) {
    const double ns = probe_core_link_ns(probe);
    if (!core_link_far(ns, reference_ns)) return true;
    if (*waited_s >= budget_s) return false;
    if (waiting) waiting(ns);
    const auto t = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    *waited_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }
}

std::vector<bool> rounds_between(const std::vector<double>& probes, const std::function<bool(double)>& holds) {
  std::vector<bool> both;
  for (size_t r = 0; r + 1 < probes.size(); ++r) both.push_back(holds(probes[r]) && holds(probes[r + 1]));
  return both;
}

std::vector<bool> rounds_near(const std::vector<double>& link_before, double link_after, double profile_ns, int n) {
  if (profile_ns <= 0 || n <= 0 || link_before.size() < size_t(n) || link_after <= 0) return {};
  std::vector<double> probes(link_before.begin(), link_before.begin() + n);
  probes.push_back(link_after);
  return rounds_between(probes, [&](double ns) { return ns > 0 && !core_link_far(ns, profile_ns); });  // 0: did not run
}

double probe_speed_ms(int threads) {
  if (threads < 1 || threads > kMaxProbeThreads || threads > available_thread_set_cpus()) return 0;
  static ProbeBuffers bufs;
  ScopedPin pin;
  std::vector<double> ms;
  for (int r = 0; r < kSpeedProbeRuns; ++r) ms.push_back(one_run_ms(threads, bufs));
  release_all_pools();  // our worker would spin on cpu1 into whatever runs next
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void SpeedSamples::add(int threads, double ms) {
  if (threads < 1 || !(ms > 0)) return;
  if (ms_.size() < size_t(threads)) ms_.resize(size_t(threads));
  ms_[size_t(threads - 1)].push_back(ms);
}

void SpeedSamples::add_link(double ns) {
  if (ns > 0) link_ns_.push_back(ns);
}

double SpeedSamples::sample(const std::vector<int>& threads, const std::function<double()>& link_probe) {
  for (int t : threads) add(t, probe_speed_ms(t));
  if (std::find(threads.begin(), threads.end(), 2) == threads.end()) return 0;
  const double ns = probe_core_link_ns(link_probe);
  add_link(ns);
  return ns;
}

std::vector<double> SpeedSamples::medians() const {
  std::vector<double> m(ms_.size(), 0.0);
  for (size_t t = 0; t < ms_.size(); ++t) m[t] = median_of(ms_[t]);
  return m;
}

double SpeedSamples::link_median() const { return median_of(link_ns_); }

double SpeedSamples::near_link_median() const {
  if (link_ns_.empty()) return 0;
  const double nearest = *std::min_element(link_ns_.begin(), link_ns_.end());
  std::vector<double> near;
  for (double ns : link_ns_)
    if (!core_link_far(ns, nearest)) near.push_back(ns);
  return median_of(near);
}

bool speed_drifted(double ratio) { return ratio > 0 && (ratio > 1.1 || ratio < 1 / 1.1); }

RecheckVerdict recheck_verdict(double drift_pct, double gap_pct, double gap_rechecked_pct) {
  if (!speed_drifted(1 + drift_pct / 100)) return RecheckVerdict::kSteady;
  return std::abs(gap_rechecked_pct) < std::abs(gap_pct) ? RecheckVerdict::kStale : RecheckVerdict::kMovedAlone;
}

std::vector<double> speed_ratios(const std::vector<double>& then_ms, const std::vector<double>& now_ms) {
  std::vector<double> r(std::max(then_ms.size(), now_ms.size()), 1.0);
  for (size_t t = 0; t < r.size(); ++t)
    if (t < then_ms.size() && t < now_ms.size() && then_ms[t] > 0 && now_ms[t] > 0) r[t] = now_ms[t] / then_ms[t];
  return r;
}

Lut lut_at_speed(const Lut& lut, const std::vector<double>& now_ms) {
  Lut r = lut;
  if (lut.runtime.speed_ms.empty()) return r;
  const std::vector<double> k = speed_ratios(lut.runtime.speed_ms, now_ms);
  auto of = [&](int threads) { return threads >= 1 && size_t(threads) <= k.size() ? k[size_t(threads - 1)] : 1.0; };
  for (LutLayer& l : r.layers)
    for (Impl& m : l.impls) {
      m.latency_ms.scale(of(m.threads));
    }
  for (Conversion& c : r.conversions) {
    const double f = of(std::max(r.formats[size_t(c.from_format)].threads, r.formats[size_t(c.to_format)].threads));
    c.chain_ms *= f;
    if (c.direct_ms > 0) c.direct_ms *= f;
  }
  r.runtime.input_copy_ms *= of(1);
  r.runtime.output_copy_ms *= of(1);
  return r;
}

}  // namespace lw
