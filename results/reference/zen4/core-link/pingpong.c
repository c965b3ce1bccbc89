// Round trip of a cache line between cpu0 and cpu1 (two threads pinned, bouncing an atomic).
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
static _Atomic long flag __attribute__((aligned(64)));
enum { N = 200000 };
static void pin(int c) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(c, &s); pthread_setaffinity_np(pthread_self(), sizeof s, &s); }
static void* other(void* a) { (void)a; pin(1); for (long i = 0; i < N; ++i) { while (atomic_load(&flag) != 2 * i + 1); atomic_store(&flag, 2 * i + 2); } return 0; }
int main() { pthread_t t; pin(0); atomic_store(&flag, 0); pthread_create(&t, 0, other, 0);
  struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
  for (long i = 0; i < N; ++i) { atomic_store(&flag, 2 * i + 1); while (atomic_load(&flag) != 2 * i + 2); }
  clock_gettime(CLOCK_MONOTONIC, &b); pthread_join(t, 0);
  printf("%.1f ns round trip\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / N); }
