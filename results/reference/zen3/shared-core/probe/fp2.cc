// The pair probe's false positives after a 2-thread OpenMP region, with 1 or 3 warm-up runs
// (a copy of env/speed_probe.cc's pair probe with the warm-up count as a parameter).
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>
#include "libs/ops/thread_pool.h"
using namespace lw;
volatile float g_seed = 1.0f;
float pair_part() {
  float a[48]; const float s0 = g_seed;
  for (int j = 0; j < 48; ++j) a[j] = s0 + 0.001f * float(j);
  for (long it = 0; it < 100000; ++it) for (int j = 0; j < 48; ++j) a[j] = a[j] * 0.9999999f + 1e-7f;
  float s = 0; for (float x : a) s += x; return s;
}
double pair_run_ms(int threads) {
  volatile float sink = 0; auto t0 = std::chrono::steady_clock::now();
  parallel_for(threads, threads, 1, [&](int64_t b, int64_t e) { float s = 0; for (int64_t k = b; k < e; ++k) s += pair_part(); sink = sink + s; });
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
double probe(int warm) {
  ScopedPin pin;
  for (int k = 0; k < warm; ++k) pair_run_ms(2);
  std::vector<double> r;
  for (int k = 0; k < 3; ++k) { double a = pair_run_ms(1), b = pair_run_ms(2); r.push_back(b / a); }
  release_all_pools();
  std::sort(r.begin(), r.end()); return r[1];
}
static void busy_us(double us) { auto t = std::chrono::steady_clock::now(); while (std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count() < us) {} }
int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100, c[4] = {0, 0, 0, 0};
  for (int i = 0; i < n; ++i)
    for (int v = 0; v < 4; ++v) {  // 0: after OpenMP, 1 warm-up; 1: after OpenMP, 3; 2, 3: the same after 2 ms quiet
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
#pragma omp parallel num_threads(2)
      busy_us(100);
      if (v >= 2) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      c[v] += probe(v % 2 ? 3 : 1) > 1.5;
    }
  std::printf("reads one core: after OpenMP, 1 warm-up %d, 3 warm-ups %d; after 2 ms quiet, 1 warm-up %d, 3 warm-ups %d (of %d each)\n", c[0], c[1], c[2], c[3], n);
}
