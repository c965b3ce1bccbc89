#include "libs/ops/thread_pool.h"

#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "libs/core/enum_names.h"
#include "libs/core/status.h"

namespace lw {
namespace {

static_assert(sizeof(cpu_set_t) <= 128, "ScopedPin's mask buffer is too small");

// The two CPUs of the thread sets: the first two the process may run on ("cpu0" and
// "cpu1" in a plain machine; whatever the cgroup allows otherwise). -1 when absent.
struct Cpus {
  int first = -1, second = -1;
};
const Cpus& cpus() {
  static const Cpus c = [] {
    Cpus r;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return r;
    for (int i = 0; i < CPU_SETSIZE; ++i)
      if (CPU_ISSET(i, &set)) {
        if (r.first < 0) r.first = i;
        else if (r.second < 0) { r.second = i; break; }
      }
    return r;
  }();
  return c;
}

bool pin_self(int cpu) {
  if (cpu < 0) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

#if defined(__SSE__)
constexpr unsigned kFlushDenormals = 0x8040;  // MXCSR FTZ (bit 15) | DAZ (bit 6)
void flush_denormals_here() { _mm_setcsr(_mm_getcsr() | kFlushDenormals); }
unsigned fp_mode() { return _mm_getcsr(); }
void set_fp_mode(unsigned m) { _mm_setcsr(m); }
#else
void flush_denormals_here() {}
unsigned fp_mode() { return 0; }
void set_fp_mode(unsigned) {}
#endif

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spin this long before blocking: covers the gap between consecutive layers without
// burning a core that other processes on a shared machine need.
constexpr int kSpinIterations = 20000;

// One persistent worker pinned to the second CPU. Jobs are posted by bumping a generation
// counter; the worker spins briefly, then sleeps on a condition variable.
class Worker {
 public:
  Worker() : thread_([this] { loop(); }) {}
  ~Worker() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  void post(detail::RangeFn fn, void* ctx, int64_t b, int64_t e) {
    fn_ = fn;
    ctx_ = ctx;
    b_ = b;
    e_ = e;
    uint64_t g = posted_.load(std::memory_order_relaxed) + 1;
    {
      std::lock_guard<std::mutex> lk(m_);
      posted_.store(g, std::memory_order_release);
    }
    cv_.notify_one();
  }
  /// Claims the posted job back for the caller when the worker has not started it: on a
  /// loaded machine the worker may wait milliseconds for cpu1, and the caller is better
  /// off running both halves than waiting (a 2-thread step then degrades to 1-thread speed
  /// instead of stalling). True: the caller must run the job; false: wait() for it.
  bool take_back() {
    uint64_t g = posted_.load(std::memory_order_relaxed);
    uint64_t expect = g - 1;
    return claimed_.compare_exchange_strong(expect, g, std::memory_order_acq_rel);
  }
  void wait() {
    uint64_t g = posted_.load(std::memory_order_relaxed);
    for (int i = 0; done_.load(std::memory_order_acquire) != g; ++i) {
      if (i < kSpinIterations) cpu_relax();
      else std::this_thread::yield();
    }
  }

  // Parks after the last posted job: a generation, not a flag, so that a park asked for
  // after a job the caller took back (the worker has not seen it yet) still holds when the
  // worker gets to it. (A flag that the job's arrival cleared let the worker spin its full
  // 20000 pauses, ~0.6 ms, after every parked native step that ran on the caller alone,
  // holding cpu1 against the next pool: measured 0.55 ms native -> XNNPACK hand-offs.)
  void park() { park_after_.store(posted_.load(std::memory_order_relaxed), std::memory_order_relaxed); }

 private:
  void loop() {
    become_thread_set_worker(cpus().second);
    shorten_wake_slice();
    uint64_t seen = 0;
    for (;;) {
      for (int i = 0; i < kSpinIterations && posted_.load(std::memory_order_acquire) == seen &&
                      park_after_.load(std::memory_order_relaxed) < seen;
           ++i)
        cpu_relax();
      if (posted_.load(std::memory_order_acquire) == seen) {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk, [&] { return stop_ || posted_.load(std::memory_order_acquire) != seen; });
        if (stop_) return;
      }
      seen = posted_.load(std::memory_order_acquire);
      // Generations the caller took back are skipped (claimed_ is already there).
      uint64_t expect = seen - 1;
      if (!claimed_.compare_exchange_strong(expect, seen, std::memory_order_acq_rel)) continue;
      fn_(ctx_, b_, e_);
      done_.store(seen, std::memory_order_release);
    }
  }

  std::atomic<uint64_t> posted_{0}, done_{0};
  std::atomic<uint64_t> claimed_{0};  // last generation claimed, by the worker or the caller
  std::atomic<uint64_t> park_after_{0};  // no spin after this generation (see release_pool)
  detail::RangeFn fn_ = nullptr;
  void* ctx_ = nullptr;
  int64_t b_ = 0, e_ = 0;
  bool stop_ = false;
  std::mutex m_;
  std::condition_variable cv_;
  std::thread thread_;
};

Worker& worker() {
  static Worker w;
  return w;
}
std::atomic<uint64_t> g_caller_alone{0};
// One caller at a time may use the worker (the executor is single-threaded; tests may not be).
std::mutex& worker_mutex() {
  static std::mutex m;
  return m;
}

// struct sched_attr of <linux/sched/types.h> (glibc before 2.41 has neither it nor a wrapper).
struct SchedAttr {
  uint32_t size, policy;
  uint64_t flags;
  int32_t nice;
  uint32_t priority;
  uint64_t runtime, deadline, period;  // runtime: the custom slice of a fair-class thread, ns
  uint32_t util_min, util_max;
};
std::atomic<int> g_slice_asked{0}, g_slice_taken{0};

bool get_sched_attr(SchedAttr* a) {
#if defined(__linux__) && defined(SYS_sched_getattr)
  return syscall(SYS_sched_getattr, 0, a, sizeof *a, 0) == 0;
#else
  (void)a;
  return false;
#endif
}

}  // namespace

std::optional<uint64_t> thread_slice_ns() {
  SchedAttr a{};
  if (!get_sched_attr(&a)) return std::nullopt;
  return a.runtime;
}

bool shorten_wake_slice() {
  bool taken = false;
#if defined(__linux__) && defined(SYS_sched_setattr)
  SchedAttr a{};
  if (get_sched_attr(&a) && a.policy != SCHED_FIFO && a.policy != SCHED_RR) {
    a.size = sizeof a;
    a.flags = 0;
    a.runtime = uint64_t(kWakeSliceUs) * 1000;
    taken = syscall(SYS_sched_setattr, 0, &a, 0) == 0 && thread_slice_ns() == a.runtime;
  }
#endif
  g_slice_asked.fetch_add(1);
  if (taken) g_slice_taken.fetch_add(1);
  return taken;
}
bool wake_slice_shortened() {
  const int asked = g_slice_asked.load();
  return asked > 0 && g_slice_taken.load() == asked;
}

bool become_thread_set_worker(int cpu) {
  const bool pinned = pin_self(cpu);
  flush_denormals_here();
  return pinned;
}

ScopedFlushDenormals::ScopedFlushDenormals() : fp_mode_(fp_mode()) { flush_denormals_here(); }
ScopedFlushDenormals::~ScopedFlushDenormals() { set_fp_mode(fp_mode_); }

namespace {
// Pins held by this thread: only the outermost asks the kernel. The three affinity calls
// cost ~5 us on a KVM guest (2026-11-28, Zen 5), and a caller the scheduler had moved to
// cpu1 between two runs paid a migration (~35 us) on top.
thread_local int t_pin_depth = 0;
}  // namespace

ScopedPin::ScopedPin() {
  if (t_pin_depth++ > 0) return;
  cpu_set_t* old = reinterpret_cast<cpu_set_t*>(old_mask_);
  restored_ = pthread_getaffinity_np(pthread_self(), sizeof(cpu_set_t), old) == 0;
  pin_self(cpus().first);
}
ScopedPin::~ScopedPin() {
  --t_pin_depth;
  if (restored_) pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t), reinterpret_cast<cpu_set_t*>(old_mask_));
}
bool caller_pinned() { return t_pin_depth > 0; }

namespace {
constexpr int kMaxPools = 16;
std::atomic<PoolReleaseFn> g_release[kMaxPools];
}  // namespace

void register_pool_release(int pool, PoolReleaseFn fn) {
  if (pool >= 0 && pool < kMaxPools) g_release[pool].store(fn);
}
void release_pool(int pool) {
  if (pool < 0 || pool >= kMaxPools) return;
  if (PoolReleaseFn fn = g_release[pool].load()) fn();
}
void release_all_pools() {
  for (int p = 0; p < kMaxPools; ++p) release_pool(p);
}
void park_thread_set_worker() {
  if (cpus().second >= 0) worker().park();
}

namespace {
constexpr NameRow<ThreadPoolId> kPoolNames[] = {
#define X(e, s) {ThreadPoolId::e, s},
#include "libs/ops/thread_pool_id.inc"
#undef X
};
std::atomic<PoolJobFn> g_job[kThreadPoolCount];
std::atomic<PoolRangeFn> g_range[kThreadPoolCount];
thread_local int t_range_pool = -1;  // ScopedRangePool's pool on this thread, -1: ours
std::atomic<int> g_native_kernels_pool{int(ThreadPoolId::kOpenmp)};
}  // namespace

const char* to_string(ThreadPoolId p) { return name_of(kPoolNames, p); }
std::optional<ThreadPoolId> parse_thread_pool(const std::string& s) { return parse_name(kPoolNames, s); }

void register_pool_job(ThreadPoolId pool, PoolJobFn fn) { g_job[int(pool)].store(fn); }
bool run_pool_job(ThreadPoolId pool, double item_us) {
  if (pool == ThreadPoolId::kCaller) {
    busy_for_us(item_us);
    return true;
  }
  PoolJobFn fn = g_job[int(pool)].load();
  if (fn) fn(item_us);
  return fn != nullptr;
}
void set_native_kernels_pool(ThreadPoolId pool) { g_native_kernels_pool.store(int(pool)); }
ThreadPoolId native_kernels_pool() { return ThreadPoolId(g_native_kernels_pool.load()); }

void register_pool_range(ThreadPoolId pool, PoolRangeFn fn) { g_range[int(pool)].store(fn); }
bool pool_runs_ranges(ThreadPoolId pool) {
  return pool == ThreadPoolId::kNative || (pool != ThreadPoolId::kCaller && g_range[int(pool)].load() != nullptr);
}
ScopedRangePool::ScopedRangePool(int pool) : previous_(t_range_pool) { t_range_pool = pool; }
ScopedRangePool::~ScopedRangePool() { t_range_pool = previous_; }

void busy_for_us(double us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(int64_t(us * 1e3));
  while (std::chrono::steady_clock::now() < until) cpu_relax();
}

uint64_t caller_ran_alone_count() { return g_caller_alone.load(std::memory_order_relaxed); }

void start_thread_sets() {
  if (cpus().second >= 0) worker();
}
int available_thread_set_cpus() { return cpus().second >= 0 ? 2 : 1; }
int thread_set_cpu(int k) { return k == 0 ? cpus().first : k == 1 ? cpus().second : -1; }

namespace detail {

void parallel_for_impl(int threads, int64_t n, int64_t grain, RangeFn fn, void* ctx, bool take_back) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  if (threads < 2 || n < 2 * grain || cpus().second < 0) {
    fn(ctx, 0, n);
    return;
  }
  // Two chunks, the split rounded to the grain.
  int64_t mid = (n / grain + 1) / 2 * grain;
  mid = std::min(std::max(mid, grain), n);
  // (on_each_cpu, take_back false, places data on our worker's CPU: never lent out)
  if (take_back && t_range_pool >= 0 && t_range_pool < kThreadPoolCount)
    if (PoolRangeFn run = g_range[t_range_pool].load()) return run(mid, n, fn, ctx);
  std::lock_guard<std::mutex> lk(worker_mutex());
  Worker& w = worker();
  w.post(fn, ctx, mid, n);
  fn(ctx, 0, mid);
  if (take_back && w.take_back()) {
    fn(ctx, mid, n);
    g_caller_alone.fetch_add(1, std::memory_order_relaxed);
  } else {
    w.wait();
  }
}

}  // namespace detail
}  // namespace lw
