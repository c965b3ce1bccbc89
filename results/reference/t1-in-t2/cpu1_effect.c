// How a 1-thread step on cpu0 slows by what cpu1 does meanwhile and by who wrote its input.
// gcc -O3 -march=native -ffast-math -pthread -o cpu1_effect cpu1_effect.c (vectorised sum: bandwidth-bound)
// ./cpu1_effect [r|w] [MODES] [BYTES ...]
// Reads a buffer on cpu0 (sum of doubles; w: writes it instead, an output slot) and prints the
// median time per pass, for buffers that fit L2 (256 KiB), L3 (4 MiB) or not (64 MiB), or of
// BYTES each (multiples of 64), while cpu1 is idle, spins on pause (a worker waiting for its
// next job), or computes (MODES: the first 1-3 of these, all by default); and with the
// buffer last written by cpu0 or by cpu1.
// read.txt / write.txt: ./cpu1_effect r / w; small-tensors.txt: the sizes of SqueezeNet /
// MobileNetV2 activations, cpu1 idle or spinning: ./cpu1_effect {r,w} 2 86528 173056 692224 1605632
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static void pin(int cpu) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s); pthread_setaffinity_np(pthread_self(), sizeof s, &s); }
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }

static atomic_int mode;      // what cpu1 does: 0 idle (sleeps), 1 spin on pause, 2 compute
static atomic_int write_req; // cpu1: write the buffer once, then clear
static atomic_int quit;
static double* buf; static size_t n;

static void* cpu1_thread(void* arg) {
  (void)arg; pin(1); volatile double x = 1;
  while (!atomic_load(&quit)) {
    if (atomic_load(&write_req)) { for (size_t i = 0; i < n; ++i) buf[i] = (double)i; atomic_store(&write_req, 0); continue; }
    int m = atomic_load(&mode);
    if (m == 1) __builtin_ia32_pause();
    else if (m == 2) for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
    else { struct timespec t = {0, 200000}; nanosleep(&t, NULL); }
  }
  return NULL;
}

static double pass(void) { double s = 0; for (size_t i = 0; i < n; ++i) s += buf[i]; return s; }
static double fill(void) { for (size_t i = 0; i < n; ++i) buf[i] = 0.5 * (double)i; return buf[n / 2]; }
static int do_write;  // time writing the buffer (a step's output slot) instead of reading it

int main(int argc, char** argv) {
  do_write = argc > 1 && argv[1][0] == 'w';
  const int n_modes = argc > 2 ? atoi(argv[2]) : 3;
  size_t sizes[16] = {256 << 10, 4 << 20, 64 << 20};
  int n_sizes = 3;
  if (argc > 3)
    for (n_sizes = 0; n_sizes < 16 && n_sizes + 3 < argc; ++n_sizes) sizes[n_sizes] = strtoull(argv[n_sizes + 3], NULL, 10);
  pin(0);
  const char* modes[] = {"idle", "spin", "compute"};
  pthread_t th; pthread_create(&th, NULL, cpu1_thread, NULL);
  volatile double sink = 0;
  for (int si = 0; si < n_sizes; ++si) {
    n = sizes[si] / sizeof(double); buf = aligned_alloc(64, sizes[si]);
    for (size_t i = 0; i < n; ++i) buf[i] = (double)i;
    for (int writer = 0; writer < 2; ++writer)
      for (int m = 0; m < n_modes && m < 3; ++m) {
        atomic_store(&mode, m);
        struct timespec t = {0, 2000000}; nanosleep(&t, NULL);
        enum { R = 101 }; double v[R];
        for (int r = 0; r < R; ++r) {
          if (writer) { atomic_store(&write_req, 1); while (atomic_load(&write_req)) __builtin_ia32_pause(); }
          else for (size_t i = 0; i < n; ++i) buf[i] = (double)i;
          double t0 = now(); sink += do_write ? fill() : pass(); v[r] = now() - t0;
        }
        qsort(v, R, sizeof v[0], cmp);
        printf("%-5s %6zu KiB  last written by cpu%d  cpu1 %-8s median %8.1f us\n", do_write ? "write" : "read", sizes[si] >> 10, writer, modes[m], v[R / 2] * 1e6);
      }
    free(buf);
  }
  atomic_store(&quit, 1); pthread_join(th, NULL);
  return sink == 42.0;
}
