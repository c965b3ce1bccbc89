// Mechanism probe: why a oneDNN conv is slower after a big flush than in a network.
#include <dnnl.hpp>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <unistd.h>
using namespace dnnl;
using tag = memory::format_tag; using dt = memory::data_type;
static volatile uint64_t sink;
uint64_t rd(const void* p, size_t n, size_t step=64){const uint8_t*b=(const uint8_t*)p;uint64_t s=0;for(size_t i=0;i<n;i+=step)s+=b[i];return s;}
void wr(std::vector<uint8_t>& v){for(size_t i=0;i<v.size();i+=64)v[i]++;}
int main(int argc,char**argv){
  engine eng(engine::kind::cpu,0); stream st(eng);
  int variant_layer = argc>1?atoi(argv[1]):19;
  memory::dims src,wei,dst,strides,pad; int groups=1;
  if(variant_layer==19){src={1,144,56,56};wei={144,1,1,3,3};dst={1,144,28,28};strides={2,2};pad={1,1};groups=144;}
  else {src={1,144,28,28};wei={32,144,1,1};dst={1,32,28,28};strides={1,1};pad={0,0};}
  auto sm=memory::desc(src,dt::f32,tag::nChw8c), dm=memory::desc(dst,dt::f32,tag::nChw8c);
  auto wm=memory::desc(wei,dt::f32,tag::any);
  auto cd=convolution_forward::desc(prop_kind::forward_inference,algorithm::convolution_direct,sm,wm,dm,strides,pad,pad);
  auto pd=convolution_forward::primitive_desc(cd,eng);
  printf("impl %s\n",pd.impl_info_str());
  memory S(sm,eng),W(pd.weights_desc(),eng),D(dm,eng);
  memset(S.get_data_handle(),1,sm.get_size());memset(W.get_data_handle(),1,pd.weights_desc().get_size());
  convolution_forward conv(pd);
  auto pd2=convolution_forward::primitive_desc(cd,eng); // same shape: another primitive instance (own JIT code? cached)
  memory S2(sm,eng),W2(pd2.weights_desc(),eng),D2(dm,eng);
  memset(S2.get_data_handle(),1,sm.get_size());memset(W2.get_data_handle(),1,pd2.weights_desc().get_size());
  convolution_forward conv2(pd2);
  // a different small oneDNN primitive: relu on 4 KiB
  auto em=memory::desc({1,1024},dt::f32,tag::ab); memory E(em,eng); memset(E.get_data_handle(),0,4096);
  eltwise_forward relu(eltwise_forward::primitive_desc(eltwise_forward::desc(prop_kind::forward_inference,algorithm::eltwise_relu,em,0.f),eng));
  size_t FL=size_t(atoi(argc>2?argv[2]:"22"))<<20;
  std::vector<uint8_t> other(FL,3), ev(2*(512+64)*1024,1);
  auto run=[&]{conv.execute(st,{{DNNL_ARG_SRC,S},{DNNL_ARG_WEIGHTS,W},{DNNL_ARG_DST,D}});};
  auto evict=[&]{wr(ev);};
  const char* names[]={"warm b2b","evict only","flush+evict","flush+relu+evict","flush+pagestride only+evict","flush(8MiB)+evict","flush+W+evict","flush+S,D pre-evict","flush+run+evict","flush+S+D twice","spin 3ms+evict","flush+spin1ms+evict","usleep3ms+evict","spin3+conv2(other prim)+ev","spin3+conv1 other bufs+ev","spin3+read W+ev"};
  for(int v=0;v<16;++v){
    std::vector<double> t;
    for(int r=0;r<300;++r){
      uint64_t s=0;
      if(v==2||v==3||(v>=6&&v<=9)||v==11) s+=rd(other.data(),FL);
      auto spin=[&](double ms){auto a=std::chrono::steady_clock::now();double x=1;while(std::chrono::duration<double,std::milli>(std::chrono::steady_clock::now()-a).count()<ms)x=x*1.0000001+1e-9;s+=uint64_t(x);};
      if(v==10||v>=13) spin(3);
      if(v==13) conv2.execute(st,{{DNNL_ARG_SRC,S2},{DNNL_ARG_WEIGHTS,W2},{DNNL_ARG_DST,D2}});
      if(v==14) conv.execute(st,{{DNNL_ARG_SRC,S2},{DNNL_ARG_WEIGHTS,W},{DNNL_ARG_DST,D2}});
      if(v==15) s+=rd(W.get_data_handle(),pd.weights_desc().get_size()); if(v==11) spin(1); if(v==12) usleep(3000);
      if(v==6) s+=rd(W.get_data_handle(),pd.weights_desc().get_size());
      if(v==7||v==9) s+=rd(S.get_data_handle(),sm.get_size());
      if(v==9) s+=rd(D.get_data_handle(),dm.get_size());
      if(v==8) run();
      if(v==4) s+=rd(other.data(),FL,4096);
      if(v==5) s+=rd(other.data(),std::min(FL,size_t(8)<<20));
      if(v==3) relu.execute(st,{{DNNL_ARG_SRC,E},{DNNL_ARG_DST,E}});
      if(v>=2) s+=rd(D.get_data_handle(),dm.get_size());
      if(v>=1) evict();
      if(v>=1) s+=rd(S.get_data_handle(),sm.get_size());
      sink=s;
      auto t0=std::chrono::steady_clock::now(); run(); auto t1=std::chrono::steady_clock::now();
      t.push_back(std::chrono::duration<double,std::milli>(t1-t0).count());
    }
    std::sort(t.begin(),t.end()); printf("%-30s median %.4f ms  p25 %.4f\n",names[v],t[t.size()/2],t[t.size()/4]);
  }
}
