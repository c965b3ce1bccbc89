// Recovery curve: after a 4 ms spin, the k-th consecutive prepared run (k = 1..12).
#include <dnnl.hpp>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <string>
#include <sched.h>
#include <unistd.h>
using namespace dnnl;
using tag = memory::format_tag; using dt = memory::data_type;
static volatile uint64_t sink;
uint64_t rd(const void* p, size_t n, size_t step=64){const uint8_t*b=(const uint8_t*)p;uint64_t s=0;for(size_t i=0;i<n;i+=step)s+=b[i];return s;}
using clk=std::chrono::steady_clock;
static double since(clk::time_point a){return std::chrono::duration<double,std::milli>(clk::now()-a).count();}
void spin(double ms){auto a=clk::now();while(since(a)<ms){}}
int main(int argc,char**argv){
  cpu_set_t cs; CPU_ZERO(&cs); CPU_SET(0,&cs); sched_setaffinity(0,sizeof cs,&cs);
  engine eng(engine::kind::cpu,0); stream st(eng);
  int L = argc>1?atoi(argv[1]):19; int mode = argc>2?atoi(argv[2]):0; // 0: prep each run (evict+readback); 1: no prep
  memory::dims src,wei,dst,strides,pad;
  if(L==19){src={1,144,56,56};wei={144,1,1,3,3};dst={1,144,28,28};strides={2,2};pad={1,1};}
  else {src={1,144,28,28};wei={32,144,1,1};dst={1,32,28,28};strides={1,1};pad={0,0};}
  auto sm=memory::desc(src,dt::f32,tag::nChw8c), dm=memory::desc(dst,dt::f32,tag::nChw8c);
  auto cd=convolution_forward::desc(prop_kind::forward_inference,algorithm::convolution_direct,sm,memory::desc(wei,dt::f32,tag::any),dm,strides,pad,pad);
  auto pd=convolution_forward::primitive_desc(cd,eng);
  memory S(sm,eng),W(pd.weights_desc(),eng),D(dm,eng);
  for(auto* m:{&S,&W,&D}) memset(m->get_data_handle(),1,m->get_desc().get_size());
  convolution_forward conv(pd);
  auto run=[&]{conv.execute(st,{{DNNL_ARG_SRC,S},{DNNL_ARG_WEIGHTS,W},{DNNL_ARG_DST,D}});};
  std::vector<uint8_t> ev(2*(512+64)*1024,1);
  auto evict=[&]{for(size_t i=0;i<ev.size();i+=64)ev[i]++;};
  const int K=12, R=60; std::vector<std::vector<double>> t(K);
  for(int r=0;r<R;++r){ spin(4);
    for(int k=0;k<K;++k){ if(mode==0){sink=rd(D.get_data_handle(),dm.get_size()); evict(); sink=rd(S.get_data_handle(),sm.get_size());}
      auto t0=clk::now(); run(); t[k].push_back(since(t0)); } }
  printf("L%d %s mode %d: median of run k after a 4 ms spin:", L, pd.impl_info_str(), mode);
  for(int k=0;k<K;++k){auto&x=t[k];std::sort(x.begin(),x.end());printf(" %.3f",x[x.size()/2]);} printf("\n");
}
