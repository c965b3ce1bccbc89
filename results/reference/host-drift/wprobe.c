// candidates: each a median over 7 runs, ms. pinned cpu0
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
static double med(double*v,int n){qsort(v,n,sizeof*v,cmp);return v[n/2];}
volatile float sink;
static float rd(float*a,size_t n){float acc[16]={0};for(size_t i=0;i<n;i+=16)for(int j=0;j<16;j++)acc[j]+=a[i+j];float s=0;for(int j=0;j<16;j++)s+=acc[j];return s;}
static void wr(float*a,size_t n,float v){for(size_t i=0;i<n;i++)a[i]=v;}
static void rmw(float*a,size_t n){for(size_t i=0;i<n;i++)a[i]=a[i]*0.5f+1.f;}
int main(){
  cpu_set_t s;CPU_ZERO(&s);CPU_SET(0,&s);sched_setaffinity(0,sizeof s,&s);
  size_t n8=(8u<<20)/4, n64=(64u<<20)/4, n2=(2u<<20)/4;
  float*a=aligned_alloc(64,n8*4),*b=aligned_alloc(64,n64*4),*c=aligned_alloc(64,n2*4),*e=aligned_alloc(64,n8*4);
  wr(a,n8,1);wr(b,n64,1);wr(c,n2,1);wr(e,n8,1);
  double r8[7],w8[7],m8[7],w64[7],rd64[7],m2[7];
  for(int k=0;k<7;k++){double t;
    t=now();sink+=rd(a,n8);r8[k]=now()-t;
    t=now();wr(a,n8,k);w8[k]=now()-t;
    t=now();rmw(a,n8);m8[k]=now()-t;
    t=now();wr(b,n64,k);w64[k]=now()-t;
    t=now();sink+=rd(b,n64);rd64[k]=now()-t;
    // dirty L2 then read other data: write 2MB (dirty private), then read 8MB of e (forces write-backs)
    wr(c,n2,k); t=now(); sink+=rd(e,n8); m2[k]=now()-t;
  }
  printf("rd8 %.3f wr8 %.3f rmw8 %.3f wr64 %.3f rd64 %.3f dirtyrd8 %.3f\n",med(r8,7),med(w8,7),med(m8,7),med(w64,7),med(rd64,7),med(m2,7));
}
