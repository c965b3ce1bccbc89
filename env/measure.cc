#include "env/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <cstdlib>
#include <fstream>
#include <string>
#include <random>
#include <unistd.h>
#if defined(__x86_64__) || defined(__SSE2__)
#include <immintrin.h>
#endif

#include "libs/native/native.h"
#include "libs/ops/thread_pool.h"

namespace lw {

nlohmann::json Protocol::to_json() const {
  nlohmann::json j = {{"warmup", warmup},           {"runs", runs},           {"cv_threshold", cv_threshold},
                      {"max_runs", max_runs},       {"max_seconds", max_seconds}, {"statistic", "mean"},
                      {"cache", !cold_cache ? "warm" : dirty_private ? "cold-private-dirty" : "cold-private"}};
  // Absent when off, so LUTs (and LUT cache keys) of the paper protocol keep their text.
  if (median_ci > 0) j["median_ci"] = median_ci;
  if (early_stop_margin > 0) j["early_stop_margin"] = early_stop_margin;
  if (cold_cache && cover_activations) {
    // The activations as the arena the executor plans (every layer's output before
    // 2026-11-27, "weights+activations").
    j["copies_cover"] = "weights+arena";
    // In the implementation's activation type (env/profiler_warm.cc passing_bytes; f32 for
    // every implementation before 2026-11-25).
    j["network_bytes_in"] = "implementation-dtype";
  }
  if (cold_cache && cover_shared_cache) {
    j["flush_at_least"] = "shared-cache";
    // Its size as used (from sysfs; sysconf's before 2026-11-27, 8x too big on an EPYC VM).
    j["shared_cache_bytes"] = shared_cache_bytes();
    j["output_starts_in"] = "shared-cache";
    j["thread_pool"] = "awake";
    j["conversions"] = "as-layers";  // the output and pool as above (not so before 2026-11-24)
    // An output the primitive adds to (a residual) read back like an input (not so before
    // the afternoon of 2026-11-24: env/profiler_warm.cc set_up_buffers).
    j["residual_starts_in"] = "private-cache";
    // Timed a second time, an inference after their last read (not so before 2026-11-26).
    if (ages_streamed_weights()) j["streamed_weights_age"] = "inference";
    // ... and implementations with big weights (not so before 2026-12-07 evening, and without
    // this key): the share of the shared cache from which they are.
    if (ages_streamed_weights() && big_weights_share > 0) j["weights_aged_from_shared_cache"] = big_weights_share;
  }
  // A 2-thread producer's output written back in halves by its cores (read back by the caller
  // before 2026-11-28 night, and without this key).
  if (cold_cache && inputs_from_writers) j["inputs_start_in"] = "their-writers";
  // Where each implementation leaves its output, and what steps without weights and
  // converters pay for an input in memory (not so before 2026-12-02, and without this key).
  if (cold_cache && streamed_outputs) j["streamed_outputs"] = "measured";
  // The library's call path warm before each run (not so before 2026-12-07, and without
  // this key).
  if (cold_cache && warm_call_path) j["library_call_path"] = "warm";
  // The cores computing before each run (not so before the evening of 2026-12-02, and
  // without these keys).
  if (cold_cache && computing_us > 0) {
    j["cores_before_run"] = "computing";
    j["computing_us"] = computing_us;
  }
  // Layers timed with the cores far apart, timed again near (not so before 2026-11-26 noon).
  if (far_cores_wait_s > 0) j["far_cores"] = "timed-again-near";
  // ... and so are layers timed with the two vCPUs computing as one core (speed_probe.h
  // probe_core_pair_ratio; not so before 2026-11-29 noon, and without this key).
  if (far_cores_wait_s > 0) j["shared_core"] = "timed-again-apart";
  if (int8_zero_point != 0) j["int8_zero_point"] = int8_zero_point;
  if (!omp_spincount.empty()) j["omp_spincount"] = omp_spincount;
  // Native kernels on libgomp's team (libs/ops/thread_pool.h; on our own worker before
  // 2026-11-26 evening, and without this key).
  if (native_kernels_pool() != ThreadPoolId::kNative) j["native_kernels_on"] = to_string(native_kernels_pool());
  // XNNPACK's 2-thread steps on libgomp's team (libs/xnnpack/omp_pthreadpool.cc; on
  // pthreadpool's own worker before 2026-11-27 afternoon, and without this key).
  j["xnnpack_on"] = to_string(ThreadPoolId::kOpenmp);
  return j;
}

double median_ci_halfwidth(const std::vector<double>& x) {
  const size_t n = x.size();
  if (n < 5) return std::numeric_limits<double>::infinity();
  const double half = 0.98 * std::sqrt(double(n));
  const size_t lo = size_t(std::max(0.0, std::floor(n / 2.0 - half)));
  const size_t hi = std::min(n - 1, size_t(std::ceil(n / 2.0 + half)) - 1);
  const double med = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
  return med > 0 ? 0.5 * (x[hi] - x[lo]) / med : 0;
}

bool Protocol::operator==(const Protocol& o) const { return to_json() == o.to_json(); }

size_t Protocol::big_weights_bytes() const {
  return ages_streamed_weights() && big_weights_share > 0 ? size_t(big_weights_share * double(shared_cache_bytes())) : 0;
}

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
  // (a run that long was interrupted: a preemption the network's median mostly does not meet)
  double kept = 0;
  int k = 0;
  for (double x : ms)
    if (x <= LatencyStats::kInterruption * s.median) kept += x, ++k;
  s.mean = k ? kept / k : s.median;
  return s;
}

namespace {

constexpr size_t kLine = 64;

// Reads one word per cache line; the sum is consumed so the loads are not optimised out.
uint64_t read_lines(const void* p, size_t bytes) {
  const auto* b = static_cast<const uint8_t*>(p);
  uint64_t sum = 0;
  for (size_t i = 0; i < bytes; i += kLine) sum += b[i];
  return sum;
}

// One eviction buffer per thread-set slot, written once so its pages are real (an unwritten
// buffer reads as the shared zero page and evicts nothing).
struct EvictionBuffers {
  std::vector<std::vector<uint8_t>> per_slot;
  EvictionBuffers() {
    for (int k = 0; k < 2; ++k) per_slot.emplace_back(2 * private_cache_bytes(), uint8_t(k + 1));
  }
};

volatile uint64_t g_sink;

// Runs fn(k, slots) once on each core k of the thread set of `threads` (slots of them), then
// parks our cpu1 worker: it would otherwise spin after and hold cpu1 against the worker of
// the library being timed.
template <class F>
void on_each_core(int threads, F&& fn) {
  const int slots = std::min(std::max(threads, 1), available_thread_set_cpus());
  on_each_cpu(slots, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) fn(int(k), slots);
  });
  if (slots > 1) park_thread_set_worker();
}

// Stands for the other layers' data (WarmSet::flush_bytes): written once, so its pages
// are real, and grown to the largest request. Each core of the thread set reads its share,
// as the network's steps on that many threads do (and a second core halves the time).
uint64_t read_other_data(size_t bytes, int threads) {
  static std::vector<uint8_t> other;
  if (other.size() < bytes) other.assign(bytes, uint8_t(3));
  uint64_t sums[2] = {0, 0};
  on_each_core(threads, [&](int k, int slots) {
    const size_t share = (bytes / size_t(slots) + kLine - 1) / kLine * kLine;
    const size_t from = std::min(bytes, size_t(k) * share), to = std::min(bytes, from + share);
    sums[k] = read_lines(other.data() + from, to - from);
  });
  return sums[0] + sums[1];
}

// Each of two cores writes one byte per line of its half of every buffer back unchanged, as a
// 2-thread producer leaves its output: dirty, half in each core's caches.
void write_back_halves(const std::vector<std::pair<const void*, size_t>>& buffers) {
  on_each_core(2, [&](int k, int) {
    for (const auto& [ptr, bytes] : buffers) {
      auto* b = static_cast<volatile uint8_t*>(const_cast<void*>(ptr));
      const size_t half = bytes / 2 / kLine * kLine, from = k ? half : 0, to = k ? bytes : half;
      for (size_t i = from; i < to; i += kLine) b[i] = b[i];
    }
  });
}

// Every line of a buffer out of every cache level (written back to memory if dirty).
void flush_lines(const void* ptr, size_t bytes) {
#if defined(__x86_64__) || defined(__SSE2__)
  const char* b = static_cast<const char*>(ptr);
  for (size_t i = 0; i < bytes; i += kLine) _mm_clflush(b + i);
  _mm_mfence();
#else
  (void)ptr, (void)bytes;  // (no portable flush: the probe then reads 0)
#endif
}

// One load per line in a scattered order (line i * stride mod lines, stride coprime to the
// count): no prefetcher follows it, so the time counts the lines in memory, where a
// sequential read hides them (oneDNN's 7x7 first conv: 3.2 MB read sequentially 0.071 ms
// after it, 0.061 after plain stores, 0.145 from memory; scattered 0.41, 0.18, 0.49).
double timed_scattered_read_ms(const void* ptr, size_t bytes) {
  const size_t lines = bytes / kLine;
  if (lines == 0) return 0;
  size_t stride = 2654435761u % lines;
  while (std::gcd(stride, lines) != 1) ++stride;
  const volatile uint8_t* b = static_cast<const volatile uint8_t*>(ptr);
  uint64_t sum = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0, at = 0; i < lines; ++i, at = (at + stride) % lines) sum += b[at * kLine];
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  g_sink = sum;
  return ms;
}

constexpr size_t kOutputProbeRuns = 5;

// Where the runs left the output (WarmSet::OutputProbe): a scattered read right after each run
// (`after`) against the same read with the buffer as the profiler leaves a step's input (the
// private caches evicted, then it read back) and from memory, medians of a few of each: the
// share of the way from the one to the other. 0 when the two are too close to tell apart.
double output_in_memory(const WarmSet::OutputProbe& probe, const std::vector<double>& after) {
  constexpr int kReads = 3;
  std::vector<double> cached, memory;
  for (int i = 0; i < kReads; ++i) {
    evict_private_caches(1, true);
    g_sink = read_lines(probe.ptr, probe.bytes);
    cached.push_back(timed_scattered_read_ms(probe.ptr, probe.bytes));
    flush_lines(probe.ptr, probe.bytes);
    memory.push_back(timed_scattered_read_ms(probe.ptr, probe.bytes));
  }
  const double c = latency_stats(std::move(cached)).median, m = latency_stats(std::move(memory)).median,
               a = latency_stats(after).median;
  if (m < 1.2 * c) return 0;
  return std::clamp((a - c) / (m - c), 0.0, 1.0);
}

// What the steps before a layer leave the cores doing in the network (Protocol::computing_us):
// GEMMs (64x256 by 256x64, ~150 KB, in L2) on each core of the thread set for `us`. Register-
// only multiply-adds or a spin did not leave the cores as the network does; these do.
void compute_for_us(int threads, double us) {
  on_each_core(threads, [&](int, int) {
    static thread_local std::vector<float> a(64 * 256, 0.5f), b(256 * 64, 0.25f), c(64 * 64, 0.f);
    const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(int64_t(us * 1e3));
    while (std::chrono::steady_clock::now() < until)
      native_gemm(1, 64, 64, 256, a.data(), 256, b.data(), 64, c.data(), 64, false);
    g_sink = uint64_t(c[0]);
  });
}

// The job that wakes a pool before a cold run: a microsecond of spinning on each thread.
constexpr double kWakeItemUs = 1.0;

}  // namespace

void WarmSet::start_as_in_network(const Protocol& p, const void* out, size_t out_bytes, ThreadPoolId pool) {
  this->pool = pool;
  if (!p.cold_cache || !p.cover_shared_cache) return;
  shared_buffers.emplace_back(out, out_bytes);
  if (pool != ThreadPoolId::kCaller) wake = [pool] { run_pool_job(pool, kWakeItemUs); };
}

namespace {

// The size of cpu0's data or unified cache of `level` from sysfs, 0 if unknown. glibc's
// sysconf derives L3 from CPUID and on an AMD EPYC VM (Zen 3) reported 256 MiB, the
// sum over the socket's eight CCXs, where sysfs (and lscpu) gave the 32 MiB one core shares.
size_t sysfs_cache_bytes(int level) {
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream lv(dir + "level"), type(dir + "type"), size(dir + "size");
    int l = 0;
    std::string t, sz;
    if (!(lv >> l) || !(type >> t) || !(size >> sz)) continue;
    if (l != level || t == "Instruction" || sz.empty()) continue;
    const char unit = sz.back();
    const size_t n = std::strtoull(sz.c_str(), nullptr, 10);
    return unit == 'K' ? n << 10 : unit == 'M' ? n << 20 : unit == 'G' ? n << 30 : n;
  }
  return 0;
}

size_t cache_bytes(int level, int sysconf_name, size_t fallback) {
  if (const size_t b = sysfs_cache_bytes(level)) return b;
  const long s = sysconf(sysconf_name);
  return s > 0 ? size_t(s) : fallback;
}

}  // namespace

// Read once per process: the profiler asks for both before every timed implementation, and
// each read opens up to 24 sysfs files.
size_t private_cache_bytes() {
  static const size_t bytes =
      cache_bytes(1, _SC_LEVEL1_DCACHE_SIZE, 48 << 10) + cache_bytes(2, _SC_LEVEL2_CACHE_SIZE, 2 << 20);
  return bytes;
}

size_t shared_cache_bytes() {
  static const size_t bytes = cache_bytes(3, _SC_LEVEL3_CACHE_SIZE, 0);
  return bytes;
}

void evict_private_caches(int threads, bool dirty) {
  static EvictionBuffers buffers;
  on_each_core(threads, [&](int k, int) {
    std::vector<uint8_t>& v = buffers.per_slot[k];
    if (dirty) {
      for (size_t i = 0; i < v.size(); i += kLine) v[i] = uint8_t(v[i] + 1);
    } else {
      g_sink = read_lines(v.data(), v.size());
    }
  });
}

Status measure(const Protocol& p, const std::function<Status()>& fn, LatencyStats* out, const WarmSet* warm,
               const GiveUp* give_up, bool* gave_up) {
  if (gave_up) *gave_up = false;
  ScopedRangePool lend(warm ? int(warm->pool) : -1);  // (the preparation inside it, as before)
  using clock = std::chrono::steady_clock;
  auto prepare = [&] {
    if (!p.cold_cache || !warm) return;
    uint64_t sum = warm->flush_bytes ? read_other_data(warm->flush_bytes, warm->threads) : 0;
    for (const auto& [ptr, bytes] : warm->shared_buffers) sum += read_lines(ptr, bytes);
    if (warm->age_ms > 0) busy_for_us(warm->age_ms * 1e3);
    if (p.computing_us > 0) compute_for_us(warm->threads, p.computing_us);
    if (warm->evict) evict_private_caches(warm->threads, p.dirty_private);
    const bool halves = p.inputs_from_writers && warm->input_writers > 1 && available_thread_set_cpus() > 1;
    if (warm->buffers_in_memory) {
      for (const auto& [ptr, bytes] : warm->buffers) flush_lines(ptr, bytes);
    } else if (halves) {
      write_back_halves(warm->buffers);
    }
    if (warm->wake) warm->wake();
    if (p.warm_call_path && warm->warm_call_path) warm->warm_call_path();
    if (!halves && !warm->buffers_in_memory)
      for (const auto& [ptr, bytes] : warm->buffers) sum += read_lines(ptr, bytes);
    g_sink = sum;
  };
  for (int i = 0; i < p.warmup; ++i) {
    prepare();
    LW_RETURN_IF_ERROR(fn());
  }
  std::vector<double> ms, output_reads;
  ms.reserve(p.max_runs);
  const WarmSet::OutputProbe* probe = warm && warm->output_probe.bytes > 0 && p.cold_cache ? &warm->output_probe : nullptr;
  auto start = clock::now();
  for (;;) {
    prepare();
    auto t0 = clock::now();
    LW_RETURN_IF_ERROR(fn());
    ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
    // (the first runs' outputs: enough for a median, and the reads add to the profile's time)
    if (probe && output_reads.size() < kOutputProbeRuns)
      output_reads.push_back(timed_scattered_read_ms(probe->ptr, probe->bytes));
    if (give_up && (*give_up)(ms)) {
      if (gave_up) *gave_up = true;
      break;
    }
    int n = int(ms.size());
    if (n < p.runs) continue;
    if (n >= p.max_runs) break;
    if (std::chrono::duration<double>(clock::now() - start).count() >= p.max_seconds) break;
    if (latency_stats(ms).cv <= p.cv_threshold) break;
    if (p.median_ci > 0) {
      std::vector<double> sorted = ms;
      std::sort(sorted.begin(), sorted.end());
      if (median_ci_halfwidth(sorted) <= p.median_ci) break;
    }
  }
  *out = latency_stats(std::move(ms));
  if (probe && probe->in_memory) *probe->in_memory = output_in_memory(*probe, output_reads);
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
