/// \file
/// The core dimension of the design space: pinned thread sets. Thread set 1 is the calling
/// thread pinned to cpu0; thread set 2 adds one persistent worker pinned to cpu1. Native
/// kernels split their work with parallel_for(threads, ...); nothing here allocates per
/// call, so primitives can use it inside run().
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace lw {

/// Flushes denormals on the calling thread for its lifetime (see become_thread_set_worker)
/// and restores the thread's FP mode after.
class ScopedFlushDenormals {
 public:
  ScopedFlushDenormals();
  ~ScopedFlushDenormals();
  ScopedFlushDenormals(const ScopedFlushDenormals&) = delete;
  ScopedFlushDenormals& operator=(const ScopedFlushDenormals&) = delete;

 private:
  unsigned fp_mode_ = 0;
};

/// Pins the calling thread to cpu0 for its lifetime and restores the previous affinity.
/// The executor, the profiler and benchmarks hold one while running primitives. It also
/// flushes denormals (ScopedFlushDenormals). Pins nest: one held inside another (the
/// executor's run() inside a timing loop's) makes no system call, so a loop of inferences
/// that holds one pays for pinning once, not per inference.
class ScopedPin {
 public:
  ScopedPin();
  ~ScopedPin();
  ScopedPin(const ScopedPin&) = delete;
  ScopedPin& operator=(const ScopedPin&) = delete;

 private:
  ScopedFlushDenormals flush_;
  bool restored_ = false;
  alignas(8) unsigned char old_mask_[128];
};

/// True while the calling thread holds a ScopedPin.
bool caller_pinned();

/// Makes the calling thread a thread-set worker: pins it to `cpu` (false if that failed) and
/// flushes denormals on it, as every cpu1 worker does once (ours, libgomp's thread 1, which
/// also runs XNNPACK's 2-thread steps) and the caller under ScopedPin. Flushing: denormal inputs read
/// as zero and denormal results are written as zero (x86 MXCSR DAZ + FTZ; nothing elsewhere).
/// Why: a random-weight network's activations decay into denormals, on which FP arithmetic
/// takes a slow path. MobileNetV3-Large's opt-fp32 at 1 thread ran 4.07 ms with them and
/// 3.45 ms flushed, while the LUT, timed on random inputs without any, predicted the latter.
/// Values below 1.2e-38 become 0: nothing an inference result can show.
bool become_thread_set_worker(int cpu);

/// Asks the scheduler for a short time slice (kWakeSliceUs) for the calling thread, keeping
/// its policy and nice value; true when the kernel took it (Linux >= 6.12, EEVDF custom
/// slices; older kernels ignore the request, other systems have none).
/// Why: libgomp's cpu1 worker spins ~0.25 ms after every OpenMP step (GOMP_SPINCOUNT), and
/// cannot be parked. A worker of another pool woken on cpu1 meanwhile waited for the whole
/// spin: EEVDF lets a woken thread preempt the running one only when its slice is shorter.
/// With this slice on the woken worker, an XNNPACK job after an OpenMP step took 42-46 us
/// instead of 255 us (two 30 us items; p90 256-269 -> 43-52 us), and MobileNetV3-Large's
/// 2-thread deployments came within +0.5 ... +15 % of their predictions in runs with the
/// cores near, from +15 ... +21 % (results/reference/wake-slice/). Unlike a lower priority
/// for libgomp's worker (tried: GoogLeNet 3x slower, results/reference/omp-worker-priority/),
/// a slice changes no thread's share of the CPU. Our cpu1 worker calls it (XNNPACK's did
/// while it had a pool of its own); libgomp's, the spinner, keeps the default slice.
bool shorten_wake_slice();
/// Whether shorten_wake_slice took effect on every worker that asked (false before any asked).
bool wake_slice_shortened();
/// The calling thread's scheduler slice in ns as the kernel reports it (sched_getattr's
/// sched_runtime: its custom or default slice on Linux >= 6.12, 0 before); none where the
/// kernel cannot tell.
std::optional<uint64_t> thread_slice_ns();
constexpr int kWakeSliceUs = 100;  // the kernel's minimum custom slice

/// Starts the cpu1 worker now (instead of on first use) so its start is never timed.
void start_thread_sets();
/// Number of CPUs the pinned sets can use (2 when cpu1 exists and is allowed).
int available_thread_set_cpus();
/// The CPU of thread-set slot k (0: "cpu0", 1: "cpu1"): the k-th CPU the process was allowed
/// when thread sets were first used, so backends pin their own workers to the same CPUs.
/// -1 when there is no such CPU.
int thread_set_cpu(int k);

/// Every pool with workers on cpu1 (ours; XNNPACK's pthreadpool until it moved onto
/// libgomp's team, libs/xnnpack/omp_pthreadpool.cc) lets them spin after a job so that
/// back-to-back jobs start at once. A spinning worker of one pool keeps another
/// pool's worker off cpu1 for up to a scheduler slice (measured: 10-28 ms stalls when a
/// 2-thread deployment alternates XNNPACK and native steps). So the executor asks a pool
/// to park its workers when the next 2-thread step belongs to another pool. Pools are
/// identified by an int (the executor uses the Library enum value).
using PoolReleaseFn = void (*)();
void register_pool_release(int pool, PoolReleaseFn fn);
/// Parks `pool`'s workers (no-op for a pool that registered nothing).
void release_pool(int pool);
/// Parks every pool's workers. Between runs of different deployments (bench, the filter's
/// interleaved rounds): the executor leaves the pool of its last 2-thread step spinning for
/// its own next run, and another deployment would find that worker holding cpu1. GoogLeNet's
/// all-oneDNN deployment at 2 threads measured 16.0-16.5 ms (CV 0.31) behind the native and
/// XNNPACK ones, 8.1-8.8 ms with every pool parked first (results/reference/in-network/).
void release_all_pools();
/// Our cpu1 worker goes to sleep as soon as it is idle instead of spinning first.
void park_thread_set_worker();
/// 2-thread jobs on our cpu1 worker whose second half the caller ran itself because the
/// worker had not started it (parallel_for's take-back), since the process started. Such a
/// step ran at 1-thread speed; the executor's step timing counts them per step
/// (ExecStep::last_alone) to show where a late worker, not the kernel, cost the time.
uint64_t caller_ran_alone_count();

/// The pools a step runs on; a 1-thread step runs on the caller alone. The executor marks
/// releases and the cost model charges hand-offs by these (oneDNN and LibTorch share
/// libgomp's team, so they are one pool).
enum class ThreadPoolId {
#define X(e, s) e,
#include "libs/ops/thread_pool_id.inc"
#undef X
};
constexpr int kThreadPoolCount = 0
#define X(e, s) +1
#include "libs/ops/thread_pool_id.inc"
#undef X
    ;
const char* to_string(ThreadPoolId p);
std::optional<ThreadPoolId> parse_thread_pool(const std::string& s);

/// The pool that native kernels' (and OpenBLAS's, and 2-thread conversions') parallel_for
/// runs its second half on in a deployment: thread_pool_of(Library::kNative, 2), what the
/// executor and the profiler lend such a step (ScopedRangePool). kOpenmp (the default):
/// libgomp's team, oneDNN's and LibTorch's; kNative: our own cpu1 worker. Why libgomp's:
/// a third pool's worker on cpu1 competed with libgomp's spinning one. After an OpenMP step
/// our worker, woken for a native step that followed XNNPACK's, waited out the rest of
/// libgomp's ~0.25 ms spin when it had itself run shortly before (results/reference/
/// handoff-curve/spincount/), so such steps ran at 1-thread speed, a three-step state that
/// the pairwise hand-off matrix cannot charge. On libgomp's team a native step finds the
/// worker that the OpenMP step left spinning, and there are two pools to hand off between.
/// The setting, not where the work lands: a parallel_for lent a pool without a registered
/// range runner (kOpenmp in a process that has not registered oneDNN) runs on our worker.
/// Set before planning or profiling; the LUT's protocol records it (env/measure.cc).
void set_native_kernels_pool(ThreadPoolId pool);
ThreadPoolId native_kernels_pool();
/// Sets native_kernels_pool() for a scope and restores the previous setting (tests, A/B code).
class ScopedNativeKernelsPool {
 public:
  explicit ScopedNativeKernelsPool(ThreadPoolId pool) : previous_(native_kernels_pool()) { set_native_kernels_pool(pool); }
  ~ScopedNativeKernelsPool() { set_native_kernels_pool(previous_); }
  ScopedNativeKernelsPool(const ScopedNativeKernelsPool&) = delete;
  ScopedNativeKernelsPool& operator=(const ScopedNativeKernelsPool&) = delete;

 private:
  ThreadPoolId previous_;
};

/// A job on `pool`'s two threads: each runs a busy item of `item_us` microseconds, so a
/// profiler can time how long the pool takes to start after another pool ran (a hand-off).
using PoolJobFn = void (*)(double item_us);
void register_pool_job(ThreadPoolId pool, PoolJobFn fn);
/// Runs the job on `pool` (the caller's pool: one item on the caller). False when the pool
/// registered none (its library is not built in, or it cannot run a plain job: OpenBLAS).
bool run_pool_job(ThreadPoolId pool, double item_us);
/// Spins the calling thread for `us` microseconds (the items of the jobs above).
void busy_for_us(double us);

namespace detail {
using RangeFn = void (*)(void* ctx, int64_t begin, int64_t end);
}  // namespace detail

/// Runs fn(ctx, 0, mid) on the caller and fn(ctx, mid, n) on `pool`'s cpu1 thread, and waits
/// for both: how a library lends its pool to a parallel_for (ScopedRangePool).
using PoolRangeFn = void (*)(int64_t mid, int64_t n, detail::RangeFn fn, void* ctx);
void register_pool_range(ThreadPoolId pool, PoolRangeFn fn);
/// True when parallel_for can run on `pool` (ours always; another once its library registered).
bool pool_runs_ranges(ThreadPoolId pool);

/// While alive, parallel_for on the calling thread splits its work over `pool`'s two threads
/// instead of the caller and our worker (no effect for a pool that registered no range
/// runner, or for kCaller / kNative). Why: a 2-thread conversion between two oneDNN steps
/// woke our sleeping worker while libgomp's spun on cpu1, and measured 10-40 us over its LUT
/// figure (MobileNetV3-Large's 2-thread int8 deployments: 65 conversions, +0.35 ms of 2.2);
/// on the pool its neighbours use, whose worker is awake, it runs as profiled.
class ScopedRangePool {
 public:
  explicit ScopedRangePool(int pool);
  ~ScopedRangePool();
  ScopedRangePool(const ScopedRangePool&) = delete;
  ScopedRangePool& operator=(const ScopedRangePool&) = delete;

 private:
  int previous_;
};

namespace detail {
/// take_back: the caller may run the worker's chunk itself when the worker has not started it.
void parallel_for_impl(int threads, int64_t n, int64_t grain, RangeFn fn, void* ctx, bool take_back = true);
template <typename Fn>
void call_range(void* ctx, int64_t b, int64_t e) {
  (*static_cast<Fn*>(ctx))(b, e);
}
template <typename F>
void* context_of(F& f) {
  return const_cast<void*>(static_cast<const void*>(&f));
}
}  // namespace detail

/// Calls f(k, k + 1) for k = 0 on the caller (cpu0) and, with cpus == 2, k = 1 on our cpu1
/// worker, and waits for both. Unlike parallel_for, the caller never takes cpu1's share back,
/// so each share runs on its own CPU: what a preparation that must leave cpu1's caches in a
/// state needs. A parked worker starts 12-130 us late, and parallel_for's caller then ran the
/// second half itself in 198-200 of 200 jobs of up to 1 MiB per CPU
/// (results/reference/t1-in-t2/takeback.txt). Without cpu1, both shares run on the caller.
template <typename F>
void on_each_cpu(int cpus, F&& f) {
  detail::parallel_for_impl(cpus, cpus, 1, &detail::call_range<std::remove_reference_t<F>>, detail::context_of(f),
                            /*take_back=*/false);
}

/// Calls f(begin, end) on contiguous chunks covering [0, n): one chunk per thread of the
/// thread set (the caller runs the first). Chunks are multiples of `grain` except the
/// last. Ranges smaller than two grains run on the caller alone.
template <typename F>
void parallel_for(int threads, int64_t n, int64_t grain, F&& f) {
  detail::parallel_for_impl(threads, n, grain, &detail::call_range<std::remove_reference_t<F>>, detail::context_of(f));
}
template <typename F>
void parallel_for(int threads, int64_t n, F&& f) {
  parallel_for(threads, n, 1, std::forward<F>(f));
}

}  // namespace lw
