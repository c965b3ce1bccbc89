// Keeps cpu1 busy at the lowest priority (run as: nice -n 19 taskset -c 1 ./spinner SECONDS), so
// that the host never halts that vCPU while our workers (nice 0) preempt it at once.
#include <stdlib.h>
#include <time.h>
int main(int argc, char** argv) {
  double until = argc > 1 ? atof(argv[1]) : 60; struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
  double end = t.tv_sec + t.tv_nsec * 1e-9 + until;
  for (;;) { for (int i = 0; i < 100000; ++i) __builtin_ia32_pause(); clock_gettime(CLOCK_MONOTONIC, &t); if (t.tv_sec + t.tv_nsec * 1e-9 > end) return 0; }
}
