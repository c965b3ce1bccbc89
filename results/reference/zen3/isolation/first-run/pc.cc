// Is the slow lone run the JIT code going cold? Read oneDNN's JIT code (anonymous r-x maps) before the run.
#include <dnnl.hpp>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <functional>
#include <string>
#include <fstream>
#include <sstream>
#include <sched.h>
using namespace dnnl;
using tag = memory::format_tag; using dt = memory::data_type;
static volatile uint64_t sink;
uint64_t rd(const void* p, size_t n, size_t step=64){const uint8_t*b=(const uint8_t*)p;uint64_t s=0;for(size_t i=0;i<n;i+=step)s+=b[i];return s;}
using clk=std::chrono::steady_clock;
static double since(clk::time_point a){return std::chrono::duration<double,std::milli>(clk::now()-a).count();}
void spin(double ms){auto a=clk::now();while(since(a)<ms){}}
struct Region{const uint8_t* p; size_t n;};
std::vector<Region> anon_exec(){
  std::vector<Region> r; std::ifstream f("/proc/self/maps"); std::string line;
  while(std::getline(f,line)){ std::istringstream s(line); std::string range,perm,off,dev,ino,path; s>>range>>perm>>off>>dev>>ino; std::getline(s,path);
    path.erase(0,path.find_first_not_of(' '));
    if(perm.size()>2&&perm[2]=='x'&&(path.empty()||path=="[heap]")){ unsigned long a,b; sscanf(range.c_str(),"%lx-%lx",&a,&b); r.push_back({(const uint8_t*)a,size_t(b-a)}); } }
  return r;}
int main(int argc,char**argv){
  cpu_set_t cs; CPU_ZERO(&cs); CPU_SET(0,&cs); sched_setaffinity(0,sizeof cs,&cs);
  engine eng(engine::kind::cpu,0); stream st(eng);
  int L = argc>1?atoi(argv[1]):19;
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
  run();
  auto code=anon_exec(); size_t tot=0; for(auto&c:code) tot+=c.n;
  printf("%s: %zu anon exec regions, %zu KiB\n",pd.impl_info_str(),code.size(),tot/1024);
  std::vector<uint8_t> ev(2*(512+64)*1024,1), other(size_t(64)<<20,3);
  auto evict=[&]{for(size_t i=0;i<ev.size();i+=64)ev[i]++;};
  auto touch_code=[&]{uint64_t s=0;for(auto&c:code) s+=rd(c.p,c.n);sink=s;};
  struct V{std::string n;std::function<void()> pre, post;};
  auto none=[]{};
  std::vector<V> vs={
   {"back to back",none,none},
   {"spin 4",[&]{spin(4);},none},
   {"spin 4, code read",[&]{spin(4);},touch_code},
   {"flush 22MiB",[&]{sink=rd(other.data(),22<<20);},none},
   {"flush 22MiB, code read",[&]{sink=rd(other.data(),22<<20);},touch_code},
   {"flush 22MiB, weights read",[&]{sink=rd(other.data(),22<<20);},[&]{sink=rd(W.get_data_handle(),pd.weights_desc().get_size());}},
  };
  int R = argc>2?atoi(argv[2]):150;
  std::vector<std::vector<double>> t(vs.size());
  for(int r=0;r<R;++r) for(size_t v=0;v<vs.size();++v){
    vs[v].pre(); sink=rd(D.get_data_handle(),dm.get_size()); evict(); vs[v].post(); sink=rd(S.get_data_handle(),sm.get_size());
    auto t0=clk::now(); run(); t[v].push_back(since(t0));
  }
  for(size_t v=0;v<vs.size();++v){auto&x=t[v];std::sort(x.begin(),x.end());printf("L%d %-26s median %.4f  p25 %.4f  p75 %.4f\n",L,vs[v].n.c_str(),x[x.size()/2],x[x.size()/4],x[3*x.size()/4]);}
}
