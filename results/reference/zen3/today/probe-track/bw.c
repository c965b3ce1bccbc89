// Memory read bandwidth of one core (cpu0): sum a buffer of N MiB, median of 5 passes, GB/s.
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return (x > y) - (x < y); }
int main(int argc, char** argv) {
  cpu_set_t s; CPU_ZERO(&s); CPU_SET(0, &s); sched_setaffinity(0, sizeof s, &s);
  size_t mib = argc > 1 ? atol(argv[1]) : 256, n = mib << 17;  // doubles
  double* b = malloc(n * sizeof *b); for (size_t i = 0; i < n; ++i) b[i] = i;
  double r[5], acc = 0;
  for (int k = 0; k < 5; ++k) { double t = now(); double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (size_t i = 0; i < n; i += 4) { a0 += b[i]; a1 += b[i + 1]; a2 += b[i + 2]; a3 += b[i + 3]; }
    r[k] = (n * 8.0) / (now() - t) / 1e9; acc += a0 + a1 + a2 + a3; }
  qsort(r, 5, sizeof *r, cmp); printf("%.2f\n", r[2] + 0 * acc); return acc == 1;
}
