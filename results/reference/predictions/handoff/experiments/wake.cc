// Wake latency of a sleeping thread on cpu1: idle cpu1 vs cpu1 held by a spinner (nice 0 / 19 / SCHED_IDLE).
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/futex.h>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>
#include <algorithm>
#include <cstdio>
#include <cstring>
using clk = std::chrono::steady_clock;
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);pthread_setaffinity_np(pthread_self(),sizeof s,&s);}
static long fut(std::atomic<int>*a,int op,int v){return syscall(SYS_futex,(int*)a,op,v,nullptr,nullptr,0);}
std::atomic<int> go{0}; std::atomic<long> t_woke{0}; std::atomic<bool> stop{false}; std::atomic<int> spin_on{0};
long now(){return clk::now().time_since_epoch().count();}
int main(int argc,char**argv){
  int mode=atoi(argv[1]); // 0 idle, 1 spinner nice0, 2 spinner nice19, 3 spinner SCHED_IDLE
  int gap_us=atoi(argv[2]);
  pin(0);
  std::thread sleeper([]{pin(1); int seen=0; for(;;){ while(go.load()==seen) fut(&go,FUTEX_WAIT_PRIVATE,seen); seen=go.load(); if(stop)return; t_woke=now();}});
  std::thread spinner([&]{pin(1); if(mode==2) setpriority(PRIO_PROCESS,syscall(SYS_gettid),19);
     if(mode==3){sched_param p{};p.sched_priority=0;sched_setscheduler(0,SCHED_IDLE,&p);} 
     while(!stop){ if(spin_on.load()) __builtin_ia32_pause(); else std::this_thread::sleep_for(std::chrono::milliseconds(1)); }});
  std::vector<double> lat;
  for(int i=0;i<400;++i){
    if(mode) spin_on=1;
    auto until=now()+long(gap_us)*1000; while(now()<until){}
    t_woke=0; long t0=now(); go.fetch_add(1); fut(&go,FUTEX_WAKE_PRIVATE,1);
    while(t_woke.load()==0){} lat.push_back((t_woke-t0)/1000.0);
  }
  stop=true; spin_on=0; go.fetch_add(1); fut(&go,FUTEX_WAKE_PRIVATE,1); sleeper.join(); spinner.join();
  std::sort(lat.begin(),lat.end());
  printf("mode %d gap %6d us: wake latency us p10 %.1f p50 %.1f p90 %.1f max %.1f\n",mode,gap_us,lat[40],lat[200],lat[360],lat.back());
}
