// Does data we left in L3 survive time on this VM? Read a 1 MiB "weights" buffer, push it out of
// L2 by reading an 8 MiB buffer (as the rest of an int8 network would), spin T ms touching nothing,
// then time reading the 1 MiB buffer again. Median of 31 tries per T.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <immintrin.h>
static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static volatile uint64_t sink;
static void readbuf(const uint8_t* p, size_t n) { __m256i acc = _mm256_setzero_si256(); for (size_t i = 0; i < n; i += 32) acc = _mm256_add_epi64(acc, _mm256_load_si256((const __m256i*)(p + i))); sink += _mm256_extract_epi64(acc, 0); }
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }
int main(int argc, char** argv) {
  size_t W = 1 << 20, F = (argc > 1 ? atoi(argv[1]) : 8) << 20;
  uint8_t* w = aligned_alloc(64, W); uint8_t* f = aligned_alloc(64, F);
  memset(w, 1, W); memset(f, 2, F);
  double Ts[] = {0, 0.3, 1, 3, 10, 30};
  for (int k = 0; k < 6; ++k) {
    double ms[31];
    for (int r = 0; r < 31; ++r) {
      readbuf(w, W); readbuf(f, F);
      double u = now_ms() + Ts[k]; while (now_ms() < u) _mm_pause();
      double t0 = now_ms(); readbuf(w, W); ms[r] = now_ms() - t0;
    }
    qsort(ms, 31, sizeof ms[0], cmp);
    printf("flush %zu MiB, idle %5.1f ms: read 1 MiB in %.4f ms (median), %.1f GB/s\n", F >> 20, Ts[k], ms[15], W / ms[15] / 1e6);
  }
}
