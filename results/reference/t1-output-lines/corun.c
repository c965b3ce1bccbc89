// Every few seconds: the vCPUs' cache-line round trip (ns) and cpu0's FMA speed while cpu1 runs the
// same loop, against alone (> 1: slower together: the two vCPUs share a physical core's pipes).
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <immintrin.h>
static double now_us(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);pthread_setaffinity_np(pthread_self(),sizeof s,&s);}
static __m512 fma_work(long n){__m512 b=_mm512_set1_ps(1.0001f),c=_mm512_set1_ps(0.9999f),x1=b,x2=c,x3=b,x4=c,x5=b,x6=c,x7=b,x8=c;
 for(long i=0;i<n;++i){x1=_mm512_fmadd_ps(x1,b,c);x2=_mm512_fmadd_ps(x2,b,c);x3=_mm512_fmadd_ps(x3,b,c);x4=_mm512_fmadd_ps(x4,b,c);x5=_mm512_fmadd_ps(x5,b,c);x6=_mm512_fmadd_ps(x6,b,c);x7=_mm512_fmadd_ps(x7,b,c);x8=_mm512_fmadd_ps(x8,b,c);}
 return _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(x1,x2),_mm512_add_ps(x3,x4)),_mm512_add_ps(_mm512_add_ps(x5,x6),_mm512_add_ps(x7,x8)));}
static _Atomic int mode=0; /* 0 idle, 1 fma, 2 pingpong, 3 quit */ static _Atomic int ping=0; volatile float sink;
static void* worker(void*a){pin(1);for(;;){int m=atomic_load(&mode);if(m==3)break;if(m==1){sink=_mm512_reduce_add_ps(fma_work(2000));}
 else if(m==2){int v=atomic_load_explicit(&ping,memory_order_acquire);if(v&1)atomic_store_explicit(&ping,v+1,memory_order_release);}
 else usleep(200);}return 0;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
static double fma_us(void){double t[21];for(int i=0;i<21;++i){double t0=now_us();sink=_mm512_reduce_add_ps(fma_work(20000));t[i]=now_us()-t0;}qsort(t,21,8,cmp);return t[10];}
int main(int argc,char**argv){int n=argc>1?atoi(argv[1]):10;double every=argc>2?atof(argv[2]):5;pthread_t th;pin(0);pthread_create(&th,0,worker,0);
 for(int k=0;k<n;++k){
  atomic_store(&mode,0);usleep(2000);double alone=fma_us();
  atomic_store(&mode,1);usleep(2000);double both=fma_us();
  atomic_store(&mode,2);usleep(1000);atomic_store(&ping,0);double t0=now_us();int N=4000;for(int i=0;i<N;++i){atomic_store_explicit(&ping,2*i+1,memory_order_release);while(atomic_load_explicit(&ping,memory_order_acquire)!=2*i+2);}
  double link=(now_us()-t0)*1e3/N; atomic_store(&mode,0);
  time_t tt=time(0);struct tm*tm=gmtime(&tt);
  printf("%02d:%02d:%02d link %.0f ns  fma alone %.1f us  with cpu1 %.1f us  ratio %.2f\n",tm->tm_hour,tm->tm_min,tm->tm_sec,link,alone,both,both/alone);fflush(stdout);
  if(k+1<n)usleep((useconds_t)(every*1e6));}
 atomic_store(&mode,3);pthread_join(th,0);return 0;}
