// FMA throughput per thread: alone on cpu0, then cpu0+cpu1 at once. Prints GFLOP/s.
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <unistd.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static volatile int go=0; static long N; static double res[2];
static double work(long n){
  __m256 a[10];for(int i=0;i<10;i++)a[i]=_mm256_set1_ps(1.f+i*1e-3f);
  __m256 m=_mm256_set1_ps(0.999999f),c=_mm256_set1_ps(1e-6f);
  double t0=now();
  for(long k=0;k<n;k++){for(int i=0;i<10;i++)a[i]=_mm256_fmadd_ps(a[i],m,c);}
  double t=now()-t0; float s=0; for(int i=0;i<10;i++){float v[8];_mm256_storeu_ps(v,a[i]);s+=v[0];}
  if(s==12345)printf("x");
  return n*10.0*16/t/1e9;
}
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);pthread_setaffinity_np(pthread_self(),sizeof s,&s);}
static void* th(void*p){int c=(long)p;pin(c);while(!go);res[c]=work(N);return 0;}
int main(int argc,char**argv){
  int reps=argc>1?atoi(argv[1]):5; N=argc>2?atol(argv[2]):200000; int gap=argc>3?atoi(argv[3]):500;
  for(int r=0;r<reps;r++){
    pin(0); double one=work(N);
    go=0; pthread_t t[2]; for(long c=0;c<2;c++)pthread_create(&t[c],0,th,(void*)c);
    go=1; for(int c=0;c<2;c++)pthread_join(t[c],0);
    {struct timespec t;clock_gettime(CLOCK_REALTIME,&t);printf("%ld.%03ld ",t.tv_sec%3600,t.tv_nsec/1000000);} printf("alone %.1f  both %.1f %.1f  ratio %.2f\n",one,res[0],res[1],(res[0]+res[1])/2/one); fflush(stdout); usleep(gap*1000);
  }
}
