#define _GNU_SOURCE
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <sys/mman.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
volatile unsigned long sink;
unsigned long rd(const unsigned char*p,size_t n,size_t st){unsigned long s=0;for(size_t i=0;i<n;i+=st)s+=p[i];return s;}
__attribute__((target("avx2,fma"))) double kern(float*S,size_t ns,float*D,size_t nd,int passes){
  double t0=now();__m256 acc=_mm256_setzero_ps();
  for(int p=0;p<passes;p++){for(size_t i=0;i<ns;i+=8)acc=_mm256_add_ps(acc,_mm256_loadu_ps(S+i));
  for(size_t i=0;i<nd;i+=8)_mm256_storeu_ps(D+i,acc);}
  return now()-t0;}
void spin(double ms){double a=now();while(now()-a<ms){}}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
void* al(size_t n,int huge){void*p=aligned_alloc(2<<20,(n+(2<<20)-1)/(2<<20)*(2<<20));if(huge)madvise(p,n,MADV_HUGEPAGE);else madvise(p,n,MADV_NOHUGEPAGE);memset(p,1,n);return p;}
int main(int argc,char**argv){cpu_set_t cs;CPU_ZERO(&cs);CPU_SET(0,&cs);sched_setaffinity(0,sizeof cs,&cs);
 int huge=argc>1&&atoi(argv[1]);size_t sb=argc>2?atoi(argv[2])<<10:451<<10, db=sb/4;
 size_t FL=64<<20;unsigned char*o=al(FL,0);unsigned char*ev=al(2*576<<10,0);
 float*S=al(sb,huge),*D=al(db,huge);
 const char*nm[]={"b2b(evict)","spin 4ms","usleep 4ms","flush 22MiB","flush 64MiB","pagestride 64MiB"};
 enum{R=200,V=6};static double t[V][R];
 for(int r=0;r<R;r++)for(int v=0;v<V;v++){
   if(v==1)spin(4);if(v==2)usleep(4000);
   if(v==3||v==4){size_t n=v==3?(22<<20):FL;sink=rd(o,n,64);}
   if(v==5)sink=rd(o,FL,4096);
   sink=rd((unsigned char*)D,db,64); for(size_t i=0;i<2*576<<10;i+=64)ev[i]++; sink=rd((unsigned char*)S,sb,64);
   t[v][r]=kern(S,sb/4,D,db/4,1);}
 for(int v=0;v<V;v++){qsort(t[v],R,8,cmp);printf("huge=%d S=%zuK %-16s median %.4f ms p25 %.4f p75 %.4f\n",huge,sb>>10,nm[v],t[v][R/2],t[v][R/4],t[v][3*R/4]);}
}
