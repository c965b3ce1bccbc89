// The first write of a buffer on cpu0 by who touched it last: cpu0 (hot), cpu0 then evicted from its
// private caches (the LUT's "output starts in the shared cache"), cpu1 wrote half / all of it, cpu1 read
// half / all of it after cpu0 wrote it. Median us of 41 rounds per size, the states interleaved.
// gcc -O2 -march=native -pthread firstwrite.c -o firstwrite; ./firstwrite
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now_us(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);pthread_setaffinity_np(pthread_self(),sizeof s,&s);}
static float *buf, *evict; static size_t n, nev;
static _Atomic int job=0, done=0; static volatile float sink;
static void wr(float* p, size_t k, float v){for(size_t i=0;i<k;++i)p[i]=v;}
static float rd(const float* p, size_t k){float s=0;for(size_t i=0;i<k;i+=16)s+=p[i];return s;}
static void* worker(void* a){pin(1);int last=0;for(;;){int j;while((j=atomic_load(&job))==last);last=j;int op=j&0xff;
  if(op==9){atomic_store(&done,j);break;} size_t h=n/2;
  if(op==1)wr(buf+h,n-h,2.f); else if(op==2)wr(buf,n,2.f); else if(op==3)sink=rd(buf+h,n-h); else if(op==4)sink=rd(buf,n);
  atomic_store(&done,j);}return 0;}
static int seq=0; static void on1(int op){int j=((++seq)<<8)|op;atomic_store(&job,j);while(atomic_load(&done)!=j);}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(){setvbuf(stdout,0,_IONBF,0);pin(0);pthread_t th;pthread_create(&th,0,worker,0);
 nev=(8u<<20)/4; evict=aligned_alloc(64,nev*4); wr(evict,nev,1);
 size_t sizes[]={16<<10,64<<10,256<<10,800<<10,4<<20};
 const char* names[]={"cpu0 hot","cpu0, private evicted","cpu1 wrote half","cpu1 wrote all","cpu1 read half","cpu1 read all"};
 printf("bytes");for(int s=0;s<6;++s)printf(" | %s",names[s]);printf("   (us, median of 41)\n");
 for(int z=0;z<5;++z){n=sizes[z]/4;buf=aligned_alloc(64,n*4);wr(buf,n,0);double t[6][41];
  for(int r=0;r<41;++r)for(int s=0;s<6;++s){
   wr(buf,n,1.f);
   if(s==1){wr(evict,nev,3.f);} // 8 MiB through cpu0's private caches (1 MiB L2 here)
   if(s==2)on1(1); if(s==3)on1(2); if(s==4)on1(3); if(s==5)on1(4);
   double t0=now_us(); wr(buf,n,5.f); t[s][r]=now_us()-t0; sink=buf[n/3];}
  printf("%zu",sizes[z]);for(int s=0;s<6;++s){qsort(t[s],41,8,cmp);printf(" | %.1f",t[s][20]);}printf("\n");free(buf);}
 on1(9);pthread_join(th,0);return 0;}
