// Quick A/B: oneDNN 1x1 conv (+clip) then dw 3x3 (+clip), separate vs fused (append_dw).
#include <oneapi/dnnl/dnnl.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#include <cmath>
#include <cstring>
using namespace dnnl;
using tag = memory::format_tag; using dt = memory::data_type;
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
template <class F> double med(F f, int n) { std::vector<double> t; for (int i=0;i<n;i++){double a=now(); f(); t.push_back(now()-a);} std::sort(t.begin(),t.end()); return t[n/2]*1e3; }
int main(int argc, char** argv) {
  engine eng(engine::kind::cpu, 0); stream s(eng);
  struct S { int ci, ce, h, st; };
  std::vector<S> shapes = {{16,96,112,2},{24,144,56,1},{24,144,56,2},{32,192,28,1},{32,192,28,2},{64,384,14,1},{96,576,14,1},{96,576,14,2},{160,960,7,1}};
  tag blk = argc > 1 && !strcmp(argv[1], "16") ? tag::nChw16c : tag::nChw8c;
  double tsep=0, tfus=0;
  for (auto sh : shapes) {
    int N=1, H=sh.h, Ho=(H+2-3)/sh.st+1;
    memory::desc src({N,sh.ci,H,H}, dt::f32, blk), mid({N,sh.ce,H,H}, dt::f32, blk), dst({N,sh.ce,Ho,Ho}, dt::f32, blk);
    memory::desc w1({sh.ce,sh.ci,1,1}, dt::f32, tag::any), b1({sh.ce}, dt::f32, tag::x);
    memory::desc wdw({sh.ce,1,1,3,3}, dt::f32, tag::any), bdw({sh.ce}, dt::f32, tag::x);
    post_ops po1; po1.append_eltwise(1.f, algorithm::eltwise_clip, 0.f, 6.f);
    primitive_attr a1; a1.set_post_ops(po1);
    auto pd1 = convolution_forward::primitive_desc({prop_kind::forward_inference, algorithm::convolution_direct, src, w1, b1, mid, {1,1},{0,0},{0,0}}, a1, eng);
    auto pdw = convolution_forward::primitive_desc({prop_kind::forward_inference, algorithm::convolution_direct, mid, wdw, bdw, dst, {sh.st,sh.st},{1,1},{1,1}}, a1, eng);
    post_ops pof; pof.append_eltwise(1.f, algorithm::eltwise_clip, 0.f, 6.f);
    pof.append_dw(dt::f32, dt::f32, dt::f32, 3, sh.st, 1, 0, {}); pof.append_eltwise(1.f, algorithm::eltwise_clip, 0.f, 6.f);
    primitive_attr af; af.set_post_ops(pof);
    convolution_forward::primitive_desc pdf;
    try { pdf = convolution_forward::primitive_desc({prop_kind::forward_inference, algorithm::convolution_direct, src, w1, b1, mid, {1,1},{0,0},{0,0}}, af, eng); }
    catch (error& e) { printf("fused unsupported: %s\n", e.what()); continue; }
    auto fill=[&](memory m){ float* p=(float*)m.get_data_handle(); size_t n=m.get_desc().get_size()/4; for(size_t i=0;i<n;i++) p[i]=std::sin(i*0.37f)*0.5f; return m; };
    memory msrc=fill(memory(src,eng)), mmid(mid,eng), mdst(dst,eng), mdstf(pdf.dst_desc(),eng);
    memory mw1=fill(memory(pd1.weights_desc(),eng)), mb1=fill(memory(b1,eng)), mwdw=fill(memory(pdw.weights_desc(),eng)), mbdw=fill(memory(bdw,eng));
    memory mw1f=fill(memory(pdf.weights_desc(),eng));
    // dw weights/bias for fused: DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS
    memory::desc wdwf = pdf.query_md(query::exec_arg_md, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS);
    memory mwdwf=fill(memory(wdwf,eng));
    memory scr1(pd1.scratchpad_desc(),eng), scrw(pdw.scratchpad_desc(),eng), scrf(pdf.scratchpad_desc(),eng);
    convolution_forward c1(pd1), cdw(pdw), cf(pdf);
    auto sep=[&]{ c1.execute(s,{{DNNL_ARG_SRC,msrc},{DNNL_ARG_WEIGHTS,mw1},{DNNL_ARG_BIAS,mb1},{DNNL_ARG_DST,mmid}}); cdw.execute(s,{{DNNL_ARG_SRC,mmid},{DNNL_ARG_WEIGHTS,mwdw},{DNNL_ARG_BIAS,mbdw},{DNNL_ARG_DST,mdst}}); s.wait(); };
    auto fus=[&]{ cf.execute(s,{{DNNL_ARG_SRC,msrc},{DNNL_ARG_WEIGHTS,mw1f},{DNNL_ARG_BIAS,mb1},{DNNL_ARG_DST,mdstf},{DNNL_ARG_ATTR_POST_OP_DW|DNNL_ARG_WEIGHTS,mwdwf},{DNNL_ARG_ATTR_POST_OP_DW|DNNL_ARG_BIAS,mbdw}}); s.wait(); };
    for(int i=0;i<5;i++){sep();fus();}
    double a=1e9,b=1e9; for(int r=0;r<5;r++){ a=std::min(a,med(sep,21)); b=std::min(b,med(fus,21)); }
    tsep+=a; tfus+=b;
    printf("%3d->%4d @%3d s%d  sep %.3f ms  fused %.3f ms  (%s)  ratio %.2f\n", sh.ci, sh.ce, H, sh.st, a, b, pdf.impl_info_str(), a/b);
  }
  printf("total sep %.3f fused %.3f ratio %.2f\n", tsep, tfus, tsep/tfus);
}
