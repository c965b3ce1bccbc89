// What decays while a core waits: spin lengths, and what keeps the conv fast during the wait.
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
#include <immintrin.h>
using namespace dnnl;
using tag = memory::format_tag; using dt = memory::data_type;
static volatile uint64_t sink;
uint64_t rd(const void* p, size_t n, size_t step=64){const uint8_t*b=(const uint8_t*)p;uint64_t s=0;for(size_t i=0;i<n;i+=step)s+=b[i];return s;}
using clk=std::chrono::steady_clock;
static double since(clk::time_point a){return std::chrono::duration<double,std::milli>(clk::now()-a).count();}
void spin(double ms){auto a=clk::now();while(since(a)<ms){}}
__attribute__((target("avx2,fma"))) void avxspin(double ms){auto a=clk::now();__m256 x=_mm256_set1_ps(1.f),y=_mm256_set1_ps(1.0000001f),z=_mm256_set1_ps(1e-9f),w=x;
 while(since(a)<ms){for(int i=0;i<64;++i){x=_mm256_fmadd_ps(x,y,z);w=_mm256_fmadd_ps(w,y,z);}}
 float f[8];_mm256_storeu_ps(f,_mm256_add_ps(x,w));sink+=uint64_t(f[0]);}
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
  memory S(sm,eng),W(pd.weights_desc(),eng),D(dm,eng),S2(sm,eng),D2(dm,eng);
  for(auto* m:{&S,&W,&D,&S2,&D2}) memset(m->get_data_handle(),1,m->get_desc().get_size());
  convolution_forward conv(pd);
  printf("main %s  W %zu B  S %zu B  D %zu B\n",pd.impl_info_str(),pd.weights_desc().get_size(),sm.get_size(),dm.get_size());
  std::vector<uint8_t> ev(2*(512+64)*1024,1), other(size_t(64)<<20,3), small(1<<20,5);
  auto run=[&](memory&s,memory&d){conv.execute(st,{{DNNL_ARG_SRC,s},{DNNL_ARG_WEIGHTS,W},{DNNL_ARG_DST,d}});};
  auto evict=[&]{for(size_t i=0;i<ev.size();i+=64)ev[i]++;};
  auto keep_own=[&](double ms){auto a=clk::now();while(since(a)<ms){sink=rd(W.get_data_handle(),pd.weights_desc().get_size());sink=rd(D.get_data_handle(),dm.get_size());spin(0.1);}};
  auto l3traffic=[&](double ms){auto a=clk::now();while(since(a)<ms){sink=rd(small.data(),small.size());}};  // 1 MiB: L2/L3 traffic, no DRAM
  auto dramtraffic=[&](double ms){auto a=clk::now();size_t o=0;while(since(a)<ms){sink=rd(other.data()+o,1<<18);o=(o+(1<<18))%(size_t(64)<<20);}};
  (void)0;
  auto clf=[&](const void* p,size_t n){const char* b=(const char*)p; for(size_t i=0;i<n;i+=64) _mm_clflushopt((void*)(b+i)); _mm_sfence();};
  auto clfWD=[&]{clf(W.get_data_handle(),pd.weights_desc().get_size());clf(D.get_data_handle(),dm.get_size());};
  struct V{std::string n;std::function<void()> f;};
  std::vector<V> vs={
   {"b2b",[&]{}},
   {"clflush W,D",[&]{clfWD();}},
   {"flush 22MiB",[&]{sink=rd(other.data(),22<<20);}},
   {"dram 22MiB cycling",[&]{static size_t o=0; for(int i=0;i<88;++i){sink=rd(other.data()+o,1<<18);o=(o+(1<<18))%(size_t(64)<<20);}}},
   {"spin 4",[&]{spin(4);}},
   {"spin 4, clflush W,D",[&]{spin(4);clfWD();}},
   {"spin 4, spare run",[&]{spin(4);run(S2,D2);}},
   {"usleep 4",[&]{usleep(4000);}},
  };
  std::vector<std::vector<double>> t(vs.size());
  int R = argc>2?atoi(argv[2]):120;
  for(int r=0;r<R;++r) for(size_t v=0;v<vs.size();++v){
    run(S,D);  // every variant starts from a run just made
    vs[v].f(); sink=rd(D.get_data_handle(),dm.get_size()); evict(); sink=rd(S.get_data_handle(),sm.get_size());
    auto t0=clk::now(); run(S,D); t[v].push_back(since(t0));
  }
  for(size_t v=0;v<vs.size();++v){auto&x=t[v];std::sort(x.begin(),x.end());printf("L%d %-26s median %.4f  p25 %.4f  p75 %.4f\n",L,vs[v].n.c_str(),x[x.size()/2],x[x.size()/4],x[3*x.size()/4]);}
}
