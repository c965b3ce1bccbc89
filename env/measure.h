/// \file
/// The measurement protocol of the profiler (QS-DNN §V-A): discarded warm-up runs, then
/// timed runs until the coefficient of variation drops below a threshold or a run cap is
/// reached; the median is the figure the search uses. Only the callable is timed, so
/// weight packing, setup and cache preparation stay outside.
#pragma once
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>
#include <nlohmann/json.hpp>

#include "env/lut.h"
#include "libs/core/status.h"
#include "libs/ops/thread_pool.h"

namespace lw {

struct Protocol {
  int warmup = 1;             // discarded runs
  int runs = 20;              // timed runs at least
  double cv_threshold = 0.05; // keep measuring while stddev / mean is above this ...
  int max_runs = 100;         // ... up to this many timed runs
  /// Stop adding runs once this much time was spent on one measurement (seconds);
  /// big layers reach a stable median in fewer runs than the cap.
  double max_seconds = 2.0;
  /// Start every run with the private caches (L1, L2) of the thread set's cores evicted and
  /// only the inputs read back. Inside a network a layer's weights were last touched one
  /// inference ago and come from the shared cache or memory, while its input was just
  /// written by the producer; timing a layer back to back keeps its weights in L2 and read
  /// MobileNetV2's 1x1 and FC layers 1.6-2x faster than they run in the network.
  bool cold_cache = true;
  /// Cold runs start with the private caches full of dirty lines, as inside a network where
  /// the producer just wrote its output: the run's own data then replaces lines that must be
  /// written back first. Evicting with clean lines skipped those write-backs and read
  /// MobileNetV3-Large's small SE convolutions 2-4x faster than they run in the network.
  bool dirty_private = true;
  /// The bytes read between two timed runs (env/profiler.h cold_flush_bytes) cover, in the
  /// implementation's own packed weight bytes, the network's weights and its activation
  /// arena (the outputs placed with reuse, as the executor plans them), all of which pass
  /// through the caches between two runs of a layer in the network. Covering the weights
  /// only left MobileNetV2's int8 1280x1000 classifier (1.3 MB x 11 copies) in the shared
  /// cache: 0.022 ms in the LUT, 0.10 ms in the network (from memory).
  bool cover_activations = true;
  /// Cold runs start from the shared cache (L3) as the network leaves it for the layer:
  /// * the bytes read before each run are capped at 31 times the implementation's packed
  ///   weights (to keep profiles short) but never below the shared cache's size when the
  ///   network moves that much, so that a small layer's weights come from memory as they do
  ///   there, not from L3;
  /// * the output buffer is read back into the shared cache (not L1/L2) before the private
  ///   eviction: its arena slot was used a few layers before, so a big layer's output is
  ///   written over lines in L3, not fetched from memory;
  /// * the implementation's thread pool is woken after the preparation, as the previous step
  ///   on the same pool leaves it (a change of pool is the cost model's hand-off): reading
  ///   tens of MB outlasts libgomp's spin, and a sleeping worker added 20-40 us to each run.
  /// With 31 copies alone, MobileNetV2's, MobileNetV3-Large's and SqueezeNet's int8 small
  /// layers kept their weights in L3 and the LUT predicted their deployments 13-30 % fast;
  /// the flush alone overshot at 2 threads (the worker asleep: -20 ... -45 %) and on
  /// ResNet-50's big outputs (results/reference/shared-cache/).
  bool cover_shared_cache = true;
  /// With cover_shared_cache, the implementations of layers that read their weights once
  /// per inference and little else (output map 1x1 with weights: batch-1 classifiers,
  /// squeeze-excite convolutions) are timed a second time at the end of the profile with
  /// those weights as old as in the network: the caller waits one inference
  /// (env/profiler_retime.cc inference_estimate_ms) between the read of the other data and the
  /// run. On a shared host other tenants evict L3 within milliseconds: the int8 classifiers
  /// ran 4-5x slower in the network than in a LUT that timed them a flush (~0.5 ms) after
  /// their last read (results/reference/l3-age/, weight-age/). `--no-weight-age`.
  bool age_streamed_weights = true;
  /// With age_streamed_weights, so are the implementations of any layer whose packed weights
  /// fill this share of the shared cache or more (0: none): a flush leaves such weights
  /// partly where the network does not. On a Zen 5 VM ResNet-50's 3x3 256->256 conv
  /// timed 0.73 ms in native Winograd F(6x6) (16.8 MB of weights) a flush after its last read,
  /// 1.15 aged, and ran 1.10-1.22 in the network; F(4x4) (9.4 MB) 0.67 -> 0.91; oneDNN's
  /// Winograd (4.2 MB) and direct conv (2.4 MB) within 0-6 % (results/reference/big-weights/).
  /// The search picked F(6x6) five times from the first figure: opt-fp32 8 % slower than
  /// predicted and than oneDNN alone. Not so before 2026-12-07 evening, and without the key.
  double big_weights_share = 0.25;
  /// With cold_cache, a step whose inputs a 2-thread step writes in the network (a 2-thread
  /// implementation, or a conversion from a 2-thread format) starts with them as that step
  /// leaves them: each core of the thread set wrote its half (WarmSet::input_writers), not
  /// the caller alone read them all back. Read back on the caller, cpu1's half came from
  /// cpu0's caches, a transfer per line that the network's 2-thread steps mostly do not pay:
  /// on a Zen 5 VM with the vCPUs ~450-550 ns apart, bench's recheck (this protocol's figures
  /// timed again during the rounds) missed GoogLeNet's and SqueezeNet's 2-thread deployments
  /// by +0.5 ... +13 % (medians of six rounds) with inputs read back, +0.4 ... +7.6 % with
  /// them written in halves (results/reference/pool-inputs/). Where a 1-thread step feeds a
  /// 2-thread one (or the reverse) the cost model charges the half that crosses.
  bool inputs_from_writers = true;
  /// With cold_cache, streamed outputs (env/cost.h) are measured: where each implementation's
  /// runs leave their output (Impl::output_in_memory) and, for steps without weights and for
  /// converters, what a run takes longer with its input in memory (input_in_memory_ms). oneDNN's
  /// f32 3x3 convs leave their output in memory as non-temporal stores do; a max-pool on 3.2 MB
  /// of it ran 0.30-0.32 ms against 0.13 with its input in the caches, as profiled
  /// (results/reference/streamed-outputs/). Not measured before 2026-12-02.
  bool streamed_outputs = true;
  /// With cold_cache, each core of the thread set computes (GEMMs on private buffers, a few
  /// hundred KB) for this many microseconds after the read of the other data and before the
  /// private eviction (0: not). In the network the steps before a layer keep the cores
  /// computing; the preparation's reads leave them without such work for up to milliseconds,
  /// and on a Zen 3 VM a small oneDNN conv then ran up to 2x slower than right after ~1 ms of
  /// any conv or GEMM (not after 5 ms of register-only multiply-adds or of spinning), so the
  /// LUT predicted MobileNetV2's and MobileNetV3-Large's 1-thread deployments 10-41 % slow
  /// (results/reference/zen3-computing/ab/). `--computing-us`. Not so before the evening of
  /// 2026-12-02.
  double computing_us = 500;
  /// With cold_cache, the primitive's warm_call_path() runs last before each run
  /// (libs/ops/primitive.h): the library's dispatch code and bookkeeping warm, as the steps
  /// before leave them in the network, while its data stays cold. Without it the eviction
  /// took LibTorch's dispatcher out of the caches, and the LUT put MobileNetV2's LibTorch
  /// convolutions at 1.5-2x what they took in the network (results/reference/call-path/).
  /// `--cold-call-path` turns it off. Not so before 2026-12-07.
  bool warm_call_path = true;
  /// Whether streamed weights are timed an inference old: age_streamed_weights under the
  /// shared-cache protocol it belongs to.
  bool ages_streamed_weights() const { return cold_cache && cover_shared_cache && age_streamed_weights; }
  /// The packed weight bytes from which an implementation is aged whatever its layer (0: none).
  size_t big_weights_bytes() const;
  /// With thread set 2, the 2-thread implementations of a layer timed while the host had put
  /// the two vCPUs far apart (env/speed_probe.h core_link_far of the profile's nearest probe,
  /// before or after the layer) are timed again at the end of the profile once the cores
  /// are near, waiting for that at most this many seconds in all (0: keep the first
  /// timings). In such spells memory-bound 2-thread layers ran 2-3x slower, and identical
  /// layers took the figure from the cache: a Zen 4 VM's MobileNetV2 LUT had its depthwise
  /// convolutions at 0.048 ms that ran 0.017 ms in the network (results/reference/far-cores/).
  /// `--far-wait`.
  double far_cores_wait_s = 120;
  /// Zero point of the activations int8 kernels are timed with (env/profiler.cc timing_quant):
  /// a ReLU output's, as calibration gives almost every activation a nonzero one.
  int int8_zero_point = -128;
  /// Also stop (after `runs`) once the 95 % confidence interval of the median, from order
  /// statistics, lies within +-median_ci of it (0: off). Unlike the CV it ignores the odd
  /// slow run of a shared machine, which otherwise keeps a measurement going to its caps.
  double median_ci = 0;
  /// The profiler's early stop (env/profiler.cc; 0: off, every implementation measured to
  /// the end): abandon an implementation once the fastest of its runs exceeds (1 + margin) x
  /// the median of one it cannot beat in any search (same layer, formats and fusion, no
  /// more memory), and record it "skipped".
  double early_stop_margin = 0;
  /// GOMP_SPINCOUNT of this process ("" = libgomp's default): how long oneDNN's OpenMP
  /// worker spins after a parallel region before it sleeps, so whether a 2-thread oneDNN
  /// run finds it awake. The CLI sets it for every command (explorer/cli/main.cc).
  std::string omp_spincount = process_omp_spincount();

  /// The process's GOMP_SPINCOUNT ("" when unset). Inline: Protocol's defaults stay
  /// header-only for what reads configs without linking the profiler (fuzz_config).
  static std::string process_omp_spincount() {
    const char* s = std::getenv("GOMP_SPINCOUNT");
    return s ? s : "";
  }
  nlohmann::json to_json() const;
  bool operator==(const Protocol& o) const;
};

/// What a cold-cache run starts from (Protocol::cold_cache): the thread set whose cores'
/// private caches are evicted, and the buffers read back afterwards (the step's inputs).
struct WarmSet {
  int threads = 1;
  std::vector<std::pair<const void*, size_t>> buffers;
  /// Cores that write the buffers in the network (the producer's thread set): with 2 and
  /// Protocol::inputs_from_writers, each core writes its half back instead of the caller
  /// reading them all.
  int input_writers = 1;
  bool evict = true;  // false: only read the buffers back (a network that fits in L2)
  /// Bytes read from a buffer of other data before each run: what passes through the shared
  /// cache between two runs of a layer inside the network (env/profiler.h cold_flush_bytes),
  /// so that a big layer meets its weights in memory as it does there (0: none).
  size_t flush_bytes = 0;
  /// Read after the other data and before the private eviction, so that they start in the
  /// shared cache only (the output's arena slot).
  std::vector<std::pair<const void*, size_t>> shared_buffers;
  /// Called last before each run (untimed): wakes the thread pool the run uses.
  std::function<void()> wake;
  /// Called after wake with Protocol::warm_call_path (untimed): the primitive's
  /// warm_call_path().
  std::function<void()> warm_call_path;
  /// Spun on the caller after the other data and shared_buffers, before the private
  /// eviction, touching no memory: how old the layer's weights are when it runs in the
  /// network (Protocol::age_streamed_weights; 0: no wait).
  double age_ms = 0;
  /// The pool the step runs on in the network: measure() lends it to the step's parallel_for
  /// (ScopedRangePool), as the executor does, under every protocol.
  ThreadPoolId pool = ThreadPoolId::kCaller;
  /// The buffers flushed to memory before each run instead of read back (the input a
  /// streaming producer leaves: Protocol::streamed_outputs).
  bool buffers_in_memory = false;
  /// When set (bytes > 0), measure() reads this buffer, the step's output, right after each
  /// timed run (untimed), and at the end after plain stores and from memory: *in_memory gets
  /// where the runs left it, 0 (as plain stores) ... 1 (as in memory).
  struct OutputProbe {
    const void* ptr = nullptr;
    size_t bytes = 0;
    double* in_memory = nullptr;
  } output_probe;

  /// Sets `pool`; with p.cold_cache and p.cover_shared_cache, a step that writes `out` on
  /// `pool` also starts as inside the network: the output read into the shared cache
  /// (shared_buffers) and the pool woken last (wake; nothing for the caller). Layers and
  /// conversions alike.
  void start_as_in_network(const Protocol& p, const void* out, size_t out_bytes, ThreadPoolId pool);
};

/// The quick profile, every command's default (`profile`, `bench`, a config's "profile"
/// unless "protocol": "exhaustive"): at least 5 timed runs, then stop as soon as the CV or
/// the median's confidence interval allows, at most 20 runs or 0.5 s; early stop at a 25 %
/// margin. Protocol{} is the paper's exhaustive protocol. Inline: configs read it without
/// linking the profiler (fuzz_config).
inline Protocol quick_protocol() {
  Protocol p;
  p.runs = 5;
  // The paper's count. At 50, on a shared machine (load 6 on 2 cores), 2286 of the 7388
  // measurements of a ResNet-50 LUT ran to the cap: noise that more runs do not shrink.
  p.max_runs = 20;
  p.max_seconds = 0.5;
  p.median_ci = 0.03;
  p.early_stop_margin = 0.25;
  return p;
}

/// The protocols a profile starts from, by name: "quick" (quick_protocol(), every command's
/// default) and "exhaustive" (Protocol{}, `--exhaustive`, a config's "protocol").
constexpr const char* kQuickProtocol = "quick";
constexpr const char* kExhaustiveProtocol = "exhaustive";
inline Protocol protocol_base(const std::string& name) {
  return name == kExhaustiveProtocol ? Protocol{} : quick_protocol();
}

/// Asked after every timed run with the times so far (ms); true stops the measurement there
/// (the profiler's early stop on an implementation that cannot be chosen).
using GiveUp = std::function<bool(const std::vector<double>& ms)>;

/// Times `fn` under the protocol. With `warm` and p.cold_cache, each run (warm-up included)
/// is preceded, untimed, by a read of warm->flush_bytes of other data (spread over the thread
/// set's cores) and of warm->shared_buffers, a wait of warm->age_ms, p.computing_us of
/// GEMMs on each core of the thread set,
/// evict_private_caches(warm->threads, p.dirty_private), warm->buffers written back in halves by
/// the cores of warm->input_writers (Protocol::inputs_from_writers), warm->wake and a read of
/// the buffers not written so.
/// A non-ok status from fn stops and is returned. With `give_up`, *gave_up says whether it
/// stopped the measurement (out then holds the runs made so far).
Status measure(const Protocol& p, const std::function<Status()>& fn, LatencyStats* out, const WarmSet* warm = nullptr,
               const GiveUp* give_up = nullptr, bool* gave_up = nullptr);

/// Outputs and inputs smaller than this are not probed for streamed outputs: they stay in L2,
/// where memory and the caches differ by less than the timer resolves.
constexpr size_t kStreamProbeMinBytes = size_t(256) << 10;

/// Relative half-width of the ~95 % confidence interval of the median of `sorted` (ranks
/// n/2 -+ 0.98 sqrt(n), distribution-free); infinity below 5 samples.
double median_ci_halfwidth(const std::vector<double>& sorted);

/// Bytes of one core's private data caches (L1d + L2), from sysfs (cpu0's cache indices), else
/// sysconf (2 MiB + 48 KiB if unknown).
size_t private_cache_bytes();
/// The shared (last-level, L3) cache's bytes as cpu0 sees it, from sysfs, else sysconf; 0
/// when the system does not say.
size_t shared_cache_bytes();

/// Evicts the L1 and L2 of the cores of thread set `threads` by touching a buffer of twice
/// their size on each of them: reading it (clean lines) or, with `dirty`, writing it, so
/// that the next run's data replaces dirty lines as in a network (Protocol::dirty_private).
void evict_private_caches(int threads, bool dirty = false);

/// Fills a timing input with seeded values (f32 uniform in [-1, 1], other dtypes random
/// bytes). Never time on an unwritten buffer: large fresh allocations read as the kernel's
/// shared zero page, which stays in cache and makes memory-bound kernels look free.
void fill_random(Tensor& t, uint64_t seed);

/// Statistics of a sample of times (ms): median, min, p90 (nearest rank), cv (stddev/mean).
LatencyStats latency_stats(std::vector<double> ms);

}  // namespace lw
