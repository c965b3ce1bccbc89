#include <pthread.h>
#include <sched.h>
#include <chrono>
#include <cstdio>
int main(){cpu_set_t old,one;CPU_ZERO(&one);CPU_SET(0,&one);
 for(int mode=0;mode<2;++mode){
 if(mode==1) pthread_setaffinity_np(pthread_self(),sizeof one,&one);
 auto t0=std::chrono::steady_clock::now(); int N=20000;
 for(int i=0;i<N;++i){pthread_getaffinity_np(pthread_self(),sizeof old,&old);pthread_setaffinity_np(pthread_self(),sizeof one,&one);pthread_setaffinity_np(pthread_self(),sizeof old,&old);}
 printf("mode %d (%s): %.2f us per get+set+restore\n",mode,mode?"already pinned":"unpinned",std::chrono::duration<double,std::micro>(std::chrono::steady_clock::now()-t0).count()/N);}
}
