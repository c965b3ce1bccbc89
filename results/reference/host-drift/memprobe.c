// One line: fma_ms l3sum_ms dram_ms chase_ns  (pinned to cpu 0)
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
static double med(double*v,int n){qsort(v,n,sizeof*v,cmp);return v[n/2];}
int main(){
  cpu_set_t s;CPU_ZERO(&s);CPU_SET(0,&s);sched_setaffinity(0,sizeof s,&s);
  size_t l3n=(8u<<20)/4, dn=(256u<<20)/4, cn=(64u<<20)/8;
  float*a=aligned_alloc(64,l3n*4),*d=aligned_alloc(64,dn*4);uint64_t*c=aligned_alloc(64,cn*8);
  for(size_t i=0;i<l3n;i++)a[i]=i&7; for(size_t i=0;i<dn;i++)d[i]=i&3;
  // random cycle for the chase
  uint64_t*p=malloc(cn*8);for(size_t i=0;i<cn;i++)p[i]=i;uint64_t r=88172645463325252ull;
  for(size_t i=cn-1;i>0;i--){r^=r<<13;r^=r>>7;r^=r<<17;size_t j=r%(i+1);uint64_t t=p[i];p[i]=p[j];p[j]=t;}
  for(size_t i=0;i<cn;i++)c[p[i]]=p[(i+1)%cn];free(p);
  double f[5],l[5],m[5],ch[5];volatile float sink=0;
  for(int k=0;k<5;k++){
    double t=now();float x0=1,x1=1,x2=1,x3=1,x4=1,x5=1,x6=1,x7=1;
    for(int i=0;i<2000000;i++){x0=x0*0.9999f+0.1f;x1=x1*0.9999f+0.1f;x2=x2*0.9999f+0.1f;x3=x3*0.9999f+0.1f;x4=x4*0.9999f+0.1f;x5=x5*0.9999f+0.1f;x6=x6*0.9999f+0.1f;x7=x7*0.9999f+0.1f;}
    f[k]=now()-t;sink+=x0+x1+x2+x3+x4+x5+x6+x7;
    float acc=0; for(size_t i=0;i<l3n;i++)acc+=a[i]; // warm
    t=now(); for(int rep=0;rep<4;rep++)for(size_t i=0;i<l3n;i++)acc+=a[i]; l[k]=now()-t; sink+=acc;
    t=now(); acc=0; for(size_t i=0;i<dn;i++)acc+=d[i]; m[k]=now()-t; sink+=acc;
    uint64_t q=0; t=now(); for(int i=0;i<1000000;i++)q=c[q]; ch[k]=(now()-t)*1e6/1e6; sink+=q;
  }
  printf("%.3f %.3f %.3f %.1f\n",med(f,5),med(l,5),med(m,5),med(ch,5));
  return 0;
}
