// cpu0's speed on a fixed piece of work right after a 2-thread OpenMP region vs after a 1-thread one.
// usage: after2 [phase1_us] [reps]
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <immintrin.h>
static double now_us(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);sched_setaffinity(0,sizeof s,&s);}
static float buf[2][8192] __attribute__((aligned(64)));
static __m512 fma_work(long n, __m512 a){__m512 b=_mm512_set1_ps(1.0001f),c=_mm512_set1_ps(0.9999f),x1=a,x2=a,x3=a,x4=a;
 for(long i=0;i<n;++i){x1=_mm512_fmadd_ps(x1,b,c);x2=_mm512_fmadd_ps(x2,b,c);x3=_mm512_fmadd_ps(x3,b,c);x4=_mm512_fmadd_ps(x4,b,c);}
 return _mm512_add_ps(_mm512_add_ps(x1,x2),_mm512_add_ps(x3,x4));}
static double busy(double us){double t0=now_us();__m512 a=_mm512_set1_ps(1);while(now_us()-t0<us)a=fma_work(200,a);float f[16];_mm512_storeu_ps(f,a);return f[0];}
static double mem_work(int k){ // stream 32 KiB a few times: L1/L2 resident
 float s=0; for(int r=0;r<8;++r) for(int i=0;i<8192;i+=16){__m512 v=_mm512_load_ps(&buf[k][i]);s+=_mm512_reduce_add_ps(v);} return s;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){double p1=argc>1?atof(argv[1]):200;int reps=argc>2?atoi(argv[2]):400;
 #pragma omp parallel num_threads(2)
 pin(omp_get_thread_num());
 double *tA=malloc(reps*sizeof(double)),*tB=malloc(reps*sizeof(double)),*mA=malloc(reps*sizeof(double)),*mB=malloc(reps*sizeof(double));volatile double sink=0;
 for(int r=0;r<reps;++r){
  for(int cond=0;cond<2;++cond){
   if(cond==0){
    #pragma omp parallel num_threads(2)
    sink+=busy(p1);
   } else sink+=busy(p1);
   double t0=now_us(); __m512 a=fma_work(20000,_mm512_set1_ps(1)); double t1=now_us(); sink+=mem_work(0); double t2=now_us();
   float f[16];_mm512_storeu_ps(f,a);sink+=f[0];
   (cond==0?tA:tB)[r]=t1-t0; (cond==0?mA:mB)[r]=t2-t1;
  }}
 qsort(tA,reps,8,cmp);qsort(tB,reps,8,cmp);qsort(mA,reps,8,cmp);qsort(mB,reps,8,cmp);
 printf("after 2-thread region: fma %.2f us (p90 %.2f), L1 read %.2f us | after 1-thread: fma %.2f us (p90 %.2f), L1 read %.2f us\n",tA[reps/2],tA[reps*9/10],mA[reps/2],tB[reps/2],tB[reps*9/10],mB[reps/2]);
 return 0;}
