// Is a pure-compute kernel slower after a memory-bound or idle phase? (frequency / power state)
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
volatile float sinkf; volatile unsigned long sink;
__attribute__((target("avx2,fma"))) double kern(int n){ // n*64*8 FMAs, dependent chains x8
  __m256 a[8];for(int i=0;i<8;i++)a[i]=_mm256_set1_ps(1.f+i);__m256 y=_mm256_set1_ps(0.9999f),z=_mm256_set1_ps(1e-6f);
  double t0=now();for(int k=0;k<n;k++)for(int j=0;j<64;j++)for(int i=0;i<8;i++)a[i]=_mm256_fmadd_ps(a[i],y,z);
  double t1=now();float f[8];_mm256_storeu_ps(f,a[0]);sinkf=f[0];return t1-t0;}
double scal(int n){double t0=now();unsigned long x=1;for(long i=0;i<n*2000L;i++)x=x*6364136223846793005UL+1;sink=x;return now()-t0;}
void spin(double ms){double a=now();while(now()-a<ms){}}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(){cpu_set_t cs;CPU_ZERO(&cs);CPU_SET(0,&cs);sched_setaffinity(0,sizeof cs,&cs);
 size_t FL=64<<20;unsigned char*o=malloc(FL);memset(o,3,FL);
 const char*nm[]={"b2b","spin 4ms","usleep 4ms","flush 22MiB","flush 64MiB"};
 double t[5][2][200];
 for(int r=0;r<200;r++)for(int v=0;v<5;v++){
   if(v==1)spin(4);if(v==2)usleep(4000);
   if(v>=3){size_t n=v==3?(22<<20):FL;unsigned long s=0;for(size_t i=0;i<n;i+=64)s+=o[i];sink=s;}
   t[v][0][r]=kern(200); t[v][1][r]=scal(50);}
 for(int v=0;v<5;v++){qsort(t[v][0],200,8,cmp);qsort(t[v][1],200,8,cmp);printf("%-12s avx kernel median %.4f ms p75 %.4f | scalar %.4f\n",nm[v],t[v][0][100],t[v][0][150],t[v][1][100]);}
}
