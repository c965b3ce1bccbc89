// How long the OpenMP pool's worker (on the other vCPU) takes to join a parallel region after the
// caller worked alone for `idle` microseconds, as in a network whose other steps ran on the
// caller or another pool. Median of 200 regions per idle time. Build: g++ -O2 -fopenmp.
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
using Clock = std::chrono::steady_clock;
static void spin_us(double us) {
  const auto end = Clock::now() + std::chrono::duration<double, std::micro>(us);
  while (Clock::now() < end) {}
}
int main() {
  omp_set_num_threads(2);
  #pragma omp parallel
  { spin_us(10); }
  for (double idle : {0.0, 20.0, 100.0, 500.0, 2000.0, 10000.0}) {
    std::vector<double> t;
    for (int r = 0; r < 200; ++r) {
      spin_us(idle);  // the caller busy; the worker spins, then sleeps
      volatile int joined = 0;
      const auto t0 = Clock::now();
      double worker_us = 0;
      #pragma omp parallel num_threads(2)
      {
        if (omp_get_thread_num() == 1) worker_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      }
      (void)joined;
      t.push_back(worker_us);
    }
    std::sort(t.begin(), t.end());
    std::printf("idle %7.0f us: worker starts after median %6.1f us, p90 %6.1f us\n", idle, t[100], t[180]);
  }
}
