// Throughput probe: AVX-512 FMAs on independent chains (saturates a core's FP ports).
// Prints, every round, ms for a fixed amount of work on cpu0 alone and on cpu0 + cpu1 together.
// Siblings of one host core (SMT) share the FP ports: together each runs ~2x slower.
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
static volatile float sink;
static double work(void){
  __m512 a[8]; for(int k=0;k<8;k++) a[k]=_mm512_set1_ps(1.0f+k*1e-3f);
  const __m512 m=_mm512_set1_ps(0.9999999f), c=_mm512_set1_ps(1e-7f);
  double t0=now();
  for(long i=0;i<4000000;i++) for(int k=0;k<8;k++) a[k]=_mm512_fmadd_ps(a[k],m,c);
  double t=now()-t0; float s=0; for(int k=0;k<8;k++) s+=_mm512_reduce_add_ps(a[k]); sink=s; return t;
}
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);pthread_setaffinity_np(pthread_self(),sizeof s,&s);}
static void* other(void* p){pin(1);*(double*)p=work();return 0;}
int main(int argc,char**argv){
  int rounds=argc>1?atoi(argv[1]):10; pin(0);
  for(int r=0;r<rounds;r++){
    double alone=work(); double t1; pthread_t th; pthread_create(&th,0,other,&t1); double t0=work(); pthread_join(th,0);
    printf("%2d alone %.1f ms, together cpu0 %.1f cpu1 %.1f ms, ratio %.2f\n",r,alone,t0,t1,(t0>t1?t0:t1)/alone);
    fflush(stdout);
  }
}
