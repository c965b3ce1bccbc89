#include "libs/ops/omp_team.h"

#include <omp.h>

namespace lw {

namespace {

// One busy item of `item_us` on each of the team's two threads (register_pool_job).
void omp_team_job(double item_us) {
#pragma omp parallel num_threads(2)
  busy_for_us(item_us);
}

// A parallel_for's two chunks: [0, mid) on the caller (thread 0), [mid, n) on thread 1; all
// of it on the caller if the team has one thread (register_pool_range).
void omp_team_range(int64_t mid, int64_t n, detail::RangeFn fn, void* ctx) {
#pragma omp parallel num_threads(2)
  {
    if (omp_get_num_threads() < 2) fn(ctx, 0, n);
    else if (omp_get_thread_num() == 0) fn(ctx, 0, mid);
    else fn(ctx, mid, n);
  }
}

}  // namespace

void prepare_omp_team() {
  static const bool pinned = [] {
    const int cpu = thread_set_cpu(1);
    if (cpu >= 0) {
#pragma omp parallel num_threads(2)
      {
        if (omp_get_thread_num() == 1) become_thread_set_worker(cpu);
      }
    }
    omp_set_num_threads(1);
    return cpu >= 0;
  }();
  (void)pinned;
  register_pool_job(ThreadPoolId::kOpenmp, omp_team_job);
  register_pool_range(ThreadPoolId::kOpenmp, omp_team_range);
}

}  // namespace lw
