// Dirty-page hypothesis: does writing one byte per 4 KiB page of the output before the run restore the fast time?
#include <dnnl.hpp>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <functional>
#include <string>
#include <sched.h>
#include <unistd.h>
using namespace dnnl;
using tag = memory::format_tag; using dt = memory::data_type;
static volatile uint64_t sink;
uint64_t rd(const void* p, size_t n, size_t step=64){const uint8_t*b=(const uint8_t*)p;uint64_t s=0;for(size_t i=0;i<n;i+=step)s+=b[i];return s;}
void touchw(void* p, size_t n){volatile uint8_t*b=(volatile uint8_t*)p;for(size_t i=0;i<n;i+=4096)b[i]=b[i];}
using clk=std::chrono::steady_clock;
static double since(clk::time_point a){return std::chrono::duration<double,std::milli>(clk::now()-a).count();}
void spin(double ms){auto a=clk::now();while(since(a)<ms){}}
int main(int argc,char**argv){
  cpu_set_t cs; CPU_ZERO(&cs); CPU_SET(0,&cs); sched_setaffinity(0,sizeof cs,&cs);
  engine eng(engine::kind::cpu,0); stream st(eng);
  int L = argc>1?atoi(argv[1]):19;
  memory::dims src,wei,dst,strides,pad;
  if(L==19){src={1,144,56,56};wei={144,1,1,3,3};dst={1,144,28,28};strides={2,2};pad={1,1};}
  else {src={1,144,28,28};wei={32,144,1,1};dst={1,32,28,28};strides={1,1};pad={0,0};}
  auto sm=memory::desc(src,dt::f32,tag::nChw8c), dm=memory::desc(dst,dt::f32,tag::nChw8c);
  auto cd=convolution_forward::desc(prop_kind::forward_inference,algorithm::convolution_direct,sm,memory::desc(wei,dt::f32,tag::any),dm,strides,pad,pad);
  primitive_attr attr; attr.set_scratchpad_mode(scratchpad_mode::user);
  auto pd=convolution_forward::primitive_desc(cd,attr,eng);
  memory S(sm,eng),W(pd.weights_desc(),eng),D(dm,eng),P(pd.scratchpad_desc(),eng);
  for(auto* m:{&S,&W,&D}) memset(m->get_data_handle(),1,m->get_desc().get_size());
  size_t pbytes=pd.scratchpad_desc().get_size(); if(pbytes) memset(P.get_data_handle(),0,pbytes);
  convolution_forward conv(pd);
  auto run=[&]{conv.execute(st,{{DNNL_ARG_SRC,S},{DNNL_ARG_WEIGHTS,W},{DNNL_ARG_DST,D},{DNNL_ARG_SCRATCHPAD,P}});};
  size_t db=dm.get_size();
  std::vector<uint8_t> ev(2*(512+64)*1024,1), ctl(db+8192,1);
  printf("%s: dst %zu KiB, scratchpad %zu KiB\n",pd.impl_info_str(),db/1024,pbytes/1024);
  auto evict=[&]{for(size_t i=0;i<ev.size();i+=64)ev[i]++;};
  struct V{std::string n;std::function<void()> pre, post;};
  auto none=[]{};
  std::vector<V> vs={
   {"back to back",none,none},
   {"spin 4",[&]{spin(4);},none},
   {"spin 4, write 1 B/page of dst",[&]{spin(4);},[&]{touchw(D.get_data_handle(),db); if(pbytes) touchw(P.get_data_handle(),pbytes);}},
   {"spin 4, write 1 B/page other",[&]{spin(4);},[&]{touchw(ctl.data(),db);}},
   {"sleep 4, write 1 B/page of dst",[&]{usleep(4000);},[&]{touchw(D.get_data_handle(),db); if(pbytes) touchw(P.get_data_handle(),pbytes);}},
   {"sleep 4",[&]{usleep(4000);},none},
  };
  int R = argc>2?atoi(argv[2]):150;
  bool block = argc>3;
  std::vector<std::vector<double>> t(vs.size());
  auto one=[&](size_t v){ vs[v].pre(); sink=rd(D.get_data_handle(),db); evict(); vs[v].post(); sink=rd(S.get_data_handle(),sm.get_size());
    auto t0=clk::now(); run(); t[v].push_back(since(t0)); };
  if(block){ for(int b=0;b<3;++b) for(size_t v=0;v<vs.size();++v) for(int r=0;r<R/3;++r) one(v);} else
  for(int r=0;r<R;++r) for(size_t v=0;v<vs.size();++v) one(v);
  for(size_t v=0;v<vs.size();++v){auto&x=t[v];std::sort(x.begin(),x.end());printf("L%d %-32s median %.4f  p25 %.4f  p75 %.4f\n",L,vs[v].n.c_str(),x[x.size()/2],x[x.size()/4],x[3*x.size()/4]);}
}
