// The openmp -> pthreadpool hand-off on cpu1, outside Layerwise: k OpenMP regions of two
// 30 us items, then a pthreadpool job of two 30 us items, timed. Main thread on cpu0, both
// pools' workers on cpu1, as in Layerwise's thread set 2. 2000 rounds; prints percentiles.
//
//   g++ -O2 -fopenmp handoff_micro.cc -o handoff_micro -lpthreadpool
//   GOMP_SPINCOUNT=10000 [env...] ./handoff_micro [xslice_ns] [oslice_ns] [k]
//
// xslice_ns / oslice_ns: an EEVDF custom slice (sched_setattr sched_runtime, Linux >= 6.12)
// for the pthreadpool / OpenMP cpu1 worker; 0 leaves the default (1.4 ms on the 6.18 VM).
// Environment:
//   PARK=1   park the pthreadpool worker after the timed job (as the executor's release does)
//   HEAVY=us before the OpenMP regions, a pthreadpool job of two `us` items, then park it
//   ONICE=n  OpenMP cpu1 worker at nice n;  OIDLE=1  OpenMP cpu1 worker SCHED_IDLE
#include <omp.h>
#include <pthread.h>
#include <pthreadpool.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

struct SchedAttr {  // struct sched_attr (glibc has no wrapper)
  uint32_t size, policy;
  uint64_t flags;
  int32_t nice;
  uint32_t priority;
  uint64_t runtime, deadline, period;
  uint32_t util_min, util_max;
};

void set_slice(uint64_t ns) {
  if (!ns) return;
  SchedAttr a{};
  a.size = sizeof a;
  a.policy = SCHED_OTHER;
  a.runtime = ns;
  if (syscall(SYS_sched_setattr, 0, &a, 0)) perror("sched_setattr");
}

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
void busy(double us) {
  const double t = now_us();
  while (now_us() - t < us) {}
}
void pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

pthread_t g_main;
uint64_t g_xslice = 0;
std::atomic<int> g_arrived{0};
// Two items that wait for each other, so the worker runs one of them: it pins itself there.
void setup_item(void*, size_t) {
  if (!pthread_equal(pthread_self(), g_main)) pin(1), set_slice(g_xslice);
  ++g_arrived;
  while (g_arrived.load() < 2) {}
}
void item(void* us, size_t) { busy(*static_cast<double*>(us)); }
void park(pthreadpool_t pool) { pthreadpool_parallelize_1d(pool, [](void*, size_t) {}, nullptr, 2, PTHREADPOOL_FLAG_YIELD_WORKERS); }

}  // namespace

int main(int argc, char** argv) {
  g_xslice = argc > 1 ? strtoull(argv[1], nullptr, 10) : 0;
  const uint64_t oslice = argc > 2 ? strtoull(argv[2], nullptr, 10) : 0;
  const int k = argc > 3 ? atoi(argv[3]) : 1;
  const bool park_after = getenv("PARK") != nullptr;
  double heavy_us = getenv("HEAVY") ? atof(getenv("HEAVY")) : -1, item_us = 30;

  g_main = pthread_self();
  pin(0);
  pthreadpool_t pool = pthreadpool_create(2);
  pthreadpool_parallelize_1d(pool, setup_item, nullptr, 2, 0);
#pragma omp parallel num_threads(2)
  {
    pin(omp_get_thread_num());
    if (omp_get_thread_num() == 1) {
      set_slice(oslice);
      if (const char* n = getenv("ONICE")) setpriority(PRIO_PROCESS, 0, atoi(n));  // this thread only
      if (getenv("OIDLE")) {
        sched_param p{};
        if (sched_setscheduler(0, SCHED_IDLE, &p)) perror("SCHED_IDLE");
      }
    }
  }
  std::vector<double> t;
  for (int r = 0; r < 2000; ++r) {
    if (heavy_us >= 0) pthreadpool_parallelize_1d(pool, item, &heavy_us, 2, 0), park(pool);
    for (int j = 0; j < k; ++j) {
#pragma omp parallel num_threads(2)
      busy(item_us);
    }
    const double a = now_us();
    pthreadpool_parallelize_1d(pool, item, &item_us, 2, 0);
    t.push_back(now_us() - a);
    if (park_after) park(pool);
    busy(500);  // the caller's own work before the next round
  }
  std::sort(t.begin(), t.end());
  const size_t n = t.size();
  printf("xslice %llu oslice %llu k %d: median %.1f p75 %.1f p90 %.1f p99 %.1f us\n", (unsigned long long)g_xslice,
         (unsigned long long)oslice, k, t[n / 2], t[n * 3 / 4], t[n * 9 / 10], t[n * 99 / 100]);
  pthreadpool_destroy(pool);
}
