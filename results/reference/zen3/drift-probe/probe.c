// read bandwidth at several buffer sizes (best of a few sums), on the caller's cpu
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static double bw(float*a,size_t n,int reps){double best=1e9; volatile float sink; for(int r=0;r<reps;r++){double t=now(); float acc[16]={0}; for(size_t i=0;i<n;i+=16) for(int j=0;j<16;j++)acc[j]+=a[i+j]; float s=0; for(int j=0;j<16;j++)s+=acc[j]; sink=s; t=now()-t; if(t<best)best=t;} return n*4/best/1e9;}
int main(){ size_t mb[]={4,8,16,24,64}; float* a=malloc(64u<<20); for(size_t i=0;i<(16u<<20);i++)a[i]=i%7;
 for(int k=0;k<5;k++){ printf("bw%zu %.1f ", mb[k], bw(a, mb[k]<<18, mb[k]<=24?6:3)); } printf("\n"); }
