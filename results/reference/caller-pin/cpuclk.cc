#include <time.h>
#include <chrono>
#include <cstdio>
#include <initializer_list>
int main(){ for (clockid_t c : {CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID, CLOCK_MONOTONIC}) {
 timespec ts; int N=100000; auto t0=std::chrono::steady_clock::now();
 for(int i=0;i<N;++i) clock_gettime(c,&ts);
 printf("clock %d: %.3f us/call\n", (int)c, std::chrono::duration<double,std::micro>(std::chrono::steady_clock::now()-t0).count()/N);} }
