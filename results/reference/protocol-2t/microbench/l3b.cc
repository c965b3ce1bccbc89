#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cstdint>
#include <functional>
using clk=std::chrono::steady_clock;
volatile uint64_t sink;
static uint64_t rd(const uint8_t*p,size_t n){uint64_t s=0;for(size_t i=0;i<n;i+=64)s+=p[i];return s;}
static void wr(uint8_t*p,size_t n){for(size_t i=0;i<n;i+=64)p[i]++;}
static float fullrd(const float*p,size_t n){float s=0;for(size_t i=0;i<n;i++)s+=p[i];return s;}
static void fullwr(float*p,size_t n,float v){for(size_t i=0;i<n;i++)p[i]=v;}
int main(int argc,char**argv){
  size_t in=size_t(atof(argv[1])*1e6); size_t fl=size_t(atof(argv[2])*(1<<20));
  std::vector<uint8_t> other(64<<20,3), evict(4<<20,1);
  std::vector<float> a(in/4,1.f);
  uint8_t*A=(uint8_t*)a.data();
  auto F=[&]{sink=rd(other.data(),fl);};
  std::vector<std::pair<const char*,std::function<void()>>> modes={
   {"steady (no flush)",[&]{}},
   {"flush",[&]{F();}},
   {"flush, sparse read",[&]{F();sink=rd(A,in);}},
   {"flush, sparse read x2",[&]{F();sink=rd(A,in);sink=rd(A,in);}},
   {"flush, sparse read x3",[&]{F();sink=rd(A,in);sink=rd(A,in);sink=rd(A,in);}},
   {"flush, full read",[&]{F();sink=(uint64_t)fullrd(a.data(),a.size());}},
   {"flush, full write",[&]{F();fullwr(a.data(),a.size(),1.f);}},
   {"flush, full write, evict",[&]{F();fullwr(a.data(),a.size(),1.f);wr(evict.data(),evict.size());}},
   {"flush, sparse read, evict",[&]{F();sink=rd(A,in);wr(evict.data(),evict.size());}},
  };
  for(auto&[name,prep]:modes){
    std::vector<double> t;
    for(int r=0;r<21;r++){ prep(); auto t0=clk::now(); sink=(uint64_t)fullrd(a.data(),a.size()); t.push_back(std::chrono::duration<double,std::micro>(clk::now()-t0).count());}
    std::sort(t.begin(),t.end());
    printf("%-30s %8.1f us  (%.1f GB/s)\n",name,t[10],in/t[10]/1e3);
  }
}
