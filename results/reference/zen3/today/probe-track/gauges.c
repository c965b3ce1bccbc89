// Fixed workloads on cpu0, ms (median of 5): fma (registers only), l1 (sum 16 KiB x N),
// l2 (sum 256 KiB), gemm (naive-blocked 96x96x96 f32 with AVX2 FMA via the compiler).
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + 1e-6 * t.tv_nsec; }
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return (x > y) - (x < y); }
static volatile float sink;
static float fma_loop(void) { float a[16] = {0}; for (long i = 0; i < 4000000; ++i) for (int j = 0; j < 16; ++j) a[j] = a[j] * 0.999f + 1.0f; float s = 0; for (int j = 0; j < 16; ++j) s += a[j]; return s; }
static float sum_loop(const float* b, size_t n, int reps) { float s[8] = {0}; for (int r = 0; r < reps; ++r) for (size_t i = 0; i < n; i += 8) for (int j = 0; j < 8; ++j) s[j] += b[i + j]; return s[0] + s[7]; }
enum { G = 96 };
static float A[G * G], B[G * G], C[G * G];
static float gemm(int reps) { for (int r = 0; r < reps; ++r) for (int i = 0; i < G; ++i) for (int k = 0; k < G; ++k) { float a = A[i * G + k]; for (int j = 0; j < G; ++j) C[i * G + j] += a * B[k * G + j]; } return C[5]; }
int main(void) {
  cpu_set_t s; CPU_ZERO(&s); CPU_SET(0, &s); sched_setaffinity(0, sizeof s, &s);
  float* b = malloc(256 << 10); for (int i = 0; i < (64 << 10); ++i) b[i] = i & 7;
  for (int i = 0; i < G * G; ++i) A[i] = B[i] = 0.001f * (i & 15);
  double r[4][5];
  for (int k = 0; k < 5; ++k) {
    double t = now(); sink = fma_loop(); r[0][k] = now() - t;
    t = now(); sink = sum_loop(b, 4096, 400); r[1][k] = now() - t;
    t = now(); sink = sum_loop(b, 64 << 10, 25); r[2][k] = now() - t;
    t = now(); sink = gemm(12); r[3][k] = now() - t;
  }
  for (int g = 0; g < 4; ++g) { qsort(r[g], 5, sizeof(double), cmp); printf("%.3f ", r[g][2]); }
  printf("\n");
}
