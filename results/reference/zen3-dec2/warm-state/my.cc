// Interleaved probe: conv time vs idle time before it, and what restores it.
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
using namespace dnnl;
using tag = memory::format_tag; using dt = memory::data_type;
static volatile uint64_t sink;
uint64_t rd(const void* p, size_t n, size_t step=64){const uint8_t*b=(const uint8_t*)p;uint64_t s=0;for(size_t i=0;i<n;i+=step)s+=b[i];return s;}
using clk=std::chrono::steady_clock;
#include <immintrin.h>
__attribute__((target("avx2,fma"))) void avxspin(double ms){auto a=clk::now();__m256 x=_mm256_set1_ps(1.f),y=_mm256_set1_ps(1.0000001f),z=_mm256_set1_ps(1e-9f),w=x,u=x,q=x;
 while(std::chrono::duration<double,std::milli>(clk::now()-a).count()<ms){for(int i=0;i<64;++i){x=_mm256_fmadd_ps(x,y,z);w=_mm256_fmadd_ps(w,y,z);u=_mm256_fmadd_ps(u,y,z);q=_mm256_fmadd_ps(q,y,z);}}
 float f[8];_mm256_storeu_ps(f,_mm256_add_ps(_mm256_add_ps(x,w),_mm256_add_ps(u,q)));sink+=uint64_t(f[0]);}
void spin(double ms){auto a=clk::now();while(std::chrono::duration<double,std::milli>(clk::now()-a).count()<ms){}}
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
  // other work: a different conv (the other probe shape), own buffers
  memory::dims src2,wei2,dst2,st2,pd2v;
  if(L!=19){src2={1,144,56,56};wei2={144,1,1,3,3};dst2={1,144,28,28};st2={2,2};pd2v={1,1};}
  else {src2={1,144,28,28};wei2={32,144,1,1};dst2={1,32,28,28};st2={1,1};pd2v={0,0};}
  auto sm2=memory::desc(src2,dt::f32,tag::nChw8c), dm2=memory::desc(dst2,dt::f32,tag::nChw8c);
  auto cd2=convolution_forward::desc(prop_kind::forward_inference,algorithm::convolution_direct,sm2,memory::desc(wei2,dt::f32,tag::any),dm2,st2,pd2v,pd2v);
  auto pdo=convolution_forward::primitive_desc(cd2,eng);
  memory OS(sm2,eng),OW(pdo.weights_desc(),eng),OD(dm2,eng);
  for(auto* m:{&OS,&OW,&OD}) memset(m->get_data_handle(),1,m->get_desc().get_size());
  convolution_forward other_conv(pdo);
  // tiny conv of the same kind (same strides/kernel), 16 channels, 8x8
  memory::dims ts={1,16,8*(L==19?2:1),8*(L==19?2:1)}, tw=(L==19)?memory::dims{16,1,1,3,3}:memory::dims{16,16,1,1}, td={1,16,8,8};
  auto tsm=memory::desc(ts,dt::f32,tag::nChw8c), tdm=memory::desc(td,dt::f32,tag::nChw8c);
  auto tcd=convolution_forward::desc(prop_kind::forward_inference,algorithm::convolution_direct,tsm,memory::desc(tw,dt::f32,tag::any),tdm,strides,pad,pad);
  auto tpd=convolution_forward::primitive_desc(tcd,eng);
  printf("main %s tiny %s\n",pd.impl_info_str(),tpd.impl_info_str());
  memory TS(tsm,eng),TW(tpd.weights_desc(),eng),TD(tdm,eng);
  for(auto* m:{&TS,&TW,&TD}) memset(m->get_data_handle(),1,m->get_desc().get_size());
  convolution_forward tiny(tpd);
  auto tinyrun=[&]{tiny.execute(st,{{DNNL_ARG_SRC,TS},{DNNL_ARG_WEIGHTS,TW},{DNNL_ARG_DST,TD}});};
  auto other_work=[&](double ms){auto a=clk::now();while(std::chrono::duration<double,std::milli>(clk::now()-a).count()<ms) other_conv.execute(st,{{DNNL_ARG_SRC,OS},{DNNL_ARG_WEIGHTS,OW},{DNNL_ARG_DST,OD}});};
  std::vector<uint8_t> ev(2*(512+64)*1024,1), other(size_t(64)<<20,3);
  auto memwork=[&](double ms){auto a=clk::now();size_t o=0;while(std::chrono::duration<double,std::milli>(clk::now()-a).count()<ms){sink=rd(other.data()+o,1<<20);o=(o+(1<<20))%(size_t(64)<<20);}};
  auto em=memory::desc({1,1024},dt::f32,tag::ab); memory E(em,eng); memset(E.get_data_handle(),0,4096);
  eltwise_forward relu(eltwise_forward::primitive_desc(eltwise_forward::desc(prop_kind::forward_inference,algorithm::eltwise_relu,em,0.f),eng));
  auto run=[&](memory&s,memory&d){conv.execute(st,{{DNNL_ARG_SRC,s},{DNNL_ARG_WEIGHTS,W},{DNNL_ARG_DST,d}});};
  auto evict=[&]{for(size_t i=0;i<ev.size();i+=64)ev[i]++;};
  struct V{std::string n;std::function<void()> f;};
  std::vector<V> vs={
   {"evict only",[&]{}},
   {"flush 22MiB",[&]{sink=rd(other.data(),22<<20);}},
   {"flush 22MiB+tiny same kind",[&]{sink=rd(other.data(),22<<20);tinyrun();}},
   {"spare run, then flush 22MiB",[&]{run(S2,D2);sink=rd(other.data(),22<<20);}},
   {"flush 22MiB, then spare run",[&]{sink=rd(other.data(),22<<20);run(S2,D2);}},
   {"flush 22MiB+relu",[&]{sink=rd(other.data(),22<<20);relu.execute(st,{{DNNL_ARG_SRC,E},{DNNL_ARG_DST,E}});}},
   {"spin 4",[&]{spin(4);}},
   {"spin 4+tiny same kind",[&]{spin(4);tinyrun();}},
   {"back to back: run just made",[&]{run(S2,D2);}},
   {"20 runs just made",[&]{for(int i=0;i<20;++i)run(S2,D2);}},
   {"20 runs of the same buffers",[&]{for(int i=0;i<20;++i)run(S,D);}},
   {"flush 22MiB, then 20 runs",[&]{sink=rd(other.data(),22<<20);for(int i=0;i<20;++i)run(S2,D2);}},
   {"flush 22MiB+fma 0.05ms",[&]{sink=rd(other.data(),22<<20);avxspin(0.05);}},
   {"flush 22MiB+fma 0.3ms",[&]{sink=rd(other.data(),22<<20);avxspin(0.3);}},
   {"fma 4ms",[&]{avxspin(4);}},
   {"spin 4+fma 0.3ms",[&]{spin(4);avxspin(0.3);}},
   {"flush 22MiB+other conv 0.3ms",[&]{sink=rd(other.data(),22<<20);other_work(0.3);}},
   {"flush 22MiB+other conv 2ms",[&]{sink=rd(other.data(),22<<20);other_work(2);}},
   {"flush 22MiB+fma 2ms",[&]{sink=rd(other.data(),22<<20);avxspin(2);}},
   {"flush 22MiB+memwork 2ms",[&]{sink=rd(other.data(),22<<20);memwork(2);}},
  };
  std::vector<std::vector<double>> t(vs.size());
  for(int r=0;r<150;++r) for(size_t v=0;v<vs.size();++v){
    vs[v].f(); sink=rd(D.get_data_handle(),dm.get_size()); evict(); sink=rd(S.get_data_handle(),sm.get_size());
    auto t0=clk::now(); run(S,D); t[v].push_back(std::chrono::duration<double,std::milli>(clk::now()-t0).count());
  }
  for(size_t v=0;v<vs.size();++v){auto&x=t[v];std::sort(x.begin(),x.end());printf("L%d %-26s median %.4f  p25 %.4f  p75 %.4f\n",L,vs[v].n.c_str(),x[x.size()/2],x[x.size()/4],x[3*x.size()/4]);}
}
