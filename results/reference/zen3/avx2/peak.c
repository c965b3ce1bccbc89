// One core's f32 FMA peak: 12 independent 8-wide FMA chains (enough to cover FMA latency x
// 2 pipes), 2 FLOP per lane. Prints the median GFLOP/s of 50 runs of ~10 ms each.
// gcc -O2 -mavx2 -mfma peak.c -o peak && taskset -c 0 ./peak
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }
volatile float sink;
int main(void) {
  const long n = 200000;  // iterations of 12 FMAs
  double g[50];
  for (int r = 0; r < 50; ++r) {
    __m256 a0 = _mm256_set1_ps(1), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0, a8 = a0, a9 = a0,
           a10 = a0, a11 = a0;
    const __m256 y = _mm256_set1_ps(0.999999f), z = _mm256_set1_ps(1e-7f);
    double t0 = now();
    for (long i = 0; i < n; ++i) {
      a0 = _mm256_fmadd_ps(a0, y, z); a1 = _mm256_fmadd_ps(a1, y, z); a2 = _mm256_fmadd_ps(a2, y, z);
      a3 = _mm256_fmadd_ps(a3, y, z); a4 = _mm256_fmadd_ps(a4, y, z); a5 = _mm256_fmadd_ps(a5, y, z);
      a6 = _mm256_fmadd_ps(a6, y, z); a7 = _mm256_fmadd_ps(a7, y, z); a8 = _mm256_fmadd_ps(a8, y, z);
      a9 = _mm256_fmadd_ps(a9, y, z); a10 = _mm256_fmadd_ps(a10, y, z); a11 = _mm256_fmadd_ps(a11, y, z);
      __asm__ volatile("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5), "+x"(a6), "+x"(a7), "+x"(a8),
                       "+x"(a9), "+x"(a10), "+x"(a11));
    }
    double t = now() - t0;
    __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                             _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
    s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
    float f[8]; _mm256_storeu_ps(f, s); sink = f[0];
    g[r] = n * 12.0 * 16 / t / 1e9;
  }
  qsort(g, 50, sizeof g[0], cmp);
  printf("f32 FMA peak, 1 core: median %.1f GFLOP/s (min %.1f, max %.1f over 50 runs)\n", g[25], g[0], g[49]);
  return 0;
}
