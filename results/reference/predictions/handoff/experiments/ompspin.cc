#include <omp.h>
#include <pthread.h>
#include <time.h>
#include <cstdio>
#include <thread>
#include <chrono>
double cpu(clockid_t c){timespec t;clock_gettime(c,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
int main(){
  omp_set_num_threads(2); clockid_t wc;
  #pragma omp parallel
  { if(omp_get_thread_num()==1) pthread_getcpuclockid(pthread_self(),&wc); }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  double w0=cpu(wc); auto t0=std::chrono::steady_clock::now();
  int N=100; static int cnt=0;
  for(int i=0;i<N;++i){
    #pragma omp parallel
    { if(omp_get_thread_num()==1) cnt++; }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  double w1=cpu(wc);
  printf("cnt %d worker cpu per region: %.1f us\n", cnt, (w1-w0)/N*1000);
}
